/// Timed metadata carried in the media (docs/EVENTS.md): ID3v2 tags (ID3 in HLS: a PES stream of type 0x15 in MPEG-TS, or
/// the payload of an `emsg` with scheme `https://aomedia.org/emsg/ID3` in fMP4) and `emsg` boxes (ISO/IEC 23009-1 §5.10.3.3).
public enum ID3 {
    /// One frame of a tag: its four-character id and what it says, as text (`TXXX`: "description=value"; `PRIV`: "owner" and
    /// the byte count; a text frame: its text; others: their size).
    public struct Frame: Sendable, Equatable {
        public var id: String
        public var text: String
        public init(id: String, text: String) {
            (self.id, self.text) = (id, text)
        }
    }

    /// The frames of an ID3v2.3 or v2.4 tag at the start of `bytes`; nil when it is no ID3v2 tag.
    public static func frames(_ bytes: [UInt8]) -> [Frame]? {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33, bytes[3] == 3 || bytes[3] == 4 else { return nil }
        let version = bytes[3]
        let size = synchsafe(bytes, 6)
        var o = 10
        // An extended header is skipped (its size: synchsafe in v2.4, plain in v2.3, after the flag).
        if bytes[5] & 0x40 != 0, bytes.count >= 14 {
            o += version == 4 ? synchsafe(bytes, 10) : Int(be32(bytes, 10)) + 4
        }
        let end = min(bytes.count, 10 + size)
        var out: [Frame] = []
        while o + 10 <= end, bytes[o] != 0 {
            let id = String(decoding: bytes[o..<(o + 4)], as: UTF8.self)
            let length = version == 4 ? synchsafe(bytes, o + 4) : Int(be32(bytes, o + 4))
            let body = o + 10
            guard length >= 0, body + length <= end else { break }
            out.append(Frame(id: id, text: describe(id, Array(bytes[body..<(body + length)]))))
            o = body + length
        }
        return out
    }

    static func describe(_ id: String, _ b: [UInt8]) -> String {
        switch id {
        case "PRIV":
            let owner = b.prefix { $0 != 0 }
            return String(decoding: owner, as: UTF8.self) + " (\(max(0, b.count - owner.count - 1)) bytes)"
        case "TXXX":
            guard let enc = b.first else { return "" }
            let parts = split(Array(b.dropFirst()), encoding: enc)
            return parts.count >= 2 ? "\(parts[0])=\(parts[1])" : parts.first ?? ""
        case _ where id.hasPrefix("T"):
            guard let enc = b.first else { return "" }
            return split(Array(b.dropFirst()), encoding: enc).joined(separator: " / ")
        default:
            return "\(b.count) bytes"
        }
    }

    /// Strings separated by the encoding's terminator: ISO-8859-1 (0) and UTF-8 (3) end with one zero byte; UTF-16 (1, 2)
    /// with two.
    static func split(_ b: [UInt8], encoding: UInt8) -> [String] {
        if encoding == 1 || encoding == 2 {
            var units: [UInt16] = []
            var i = 0
            while i + 1 < b.count {
                units.append(
                    encoding == 2 || (b.count > 1 && b[0] == 0xFE)
                        ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i]))
                i += 2
            }
            return units.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF16.self) }
                .map { $0.hasPrefix("\u{FEFF}") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
        }
        return b.split(separator: 0, omittingEmptySubsequences: false).map {
            encoding == 0 ? String($0.map { Character(Unicode.Scalar($0)) }) : String(decoding: $0, as: UTF8.self)
        }.filter { !$0.isEmpty }
    }

    /// A tag of TXXX frames (description, value) for the embedded origin: ID3v2.4, UTF-8.
    public static func tag(_ frames: [(description: String, value: String)]) -> [UInt8] {
        var body: [UInt8] = []
        for f in frames {
            let payload = [3] + Array(f.description.utf8) + [0] + Array(f.value.utf8)
            body += Array("TXXX".utf8) + synchsafeBytes(payload.count) + [0, 0] + payload
        }
        return Array("ID3".utf8) + [4, 0, 0] + synchsafeBytes(body.count) + body
    }

    static func synchsafe(_ b: [UInt8], _ o: Int) -> Int {
        guard o + 4 <= b.count else { return 0 }
        return Int(b[o] & 0x7F) << 21 | Int(b[o + 1] & 0x7F) << 14 | Int(b[o + 2] & 0x7F) << 7 | Int(b[o + 3] & 0x7F)
    }
    static func synchsafeBytes(_ v: Int) -> [UInt8] {
        [UInt8((v >> 21) & 0x7F), UInt8((v >> 14) & 0x7F), UInt8((v >> 7) & 0x7F), UInt8(v & 0x7F)]
    }
    static func be32(_ b: [UInt8], _ o: Int) -> UInt32 {
        guard o + 4 <= b.count else { return 0 }
        return UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }
}

/// An `emsg` box of a fragmented-MP4 segment (ISO/IEC 23009-1 §5.10.3.3): an event of a scheme, at a presentation time.
public struct EventMessage: Sendable, Equatable {
    public var scheme: String
    public var value: String
    /// Seconds on the media timeline (version 1: its own presentation time; version 0: the delta after `segmentStart`).
    public var time: Double
    /// Seconds; nil when unknown (0xFFFFFFFF).
    public var duration: Double?
    public var id: UInt32
    public var data: [UInt8]

    public init(scheme: String, value: String, time: Double, duration: Double?, id: UInt32, data: [UInt8]) {
        (self.scheme, self.value, self.time, self.duration, self.id, self.data) = (scheme, value, time, duration, id, data)
    }

    /// The scheme that carries an ID3 tag (AOM's ID3 in CMAF).
    public static let id3Scheme = "https://aomedia.org/emsg/ID3"

    /// The `emsg` boxes at the top level of `segment`, before its first fragment; a version 0 box's time counts from
    /// `segmentStart` (the segment's earliest presentation time, seconds). `segment` may be only its first bytes (the
    /// Loader's probe): the boxes are walked header by header, and what lies past the end is not needed.
    public static func all(in segment: [UInt8], segmentStart: Double = 0) -> [EventMessage] {
        var out: [EventMessage] = []
        var o = 0
        while let box = FragmentedMP4.header(segment, at: o, end: segment.count), box.type != "moof", box.type != "mdat" {
            if box.type == "emsg", o + box.size <= segment.count,
                let m = parse(Array(segment[box.payloadRange]), segmentStart: segmentStart)
            {
                out.append(m)
            }
            o += box.size
        }
        return out
    }

    static func parse(_ p: [UInt8], segmentStart: Double) -> EventMessage? {
        guard p.count >= 4 else { return nil }
        let version = p[0]
        var o = 4
        func u32() -> UInt32? {
            guard o + 4 <= p.count else { return nil }
            defer { o += 4 }
            return ID3.be32(p, o)
        }
        func u64() -> UInt64? {
            guard let hi = u32(), let lo = u32() else { return nil }
            return UInt64(hi) << 32 | UInt64(lo)
        }
        func cString() -> String? {
            guard let z = p[o...].firstIndex(of: 0) else { return nil }
            defer { o = z + 1 }
            return String(decoding: p[o..<z], as: UTF8.self)
        }
        if version == 1 {
            guard let scale = u32(), scale > 0, let pt = u64(), let d = u32(), let id = u32(), let scheme = cString(), let value = cString()
            else { return nil }
            return EventMessage(
                scheme: scheme, value: value, time: Double(pt) / Double(scale),
                duration: d == 0xFFFF_FFFF ? nil : Double(d) / Double(scale), id: id, data: Array(p[o...]))
        }
        guard let scheme = cString(), let value = cString(), let scale = u32(), scale > 0, let delta = u32(), let d = u32(), let id = u32()
        else { return nil }
        return EventMessage(
            scheme: scheme, value: value, time: segmentStart + Double(delta) / Double(scale),
            duration: d == 0xFFFF_FFFF ? nil : Double(d) / Double(scale), id: id, data: Array(p[o...]))
    }

    /// A version 1 box for the embedded origin.
    public static func box(
        scheme: String, value: String, timescale: UInt32, presentationTime: UInt64, duration: UInt32, id: UInt32, data: [UInt8]
    )
        -> [UInt8]
    {
        fullBox(
            "emsg", 1, 0,
            be32(timescale) + be64(presentationTime) + be32(duration) + be32(id) + Array(scheme.utf8) + [0] + Array(value.utf8) + [0]
                + data)
    }
}
