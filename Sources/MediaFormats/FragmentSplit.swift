/// Cutting one fMP4 media segment (one `moof` and its `mdat`) into several smaller fragments at chosen times, each a `moof`
/// of its own with the sample runs of its share and the `mdat` cut to match (ISO/IEC 14496-12 §8.8): what an LL-HLS packager
/// publishes as the parts of a segment (RFC 8216bis §3.2: a parent segment and its parts hold the same samples).
public enum FragmentSplit {
    /// One fragment cut from a segment: its bytes, the span of the video's decode time it covers, and whether it opens with a
    /// sync sample.
    public struct Piece: Sendable, Equatable {
        public var bytes: [UInt8]
        public var duration: Double
        public var independent: Bool

        public init(bytes: [UInt8], duration: Double, independent: Bool) {
            self.bytes = bytes
            self.duration = duration
            self.independent = independent
        }
    }

    /// One sample of a track run (§8.8.8): its duration and size, and its flags and composition offset when listed.
    struct Sample {
        var duration: UInt32
        var size: UInt32
        var flags: UInt32
        var compositionOffset: UInt32?
    }

    /// One `traf`: its header kept as is, its decode time, its run's flags and samples, and their bytes.
    struct Run {
        var trackID: UInt32
        var tfhd: [UInt8]
        var baseTime: UInt64
        var timescale: UInt32
        var trunVersion: UInt8
        var trunFlags: UInt32
        var samples: [Sample]
        var data: ArraySlice<UInt8>
        /// Sample `i`'s decode time in seconds.
        func time(_ i: Int) -> Double {
            Double(baseTime + samples.prefix(i).reduce(UInt64(0)) { $0 + UInt64($1.duration) }) / Double(timescale)
        }
    }

    static let nonSync: UInt32 = 0x1_0000

    /// Whether a segment's first video sample is a sync sample (its flags, §8.8.3.1: sample_is_non_sync_sample clear) —
    /// from the run's own flags, its first sample's, or the track fragment's default. Nil without a video run this can read.
    public static func opensWithSync(segment bytes: [UInt8], tracks: [MP4Track]) -> Bool? {
        guard let top = FragmentedMP4.boxes(bytes), let moof = top.first(where: { $0.type == "moof" }),
            let mdat = top.first(where: { $0.type == "mdat" })
        else { return nil }
        for traf in FragmentedMP4.children(bytes, moof, "traf") {
            guard let run = readRun(bytes, traf: traf, moof: moof, mdat: mdat, tracks: tracks),
                tracks.first(where: { $0.id == run.trackID })?.handler == "vide", let first = run.samples.first
            else { continue }
            return first.flags & nonSync == 0
        }
        return nil
    }

    /// How long a segment's video lasts: the sum of its video samples' durations (§8.8.8) over every fragment it holds (an
    /// LL-HLS segment is its parts' `moof`+`mdat` pairs); nil without a video run this can read.
    public static func videoDuration(segment bytes: [UInt8], tracks: [MP4Track]) -> Double? {
        guard let top = FragmentedMP4.boxes(bytes) else { return nil }
        var total: Double?
        for (i, moof) in top.enumerated() where moof.type == "moof" {
            guard let mdat = top[(i + 1)...].first(where: { $0.type == "mdat" }) else { continue }
            for traf in FragmentedMP4.children(bytes, moof, "traf") {
                guard let run = readRun(bytes, traf: traf, moof: moof, mdat: mdat, tracks: tracks),
                    tracks.first(where: { $0.id == run.trackID })?.handler == "vide", !run.samples.isEmpty
                else { continue }
                total = (total ?? 0) + Double(run.samples.reduce(UInt64(0)) { $0 + UInt64($1.duration) }) / Double(run.timescale)
            }
        }
        return total
    }

    /// `segment` cut at `cuts` (seconds after its video's first decode time, ascending): each cut moves to the first video
    /// sample decoded at or after it, every other track's samples go with the video they start beside. Nil when the segment
    /// is not one plain `moof` + `mdat` this can cut (a base data offset, sample encryption, a run without durations or sizes),
    /// or a cut lies past its last video sample.
    public static func split(segment bytes: [UInt8], tracks: [MP4Track], at cuts: [Double]) -> [Piece]? {
        guard let top = FragmentedMP4.boxes(bytes), top.filter({ $0.type == "moof" }).count == 1,
            let moof = top.first(where: { $0.type == "moof" }), let mdat = top.first(where: { $0.type == "mdat" }),
            mdat.offset > moof.offset, let sequence = mfhdSequence(bytes, moof)
        else { return nil }
        var runs: [Run] = []
        for traf in FragmentedMP4.children(bytes, moof, "traf") {
            guard let run = readRun(bytes, traf: traf, moof: moof, mdat: mdat, tracks: tracks) else { return nil }
            runs.append(run)
        }
        guard let video = runs.firstIndex(where: { r in tracks.first { $0.id == r.trackID }?.handler == "vide" }) else { return nil }
        let v = runs[video]
        // The video sample each piece starts with.
        var starts = [0]
        for c in cuts {
            let want = v.time(0) + c - 0.0005
            guard let i = v.samples.indices.first(where: { v.time($0) >= want }), i > starts.last! else { return nil }
            starts.append(i)
        }
        let bounds = starts.map { v.time($0) } + [v.time(v.samples.count)]
        var pieces: [Piece] = []
        for k in 0..<starts.count {
            // Each run's samples whose decode starts in [bounds[k], bounds[k+1]) (the video's by index, exactly).
            let shares: [Range<Int>] = runs.enumerated().map { j, r in
                if j == video { return starts[k]..<(k + 1 < starts.count ? starts[k + 1] : r.samples.count) }
                let from = k == 0 ? 0 : (r.samples.indices.first { r.time($0) >= bounds[k] - 1e-9 } ?? r.samples.count)
                let to =
                    k + 1 == starts.count
                    ? r.samples.count : (r.samples.indices.first { r.time($0) >= bounds[k + 1] - 1e-9 } ?? r.samples.count)
                return from..<max(from, to)
            }
            let frag = fragment(runs: runs, shares: shares, sequence: sequence &* UInt32(starts.count) &+ UInt32(k))
            let first = v.samples[starts[k]]
            pieces.append(Piece(bytes: frag, duration: bounds[k + 1] - bounds[k], independent: first.flags & nonSync == 0))
        }
        return pieces
    }

    static func mfhdSequence(_ b: [UInt8], _ moof: Box) -> UInt32? {
        guard let mfhd = FragmentedMP4.child(b, moof, "mfhd"), mfhd.payloadRange.count >= 8 else { return nil }
        return FragmentedMP4.u32(b, mfhd.payloadRange.lowerBound + 4)
    }

    /// A `traf` read whole: nil for what `split` does not cut.
    static func readRun(_ b: [UInt8], traf: Box, moof: Box, mdat: Box, tracks: [MP4Track]) -> Run? {
        guard let kids = FragmentedMP4.boxes(b, in: traf.payloadRange), kids.allSatisfy({ ["tfhd", "tfdt", "trun"].contains($0.type) }),
            kids.filter({ $0.type == "trun" }).count == 1, let tfhd = kids.first(where: { $0.type == "tfhd" })
        else { return nil }
        // tfhd (§8.8.7): the base is the moof (0x020000), no base data offset (0x000001); tfdt (§8.8.12); one trun (§8.8.8)
        // with its data offset, and a duration and size for every sample.
        guard let fragment = FragmentedMP4.TrackFragment(b, traf: traf), fragment.headerFlags & 0x1 == 0,
            fragment.headerFlags & 0x2_0000 != 0, let base = fragment.decodeTime, let run = fragment.runs.first,
            let dataOffset = run.dataOffset.map(Int.init), let track = tracks.first(where: { $0.id == fragment.trackID }),
            track.timescale > 0
        else { return nil }
        var samples: [Sample] = []
        for s in run.samples {
            guard let duration = s.duration, let size = s.size else { return nil }
            samples.append(Sample(duration: duration, size: size, flags: s.flags ?? 0, compositionOffset: s.compositionOffset))
        }
        let start = moof.offset + dataOffset
        let total = samples.reduce(0) { $0 + Int($1.size) }
        guard start >= mdat.payloadRange.lowerBound, start + total <= mdat.payloadRange.upperBound else { return nil }
        return Run(
            trackID: fragment.trackID, tfhd: Array(b[tfhd.offset..<(tfhd.offset + tfhd.size)]), baseTime: base,
            timescale: track.timescale, trunVersion: run.version, trunFlags: run.flags, samples: samples,
            data: b[start..<(start + total)])
    }

    /// One `moof` + `mdat` holding `shares` of `runs` (empty shares left out).
    static func fragment(runs: [Run], shares: [Range<Int>], sequence: UInt32) -> [UInt8] {
        // Every sample's flags are written (0x400) unless the original listed none but the first's: then the first of a share
        // that opens the segment keeps its own, and the others fall back to the tfhd's default as they did.
        var trafs: [[UInt8]] = []
        var payloads: [ArraySlice<UInt8>] = []
        var offsetsAt: [Int] = []
        for (r, share) in zip(runs, shares) where !share.isEmpty {
            let samples = Array(r.samples[share])
            var flags = r.trunFlags | 0x1
            let keepFirst = flags & 0x4 != 0 && share.lowerBound == 0
            if !keepFirst { flags &= ~UInt32(0x4) }
            var trun: [UInt8] = [r.trunVersion] + be24(flags) + be32(UInt32(samples.count))
            let offsetField = trun.count
            trun += be32(0)
            if keepFirst { trun += be32(samples[0].flags) }
            for s in samples {
                if flags & 0x100 != 0 { trun += be32(s.duration) }
                if flags & 0x200 != 0 { trun += be32(s.size) }
                if flags & 0x400 != 0 { trun += be32(s.flags) }
                if flags & 0x800 != 0 { trun += be32(s.compositionOffset ?? 0) }
            }
            let time = r.baseTime + r.samples.prefix(share.lowerBound).reduce(UInt64(0)) { $0 + UInt64($1.duration) }
            let tfdt = box("tfdt", [1, 0, 0, 0] + be64(time))
            let trunBox = box("trun", trun)
            let head = r.tfhd + tfdt
            // Where the data offset field lies inside the traf: its header, tfhd, tfdt, the trun's header, then the field.
            offsetsAt.append(8 + head.count + 8 + offsetField)
            trafs.append(box("traf", head + trunBox))
            let start = r.data.startIndex + r.samples.prefix(share.lowerBound).reduce(0) { $0 + Int($1.size) }
            payloads.append(r.data[start..<(start + samples.reduce(0) { $0 + Int($1.size) })])
        }
        let mfhd = box("mfhd", [0, 0, 0, 0] + be32(sequence))
        var moof = box("moof", mfhd + trafs.flatMap { $0 })
        // Data offsets from the moof's start (default-base-is-moof): past the moof and the mdat header, run after run.
        var at = 8 + mfhd.count
        var data = moof.count + 8
        for (k, traf) in trafs.enumerated() {
            let field = at + offsetsAt[k]
            moof.replaceSubrange(field..<(field + 4), with: be32(UInt32(data)))
            at += traf.count
            data += payloads[k].count
        }
        return moof + box("mdat", payloads.flatMap { $0 })
    }

}
