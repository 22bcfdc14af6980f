/// One ISO BMFF box: its type, where it starts, its header and total size.
public struct Box: Sendable, Equatable {
    public var type: String
    public var offset: Int
    public var headerSize: Int
    public var size: Int
    public var payloadRange: Range<Int> { (offset + headerSize)..<(offset + size) }
}

/// A track of an fMP4 initialization segment.
public struct MP4Track: Sendable, Equatable {
    public var id: UInt32
    public var timescale: UInt32
    /// `vide`, `soun`, `text`, …
    public var handler: String
    /// Seconds the track's presentation is moved later by the empty edits that open its edit list (ISO/IEC 14496-12 §8.6.6):
    /// how packagers give fMP4 a start time other than its decode times (FFmpeg's `-output_ts_offset` writes one).
    public var emptyEdit: Double = 0

    public init(id: UInt32, timescale: UInt32, handler: String, emptyEdit: Double = 0) {
        self.id = id
        self.timescale = timescale
        self.handler = handler
        self.emptyEdit = emptyEdit
    }
}

/// Reading fragmented MP4 (ISO/IEC 14496-12) init sections and media segments without decoding them.
public enum FragmentedMP4 {
    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }

    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(b, o)) << 32 | UInt64(u32(b, o + 4)) }

    /// The box whose header starts at `o` (ISO/IEC 14496-12 §4.2: 32-bit size, 64-bit when 1, to the end when 0), before `end`;
    /// its size may run past `end` (the caller decides whether that is an error).
    public static func header(_ bytes: [UInt8], at o: Int, end: Int) -> Box? {
        guard o + 8 <= end else { return nil }
        var size = Int(u32(bytes, o))
        var header = 8
        if size == 1 {
            guard o + 16 <= end else { return nil }
            // No box is anywhere near 2^62 bytes: a size that large is garbage, and `offset + size` must never overflow.
            let large = u64(bytes, o + 8)
            guard large <= UInt64(Int.max / 4) else { return nil }
            size = Int(large)
            header = 16
        } else if size == 0 {
            size = end - o
        }
        guard size >= header else { return nil }
        let typeBytes = bytes[(o + 4)..<(o + 8)]
        guard typeBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return Box(type: String(decoding: typeBytes, as: UTF8.self), offset: o, headerSize: header, size: size)
    }

    /// The boxes laid end to end in `range` of `bytes`; nil when a size does not fit (so the structure is broken).
    public static func boxes(_ bytes: [UInt8], in range: Range<Int>? = nil) -> [Box]? {
        let r = range ?? 0..<bytes.count
        var out: [Box] = []
        var o = r.lowerBound
        while o < r.upperBound {
            guard let box = header(bytes, at: o, end: r.upperBound), o + box.size <= r.upperBound else { return nil }
            out.append(box)
            o += box.size
        }
        return out
    }

    /// True when `bytes` is a chain of well-formed top-level boxes of known fMP4 kinds (a check that decryption produced real MP4).
    public static func looksValid(_ bytes: [UInt8]) -> Bool {
        guard let top = boxes(bytes), !top.isEmpty else { return false }
        return top.allSatisfy { topLevelTypes.contains($0.type) }
    }

    static let topLevelTypes: Set<String> = [
        "ftyp", "styp", "moov", "moof", "mdat", "sidx", "free", "skip", "emsg", "prft", "uuid", "mfra", "meta",
    ]

    /// Whether the first bytes of a file begin like MP4: every top-level box header they hold is of a known type (what follows may be cut off).
    public static func startsLikeMP4(_ prefix: [UInt8]) -> Bool {
        var o = 0
        var seen = 0
        while o + 8 <= prefix.count {
            guard let box = header(prefix, at: o, end: prefix.count), topLevelTypes.contains(box.type) else { return false }
            seen += 1
            o += box.size
        }
        return seen > 0
    }

    /// The first child box of `type` inside `parent`.
    static func child(_ bytes: [UInt8], _ parent: Box, _ type: String) -> Box? {
        boxes(bytes, in: parent.payloadRange)?.first { $0.type == type }
    }

    /// The first complete top-level box of `type`, walking headers only (what follows it may be cut off).
    static func firstTopLevel(_ bytes: [UInt8], _ type: String) -> Box? {
        var o = 0
        while let box = header(bytes, at: o, end: bytes.count) {
            if box.type == type { return o + box.size <= bytes.count ? box : nil }
            o += box.size
        }
        return nil
    }

    static func children(_ bytes: [UInt8], _ parent: Box, _ type: String) -> [Box] {
        boxes(bytes, in: parent.payloadRange)?.filter { $0.type == type } ?? []
    }

    /// The tracks of an initialization section (moov/trak: tkhd id, mdhd timescale, hdlr type).
    public static func tracks(initSection bytes: [UInt8]) -> [MP4Track] {
        guard let moov = boxes(bytes)?.first(where: { $0.type == "moov" }) else { return [] }
        var movieTimescale: UInt32 = 0
        if let mvhd = child(bytes, moov, "mvhd"), mvhd.payloadRange.count >= 24 {
            let v = bytes[mvhd.payloadRange.lowerBound]
            movieTimescale = u32(bytes, mvhd.payloadRange.lowerBound + (v == 1 ? 20 : 12))
        }
        var out: [MP4Track] = []
        for trak in children(bytes, moov, "trak") {
            guard let tkhd = child(bytes, trak, "tkhd"), let mdia = child(bytes, trak, "mdia"),
                let mdhd = child(bytes, mdia, "mdhd"), let hdlr = child(bytes, mdia, "hdlr")
            else { continue }
            let tv = bytes[tkhd.payloadRange.lowerBound]
            let id = u32(bytes, tkhd.payloadRange.lowerBound + (tv == 1 ? 20 : 12))
            let mv = bytes[mdhd.payloadRange.lowerBound]
            let timescale = u32(bytes, mdhd.payloadRange.lowerBound + (mv == 1 ? 20 : 12))
            let handler = String(decoding: bytes[(hdlr.payloadRange.lowerBound + 8)..<(hdlr.payloadRange.lowerBound + 12)], as: UTF8.self)
            out.append(
                MP4Track(id: id, timescale: timescale, handler: handler, emptyEdit: emptyEdits(bytes, trak, movieTimescale: movieTimescale))
            )
        }
        return out
    }

    /// Seconds of the empty edits (media_time −1) at the start of a track's edit list (trak/edts/elst), in the movie timescale.
    static func emptyEdits(_ bytes: [UInt8], _ trak: Box, movieTimescale: UInt32) -> Double {
        guard movieTimescale > 0, let edts = child(bytes, trak, "edts"), let elst = child(bytes, edts, "elst") else { return 0 }
        let p = elst.payloadRange
        guard p.count >= 8 else { return 0 }
        let v = bytes[p.lowerBound]
        let count = Int(u32(bytes, p.lowerBound + 4))
        let size = v == 1 ? 20 : 12
        var total: UInt64 = 0
        for i in 0..<count {
            let o = p.lowerBound + 8 + i * size
            guard o + size <= p.upperBound else { break }
            let duration = v == 1 ? u64(bytes, o) : UInt64(u32(bytes, o))
            let mediaTime = v == 1 ? Int64(bitPattern: u64(bytes, o + 8)) : Int64(Int32(bitPattern: u32(bytes, o + 4)))
            guard mediaTime == -1 else { break }
            total += duration
        }
        return Double(total) / Double(movieTimescale)
    }

    /// The baseMediaDecodeTime of each track in the first moof of a media segment (moof/traf: tfhd id, tfdt).
    /// Only the moof must be complete: the segment may be just its first bytes (the Loader reads the time as they pass).
    public static func firstDecodeTimes(segment bytes: [UInt8]) -> [UInt32: UInt64] {
        guard let moof = firstTopLevel(bytes, "moof") else { return [:] }
        var out: [UInt32: UInt64] = [:]
        for traf in children(bytes, moof, "traf") {
            guard let tfhd = child(bytes, traf, "tfhd"), let tfdt = child(bytes, traf, "tfdt") else { continue }
            let id = u32(bytes, tfhd.payloadRange.lowerBound + 4)
            let v = bytes[tfdt.payloadRange.lowerBound]
            let t = v == 1 ? u64(bytes, tfdt.payloadRange.lowerBound + 4) : UInt64(u32(bytes, tfdt.payloadRange.lowerBound + 4))
            if out[id] == nil { out[id] = t }
        }
        return out
    }

    /// The first media times in seconds of a segment's first video and first audio track (each moved by its edit list's
    /// opening empty edit, as `firstTime`), given its init section's tracks.
    public static func firstTimes(segment: [UInt8], tracks: [MP4Track]) -> (video: Double?, audio: Double?) {
        let times = firstDecodeTimes(segment: segment)
        func time(_ handler: String) -> Double? {
            for t in tracks where t.handler == handler && t.timescale > 0 {
                if let d = times[t.id] { return Double(d) / Double(t.timescale) + t.emptyEdit }
            }
            return nil
        }
        return (time("vide"), time("soun"))
    }

    /// The first media time in seconds of a segment (the video track's when present), given its init section's tracks.
    public static func firstTime(segment: [UInt8], tracks: [MP4Track]) -> Double? {
        let times = firstDecodeTimes(segment: segment)
        let ordered = tracks.sorted { a, _ in a.handler == "vide" }
        for t in ordered {
            // The decode time moved by the edit list's opening empty edit: where the player presents it. (The edit's media
            // time, which takes out the first frame's composition delay, and that delay cancel out.)
            if let d = times[t.id], t.timescale > 0 { return Double(d) / Double(t.timescale) + t.emptyEdit }
        }
        return nil
    }
}

extension FragmentedMP4 {
    /// The offset of the first occurrence of four-character code `type` in `bytes` (a box's or a sample entry's type, which
    /// sits deep in moov/trak/mdia/minf/stbl/stsd: a search for it is enough for the codec readers).
    static func offset(of type: String, in bytes: [UInt8]) -> Int? {
        let tag = Array(type.utf8)
        var i = 0
        while i + 4 <= bytes.count {
            if bytes[i] == tag[0], bytes[i + 1] == tag[1], bytes[i + 2] == tag[2], bytes[i + 3] == tag[3] { return i }
            i += 1
        }
        return nil
    }
}
