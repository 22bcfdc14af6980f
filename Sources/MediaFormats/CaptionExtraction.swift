/// Closed-caption data read out of HLS media segments with the presentation time of the picture carrying it: the ATSC A/53
/// Part 4 `cc_data` of each registered user data SEI (ITU-T H.264 §7.3.2.3 and §D.1.6; H.265 §7.3.5 and §D.2.6) in the video
/// of an MPEG-TS or fragmented MP4 segment. Pure.
public enum CaptionExtraction {
    /// A segment's caption samples: MPEG-TS when it starts with the sync byte 0x47, else fragmented MP4 (see the two readers).
    public static func samples(segment bytes: [UInt8], tracks: [MP4Track]) -> [CaptionSample] {
        bytes.first == 0x47 ? samples(transportStream: bytes) : samples(fragmentedMP4: bytes, tracks: tracks)
    }

    /// The caption samples of an MPEG-TS segment: for the video stream the PMT lists (stream type 0x1B H.264, 0xDB H.264 with
    /// SAMPLE-AES, whose SEI stays clear, or 0x24 HEVC), one sample per PES (one picture) whose SEI carry at least one
    /// `cc_data` triplet, at its PTS (ISO/IEC 13818-1 §2.4.3.7: 33 bits of 90 kHz, in seconds; a PES without one takes the
    /// previous PES's, and a PTS that wrapped past 2^33 within the segment counts on from there). A PES begun before the
    /// segment is left out; one cut at the end keeps its complete SEI messages. Sorted by presentation time.
    public static func samples(transportStream bytes: [UInt8]) -> [CaptionSample] {
        let info = TransportStream.probe(bytes)
        guard let pid = info.videoPID, let type = info.streamTypes[pid], [0x1B, 0xDB, 0x24].contains(type) else { return [] }
        var out: [CaptionSample] = []
        var first: UInt64?
        var last: UInt64?
        for pes in TransportStream.pesPackets(bytes, pids: [pid]) {
            guard var pts = pes.pts ?? last else { continue }
            last = pts
            let start = first ?? pts
            first = start
            if pts < start, start - pts > 1 << 32 { pts += 1 << 33 }
            let triplets = CEA608.nalUnits(pes.payload).flatMap { ccData(nal: $0, hevc: type == 0x24) }
            if !triplets.isEmpty { out.append(CaptionSample(time: Double(pts) / 90_000, triplets: triplets)) }
        }
        return inPresentationOrder(out)
    }

    /// The caption samples of a fragmented MP4 media segment (ISO/IEC 14496-12 §8.8), every `moof` of it: one per video sample
    /// whose SEI carry at least one `cc_data` triplet. The video track is the first of `tracks` with handler `vide`; its
    /// NAL units are told apart by its sample entry (`hvc1`/`hev1` HEVC, else H.264; either SEI header when it names
    /// neither). With no `tracks` (no init section read), the track of the first `traf` is taken as the video, at 90 kHz, its
    /// codec told from each NAL unit's header.
    ///
    /// A sample's time is its decode time (the `tfdt`, else where the track's previous run ended, plus the durations before
    /// it) plus its composition offset (unsigned in `trun` version 0, signed in version 1), less the track's edit media time,
    /// in seconds, plus its opening empty edit (§8.6.6): its presentation time, on the timeline `FragmentedMP4.firstTimes`
    /// reads (where a segment's first picture, whose composition offset is the edit's media time, is at its decode time).
    /// Samples are read as 4-byte length-prefixed NAL units (ISO/IEC 14496-15 §5.3.2); those cut off at the end are skipped.
    /// Sorted by presentation time.
    public static func samples(fragmentedMP4 bytes: [UInt8], tracks: [MP4Track]) -> [CaptionSample] {
        var video = tracks.first { $0.handler == "vide" && $0.timescale > 0 }
        guard video != nil || tracks.isEmpty else { return [] }
        var out: [CaptionSample] = []
        var next: UInt64 = 0
        var o = 0
        while let box = FragmentedMP4.header(bytes, at: o, end: bytes.count) {
            o += box.size
            guard box.type == "moof", box.offset + box.size <= bytes.count else { continue }
            // Without a base data offset, each traf's data follows the previous traf's (§8.8.7.1), the first's the moof.
            var position = box.offset
            for traf in FragmentedMP4.children(bytes, box, "traf") {
                guard let fragment = FragmentedMP4.TrackFragment(bytes, traf: traf) else { continue }
                let track = video ?? MP4Track(id: fragment.trackID, timescale: 90_000, handler: "vide")
                video = track
                let base: Int
                if let b = fragment.baseDataOffset {
                    base = min(Int(clamping: b), bytes.count)
                } else if fragment.headerFlags & 0x2_0000 != 0 {
                    base = box.offset
                } else {
                    base = position
                }
                position = base
                var time = fragment.decodeTime ?? next
                for run in fragment.runs {
                    if let d = run.dataOffset { position = base + Int(d) }
                    for s in run.samples {
                        let size = Int(s.size ?? 0)
                        defer {
                            position += size
                            time &+= UInt64(s.duration ?? 0)
                        }
                        guard fragment.trackID == track.id, position >= 0, size > 0, position + size <= bytes.count else { continue }
                        let triplets = lengthPrefixed(bytes[position..<(position + size)]).flatMap {
                            ccData(nal: $0, hevc: track.sampleEntry.map { ["hvc1", "hev1"].contains($0) })
                        }
                        guard !triplets.isEmpty else { continue }
                        let offset = s.compositionOffset.map { run.version == 0 ? Int64($0) : Int64(Int32(bitPattern: $0)) } ?? 0
                        let ticks = Double(time) + Double(offset) - Double(track.editMediaTime)
                        out.append(CaptionSample(time: ticks / Double(track.timescale) + track.emptyEdit, triplets: triplets))
                    }
                }
                if fragment.trackID == track.id { next = time }
            }
        }
        return inPresentationOrder(out)
    }

    /// The NAL units of an MP4 sample, each after its 4-byte length; one that runs past the sample ends the list.
    static func lengthPrefixed(_ sample: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var i = sample.startIndex
        while i + 4 <= sample.endIndex {
            let length = sample[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= sample.endIndex - i - 4 else { break }
            out.append(sample[(i + 4)..<(i + 4 + length)])
            i += 4 + length
        }
        return out
    }

    /// The `cc_data` triplets of a NAL unit (its header first) when it is an SEI — H.264 nal_unit_type 6 (one header byte),
    /// HEVC prefix SEI, type 39 (two); `hevc` nil takes either — in the order its messages carry them; empty otherwise.
    /// The emulation prevention bytes are taken out, then each sei_message (H.264 §7.3.2.3.1, H.265 §7.3.5: payloadType and
    /// payloadSize each a run of 0xFF bytes and a last byte) is read; user_data_registered_itu_t_t35 (type 4) is A/53 captions
    /// when it opens with country 0xB5, provider 0x0031, "GA94" and user_data_type_code 3. A message that runs past the NAL
    /// unit (cut off) ends the reading.
    static func ccData(nal: ArraySlice<UInt8>, hevc: Bool?) -> [CCTriplet] {
        guard let head = nal.first else { return [] }
        let h264 = hevc != true && head & 0x1F == 6
        guard h264 || (hevc != false && (head >> 1) & 0x3F == 39) else { return [] }
        let rbsp = H264.unescaped(nal.dropFirst(h264 ? 1 : 2))
        var i = 0
        func number() -> Int? {
            var n = 0
            while i < rbsp.count {
                let b = rbsp[i]
                i += 1
                n += Int(b)
                if b != 0xFF { return n }
            }
            return nil
        }
        var out: [CCTriplet] = []
        // more_rbsp_data: a last byte alone is the rbsp_trailing_bits.
        while i + 1 < rbsp.count {
            guard let type = number(), let size = number(), size <= rbsp.count - i else { break }
            if type == 4 { out += ccData(payload: rbsp[i..<(i + size)]) }
            i += size
        }
        return out
    }

    /// The triplets of an A/53 Part 4 registered user data payload: after `CEA608.header`, the cc_data() flags
    /// (process_cc_data_flag, cc_count in five bits) and em_data, cc_count three-byte constructs (as many as the payload
    /// holds). None when process_cc_data_flag is 0 (the data may be discarded).
    static func ccData(payload p: ArraySlice<UInt8>) -> [CCTriplet] {
        let h = CEA608.header
        guard p.count >= h.count + 2, p.prefix(h.count).elementsEqual(h) else { return [] }
        let flags = p[p.startIndex + h.count]
        guard flags & 0x40 != 0 else { return [] }
        let start = p.startIndex + h.count + 2
        let count = min(Int(flags & 0x1F), (p.endIndex - start) / 3)
        return CCTriplet.parse(Array(p[start..<(start + 3 * count)]))
    }

    /// `samples` sorted by time, those at the same time kept in stream order.
    static func inPresentationOrder(_ samples: [CaptionSample]) -> [CaptionSample] {
        samples.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
}
