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
    /// The media_time of the edit that follows those empty edits (§8.6.6), in the track's timescale: the composition time
    /// shown first (packagers set it to the first frame's composition offset, so its decode time is where it is shown).
    public var editMediaTime: Int64 = 0
    /// The type of the first sample entry in the track's `stsd` (§8.5.2): `avc1`, `avc3`, `hvc1`, `hev1`, `mp4a`, …
    public var sampleEntry: String?

    public init(
        id: UInt32, timescale: UInt32, handler: String, emptyEdit: Double = 0, editMediaTime: Int64 = 0, sampleEntry: String? = nil
    ) {
        self.id = id
        self.timescale = timescale
        self.handler = handler
        self.emptyEdit = emptyEdit
        self.editMediaTime = editMediaTime
        self.sampleEntry = sampleEntry
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
            let edit = edits(bytes, trak, movieTimescale: movieTimescale)
            let stsd = ["minf", "stbl", "stsd"].reduce(Box?.some(mdia)) { box, type in
                box.flatMap { child(bytes, $0, type) }
            }
            // stsd: version and flags, entry_count, then the first sample entry's box header.
            let entry = stsd.flatMap { header(bytes, at: $0.payloadRange.lowerBound + 8, end: $0.payloadRange.upperBound)?.type }
            out.append(
                MP4Track(
                    id: id, timescale: timescale, handler: handler, emptyEdit: edit.empty, editMediaTime: edit.mediaTime, sampleEntry: entry
                )
            )
        }
        return out
    }

    /// Seconds of the empty edits (media_time −1) at the start of a track's edit list (trak/edts/elst), in the movie timescale,
    /// and the media_time of the edit after them (0 when there is none).
    static func edits(_ bytes: [UInt8], _ trak: Box, movieTimescale: UInt32) -> (empty: Double, mediaTime: Int64) {
        guard movieTimescale > 0, let edts = child(bytes, trak, "edts"), let elst = child(bytes, edts, "elst") else { return (0, 0) }
        let p = elst.payloadRange
        guard p.count >= 8 else { return (0, 0) }
        let v = bytes[p.lowerBound]
        let count = Int(u32(bytes, p.lowerBound + 4))
        let size = v == 1 ? 20 : 12
        var total: UInt64 = 0
        var start: Int64 = 0
        for i in 0..<count {
            let o = p.lowerBound + 8 + i * size
            guard o + size <= p.upperBound else { break }
            let duration = v == 1 ? u64(bytes, o) : UInt64(u32(bytes, o))
            let mediaTime = v == 1 ? Int64(bitPattern: u64(bytes, o + 8)) : Int64(Int32(bitPattern: u32(bytes, o + 4)))
            guard mediaTime == -1 else {
                start = mediaTime
                break
            }
            total += duration
        }
        return (Double(total) / Double(movieTimescale), start)
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

extension FragmentedMP4 {
    /// One sample of a track run (ISO/IEC 14496-12 §8.8.8), each value the run's own or else the track fragment header's
    /// default (§8.8.7; nil when neither gives one — the `trex` defaults of the init section are not read).
    struct RunSample: Sendable, Equatable {
        var duration: UInt32?
        var size: UInt32?
        var flags: UInt32?
        /// sample_composition_time_offset as written: unsigned in a version 0 run, signed (two's complement) in version 1.
        var compositionOffset: UInt32?
    }

    /// A `trun` (§8.8.8): its version and flags, its data_offset when present, its samples.
    struct TrackRun: Sendable, Equatable {
        var version: UInt8
        var flags: UInt32
        var dataOffset: Int32?
        var samples: [RunSample]
    }

    /// A `traf` (§8.8.6) as read: its `tfhd` (§8.8.7: track, flags, base data offset), its `tfdt` (§8.8.12, version 0 or 1;
    /// nil without one), and its runs in order. Nil without a readable `tfhd`; a run whose fields run past its box ends the list.
    struct TrackFragment: Sendable, Equatable {
        var trackID: UInt32
        var headerFlags: UInt32
        var baseDataOffset: UInt64?
        var decodeTime: UInt64?
        var runs: [TrackRun] = []

        init?(_ b: [UInt8], traf: Box) {
            guard let kids = boxes(b, in: traf.payloadRange), let tfhd = kids.first(where: { $0.type == "tfhd" }) else { return nil }
            var field = Fields(b, tfhd.payloadRange)
            guard let head = field.next() else { return nil }
            headerFlags = head & 0xFF_FFFF
            guard let id = field.next() else { return nil }
            trackID = id
            if headerFlags & 0x1 != 0 {
                baseDataOffset = field.next().flatMap { high in field.next().map { UInt64(high) << 32 | UInt64($0) } }
            }
            if headerFlags & 0x2 != 0 { _ = field.next() } // sample_description_index
            let duration = headerFlags & 0x8 != 0 ? field.next() : nil
            let size = headerFlags & 0x10 != 0 ? field.next() : nil
            let flags = headerFlags & 0x20 != 0 ? field.next() : nil
            if let tfdt = kids.first(where: { $0.type == "tfdt" }) {
                var t = Fields(b, tfdt.payloadRange)
                let version = t.next().map { $0 >> 24 }
                decodeTime =
                    version == 1 ? t.next().flatMap { high in t.next().map { UInt64(high) << 32 | UInt64($0) } } : t.next().map(UInt64.init)
            }
            for trun in kids where trun.type == "trun" {
                var r = Fields(b, trun.payloadRange)
                guard let head = r.next(), let count = r.next() else { break }
                let runFlags = head & 0xFF_FFFF
                let dataOffset = runFlags & 0x1 != 0 ? r.next().map { Int32(bitPattern: $0) } : nil
                let firstFlags = runFlags & 0x4 != 0 ? r.next() : nil
                let perSample = [0x100, 0x200, 0x400, 0x800].filter { runFlags & UInt32($0) != 0 }.count
                // A count beyond the segment's length is garbage (and would make that many samples of its defaults).
                guard Int(count) <= b.count, r.remaining >= Int(count) * perSample * 4 else { break }
                let samples = (0..<Int(count)).map { i in
                    RunSample(
                        duration: runFlags & 0x100 != 0 ? r.next() : duration, size: runFlags & 0x200 != 0 ? r.next() : size,
                        flags: (runFlags & 0x400 != 0 ? r.next() : nil) ?? (i == 0 ? firstFlags : nil) ?? flags,
                        compositionOffset: runFlags & 0x800 != 0 ? r.next() : nil)
                }
                runs.append(TrackRun(version: UInt8(head >> 24), flags: runFlags, dataOffset: dataOffset, samples: samples))
            }
        }
    }

    /// Big-endian 32-bit fields read one after another inside a box's payload; nil past its end.
    struct Fields {
        let bytes: [UInt8]
        var at: Int
        let end: Int
        init(_ bytes: [UInt8], _ range: Range<Int>) {
            self.bytes = bytes
            at = range.lowerBound
            end = range.upperBound
        }
        var remaining: Int { end - at }
        mutating func next() -> UInt32? {
            guard at + 4 <= end else { return nil }
            defer { at += 4 }
            return u32(bytes, at)
        }
    }
}
