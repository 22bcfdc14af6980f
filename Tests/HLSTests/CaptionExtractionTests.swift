import Testing

@testable import MediaFormats

/// Closed-caption data read out of segments with the time of its picture: A/53 `cc_data` in H.264 and HEVC SEI, in MPEG-TS
/// and fragmented MP4, built here byte by byte (no encoder).
@Suite("Caption extraction: cc_data at each picture's presentation time, MPEG-TS and fMP4")
struct CaptionExtractionTests {
    // MARK: Elementary stream

    /// An A/53 caption payload (user_data_registered_itu_t_t35) carrying `triplets`: header, flags, em_data, the
    /// triplets' own bytes, marker bits.
    static func captionPayload(_ triplets: [[UInt8]], process: Bool = true) -> [UInt8] {
        CEA608.header + [(process ? 0x40 : 0) | UInt8(triplets.count), 0xFF] + triplets.flatMap { $0 } + [0xFF]
    }

    /// An SEI NAL unit holding `messages` (payloadType, payload) with 0xFF-extended type and size, trailing bits and emulation
    /// prevention: H.264 (header 0x06) or HEVC prefix SEI (0x4E 0x01).
    static func sei(_ messages: [(type: Int, payload: [UInt8])], hevc: Bool = false) -> [UInt8] {
        func coded(_ n: Int) -> [UInt8] { [UInt8](repeating: 0xFF, count: n / 255) + [UInt8(n % 255)] }
        let rbsp: [UInt8] = messages.flatMap { m -> [UInt8] in coded(m.type) + coded(m.payload.count) + m.payload } + [0x80]
        return (hevc ? [0x4E, 0x01] : [0x06]) + H264.escaped(rbsp)
    }

    static func field1(_ a: UInt8, _ b: UInt8) -> [UInt8] { CCTriplet(type: 0, a, b).bytes }

    /// One picture's access unit in Annex B: an access unit delimiter, `seis`, then a slice (IDR or not; HEVC: IDR_W_RADL or
    /// TRAIL_R).
    static func accessUnit(_ seis: [[UInt8]], hevc: Bool = false, idr: Bool = false) -> [UInt8] {
        let aud: [UInt8] = hevc ? [0x46, 0x01, 0x50] : [0x09, 0xF0]
        let slice: [UInt8] = hevc ? [idr ? 0x26 : 0x02, 0x01, 0xAF, 0x11, 0x22] : [idr ? 0x65 : 0x41, 0x88, 0x84, 0x21, 0x10]
        return ([aud] + seis + [slice]).flatMap { [0, 0, 0, 1] + $0 }
    }

    // MARK: MPEG-TS

    static let videoPID = 0x100
    static let pmtPID = 0x1000

    /// A PSI section in one packet: pointer field, the section with its CRC, 0xFF after it.
    static func psi(pid: Int, _ section: [UInt8]) -> [UInt8] {
        let body = [0] + section + TransportStream.crcBytes(section[...])
        return [0x47, 0x40 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10] + body + [UInt8](repeating: 0xFF, count: 184 - body.count)
    }

    /// PAT and PMT: program 1 with one video stream of `streamType` on `videoPID` (ISO/IEC 13818-1 §2.4.4.3, §2.4.4.8).
    static func tables(streamType: UInt8) -> [UInt8] {
        let pat: [UInt8] = [0x00, 0xB0, 13, 0, 1, 0xC1, 0, 0, 0, 1, 0xE0 | UInt8(pmtPID >> 8), UInt8(pmtPID & 0xFF)]
        let v = videoPID
        let pmt: [UInt8] =
            [0x02, 0xB0, 18, 0, 1, 0xC1, 0, 0, 0xE0 | UInt8(v >> 8), UInt8(v & 0xFF), 0xF0, 0]
            + [streamType, 0xE0 | UInt8(v >> 8), UInt8(v & 0xFF), 0xF0, 0]
        return psi(pid: 0, pat) + psi(pid: pmtPID, pmt)
    }

    /// A segment: the tables, then one video PES per picture (stream_id 0xE0, with its PTS, or none when nil), in the order
    /// given (decode order), packetized with adaptation-field stuffing.
    static func transportStream(_ pictures: [(pts: UInt64?, es: [UInt8])], streamType: UInt8 = 0x1B) -> [UInt8] {
        var cc: UInt8 = 0
        return tables(streamType: streamType)
            + pictures.flatMap { p in
                var pes = p.pts.map { TransportStream.id3PES(p.es, pts: $0) } ?? [0, 0, 1, 0xBD, 0, 0, 0x80, 0x00, 0] + p.es
                pes[3] = 0xE0
                pes[4] = 0
                pes[5] = 0 // unbounded, as video PES are
                return TransportStream.packetize(pes, pid: videoPID, firstAF: nil, cc: &cc)
            }
    }

    @Test("TS: pictures in decode order I P B B (PTS not monotonic) come out one per picture, in presentation order")
    func transportStreamOrder() {
        // Decode order I0 P3 B1 B2 at 30 fps, with the two-frame PTS offset an encoder with B-frames gives.
        let frame: UInt64 = 3000
        let base: UInt64 = 900_000 + 2 * frame
        let order: [(display: UInt64, pair: [UInt8])] = [
            (0, Self.field1(0x14, 0x20)), (3, Self.field1(0x43, 0x44)), (1, Self.field1(0x41, 0x42)), (2, Self.field1(0x42, 0x43)),
        ]
        let ts = Self.transportStream(
            order.enumerated().map { i, p in
                (base + p.display * frame, Self.accessUnit([Self.sei([(4, Self.captionPayload([p.pair]))])], idr: i == 0))
            })
        #expect(TransportStream.looksValid(ts))
        let samples = CaptionExtraction.samples(transportStream: ts)
        #expect(samples.map(\.time) == [0, 1, 2, 3].map { Double(base + $0 * frame) / 90_000 })
        #expect(samples.map { $0.triplets.map(\.first) } == [[0x14], [0x41], [0x42], [0x43]])
        #expect(CaptionExtraction.samples(segment: ts, tracks: []) == samples, "0x47 first: read as MPEG-TS")
    }

    @Test("TS: a PES without a PTS takes the previous PES's; the CEA608.sei the origin writes reads back, with its parity bits")
    func transportStreamWithoutPTS() {
        let pairs = CEA608.popOn("HI")
        let ts = Self.transportStream([
            (90_000, Self.accessUnit([CEA608.sei([CEA608.Pair(0x41, 0x42)])], idr: true)),
            (nil, Self.accessUnit([CEA608.sei(pairs)])),
        ])
        let samples = CaptionExtraction.samples(transportStream: ts)
        #expect(samples.map(\.time) == [1, 1])
        #expect(samples.last?.triplets == pairs.map { CCTriplet(type: 0, $0.first, $0.second) })
        #expect(samples.first?.triplets == [CCTriplet(type: 0, 0xC1, 0xC2)], "0x41 0x42 with odd parity")
    }

    @Test("emulation prevention bytes inside cc_data and in an earlier message are taken out before the triplets are read")
    func emulationPrevention() {
        // A DTVCC padding triplet (FA 00 00) before one whose marker byte is 0 (cc_valid 0, as some encoders pad): 00 00 00 01
        // becomes 00 00 03 00 00 03 01.
        let triplets: [[UInt8]] = [[0xFA, 0x00, 0x00], [0x00, 0x00, 0x01], Self.field1(0x00, 0x00)]
        // user_data_unregistered (type 5): a UUID and zero bytes, which need emulation prevention too.
        let zeros = (5, [UInt8](repeating: 0x11, count: 16) + [0, 0, 0, 0, 1, 0, 0, 2])
        let nal = Self.sei([zeros, (4, Self.captionPayload(triplets))])
        let rbspLength = 1 + 2 + 24 + 2 + Self.captionPayload(triplets).count + 1
        #expect(nal.count >= rbspLength + 4, "at least four emulation prevention bytes were put in")
        let samples = CaptionExtraction.samples(transportStream: Self.transportStream([(0, Self.accessUnit([nal]))]))
        #expect(
            samples.first?.triplets == [
                CCTriplet(type: 2, valid: false, 0, 0), CCTriplet(type: 0, valid: false, 0, 1), CCTriplet(type: 0, 0, 0),
            ])
    }

    @Test("SEI with several messages first: a large one (0xFF-extended size), an extended type, another provider's T.35; then captions")
    func severalMessages() {
        let big = (5, [UInt8](repeating: 0x5A, count: 300)) // payloadSize FF 2D
        let extendedType = (256, [UInt8]([1, 2, 3])) // payloadType FF 01
        let otherProvider = (4, [UInt8]([0xB5, 0x00, 0x2F]) + Array("DTG1".utf8) + [0x03, 0x41, 0xFF, 0xFC, 0x41, 0x42, 0xFF])
        let afd = (4, [UInt8]([0xB5, 0x00, 0x31]) + Array("DTG1".utf8) + [0x41, 0xF8])
        let captions = (4, Self.captionPayload([Self.field1(0x20, 0x21)]))
        let nal = Self.sei([big, extendedType, otherProvider, afd, captions, (4, Self.captionPayload([Self.field1(0x22, 0x23)]))])
        let samples = CaptionExtraction.samples(transportStream: Self.transportStream([(9000, Self.accessUnit([nal]))]))
        #expect(samples == [CaptionSample(time: 0.1, triplets: [CCTriplet(type: 0, 0x20, 0x21), CCTriplet(type: 0, 0x22, 0x23)])])
    }

    @Test("field 2 (cc_type 1), DTVCC (2, 3) and invalid triplets carried through unchanged; process_cc_data_flag 0 discarded")
    func tripletTypes() {
        let triplets = [
            CCTriplet(type: 0, 0x94, 0x20), CCTriplet(type: 1, 0x15, 0x2C), CCTriplet(type: 3, 0x02, 0x21),
            CCTriplet(type: 2, 0x3F, 0x41), CCTriplet(type: 2, valid: false, 0x00, 0x00),
        ]
        let ignored = Self.sei([(4, Self.captionPayload([Self.field1(0x41, 0x42)], process: false))])
        let ts = Self.transportStream([
            (0, Self.accessUnit([Self.sei([(4, Self.captionPayload(triplets.map(\.bytes)))])])), (3000, Self.accessUnit([ignored])),
        ])
        #expect(CaptionExtraction.samples(transportStream: ts) == [CaptionSample(time: 0, triplets: triplets)])
    }

    @Test("HEVC (stream type 0x24): prefix SEI, type 39 with a two-byte header; an H.264-style SEI byte is not read as one")
    func hevcTransportStream() {
        let nal = Self.sei([(4, Self.captionPayload([Self.field1(0x41, 0x42)]))], hevc: true)
        let h264Looking = Self.sei([(4, Self.captionPayload([Self.field1(0x43, 0x44)]))]) // 0x06: an HEVC TSA_R slice header
        let ts = Self.transportStream(
            [(180_000, Self.accessUnit([nal], hevc: true, idr: true)), (183_000, Self.accessUnit([h264Looking], hevc: true))],
            streamType: 0x24)
        #expect(CaptionExtraction.samples(transportStream: ts) == [CaptionSample(time: 2, triplets: [CCTriplet(type: 0, 0x41, 0x42)])])
    }

    @Test("no captions: slices, a non-caption SEI, padding-free segments give []; so does a segment with no video, or garbage")
    func noCaptions() {
        let ts = Self.transportStream([
            (0, Self.accessUnit([Self.sei([(5, [UInt8](repeating: 7, count: 20))])], idr: true)), (3000, Self.accessUnit([])),
        ])
        #expect(CaptionExtraction.samples(transportStream: ts).isEmpty)
        #expect(CaptionExtraction.samples(transportStream: Self.tables(streamType: 0x1B)).isEmpty)
        #expect(CaptionExtraction.samples(segment: [0x47] + [UInt8](repeating: 0xFF, count: 400), tracks: []).isEmpty)
        #expect(CaptionExtraction.samples(segment: [], tracks: []).isEmpty)
        let fmp4 = Self.fragment(decodeTime: 0, samples: [(0, Self.accessUnit([], idr: true)), (0, Self.accessUnit([]))])
        #expect(CaptionExtraction.samples(fragmentedMP4: fmp4, tracks: [Self.video]).isEmpty)
    }

    @Test("TS cut anywhere (mid-packet, mid-SEI, mid-header) never traps, and the complete pictures before the cut are kept")
    func truncatedTransportStream() {
        let big = [UInt8](repeating: 0x33, count: 600) // the last picture spans several packets
        let ts = Self.transportStream([
            (0, Self.accessUnit([Self.sei([(4, Self.captionPayload([Self.field1(0x41, 0x42)]))])])),
            (3000, Self.accessUnit([Self.sei([(5, big), (4, Self.captionPayload([Self.field1(0x43, 0x44)]))])])),
        ])
        let whole = CaptionExtraction.samples(transportStream: ts)
        #expect(whole.count == 2)
        var seen: Set<Int> = []
        for cut in stride(from: 0, through: ts.count, by: 7) {
            let samples = CaptionExtraction.samples(transportStream: Array(ts[..<cut]))
            #expect(samples.count <= 2 && samples == Array(whole.prefix(samples.count)), "cut at \(cut)")
            seen.insert(samples.count)
        }
        #expect(seen == [0, 1, 2])
        // The last packet whole but the caption message not: the first picture only.
        let lastPacketCut = ts.count - 188
        #expect(CaptionExtraction.samples(transportStream: Array(ts[..<lastPacketCut])) == Array(whole.prefix(1)))
    }

    // MARK: Fragmented MP4

    struct Writer: BoxWriting {}

    static let video = MP4Track(id: 1, timescale: 90_000, handler: "vide", sampleEntry: "avc1")

    /// Annex B access unit to MP4 sample: each NAL unit after a 4-byte length.
    static func mp4Sample(_ annexB: [UInt8]) -> [UInt8] {
        CEA608.nalUnits(annexB).flatMap { Writer.be32(UInt32($0.count)) + $0 }
    }

    /// A `moof` + `mdat` for one track: tfhd (default-base-is-moof, default duration), tfdt (version `tfdtVersion`), one trun
    /// (version `trunVersion`) with each sample's size and composition offset, then the samples.
    static func fragment(
        trackID: UInt32 = 1, decodeTime: UInt64, duration: UInt32 = 3000, tfdtVersion: UInt8 = 0, trunVersion: UInt8 = 0,
        samples: [(cto: Int32, au: [UInt8])]
    ) -> [UInt8] {
        let data = samples.map { mp4Sample($0.au) }
        func moof(_ dataOffset: UInt32) -> [UInt8] {
            let tfhd = Writer.fullBox("tfhd", 0, 0x02_0008, Writer.be32(trackID) + Writer.be32(duration))
            let time = tfdtVersion == 1 ? Writer.be64(decodeTime) : Writer.be32(UInt32(decodeTime))
            let tfdt = Writer.fullBox("tfdt", tfdtVersion, 0, time)
            let entries = zip(samples, data).flatMap { s, d in Writer.be32(UInt32(d.count)) + Writer.be32(UInt32(bitPattern: s.cto)) }
            let trun = Writer.fullBox("trun", trunVersion, 0x0A01, Writer.be32(UInt32(samples.count)) + Writer.be32(dataOffset) + entries)
            return Writer.box("moof", Writer.fullBox("mfhd", 0, 0, Writer.be32(1)) + Writer.box("traf", tfhd + tfdt + trun))
        }
        return moof(UInt32(moof(0).count + 8)) + Writer.box("mdat", data.flatMap { $0 })
    }

    static func captioned(_ a: UInt8, hevc: Bool = false) -> [UInt8] {
        accessUnit([sei([(4, captionPayload([field1(a, a)]))], hevc: hevc)], hevc: hevc)
    }

    @Test("fMP4: decode order I P B B with composition offsets comes out in presentation order, at (decode + offset) / timescale")
    func fragmentedOrder() {
        // Composition offsets as FFmpeg writes them with B-frames (version 0, the first frame's delay in the edit list).
        let seg = Self.fragment(
            decodeTime: 900_000,
            samples: [
                (6000, Self.captioned(0x10)), (12000, Self.captioned(0x13)), (3000, Self.captioned(0x11)), (3000, Self.captioned(0x12)),
            ])
        var track = Self.video
        let samples = CaptionExtraction.samples(fragmentedMP4: seg, tracks: [track])
        #expect(samples.map(\.time) == [906_000, 909_000, 912_000, 915_000].map { Double($0) / 90_000 })
        #expect(samples.map { $0.triplets.first?.first } == [0x10, 0x11, 0x12, 0x13])
        #expect(CaptionExtraction.samples(segment: seg, tracks: [track]) == samples)
        // The edit list: its media time takes the delay out, its empty edit moves the whole; the first picture then sits at
        // the segment's first video time as `FragmentedMP4.firstTimes` reads it.
        track.editMediaTime = 6000
        track.emptyEdit = 10
        let edited = CaptionExtraction.samples(fragmentedMP4: seg, tracks: [MP4Track(id: 2, timescale: 1000, handler: "soun"), track])
        #expect(edited.first?.time == FragmentedMP4.firstTimes(segment: seg, tracks: [track]).video)
        #expect(edited.map(\.time) == [900_000, 903_000, 906_000, 909_000].map { Double($0) / 90_000 + 10 })
    }

    @Test("fMP4 times: tfdt version 1 past 2^32, trun version 1 with negative composition offsets, a 30000 timescale")
    func fragmentedTimes() {
        let decode: UInt64 = 1 << 33 + 1001 * 7
        let seg = Self.fragment(
            decodeTime: decode, duration: 1001, tfdtVersion: 1, trunVersion: 1,
            samples: [
                (0, Self.captioned(0x20)), (2002, Self.captioned(0x23)), (-1001, Self.captioned(0x21)), (-1001, Self.captioned(0x22)),
            ])
        let track = MP4Track(id: 1, timescale: 30_000, handler: "vide")
        let samples = CaptionExtraction.samples(fragmentedMP4: seg, tracks: [track])
        #expect(samples.map(\.time) == [0, 1, 2, 3].map { Double(decode + 1001 * $0) / 30_000 })
        #expect(samples.map { $0.triplets.first?.first } == [0x20, 0x21, 0x22, 0x23])
        // Read as version 0, the negative offsets would be four billion ticks late: the version is what says they are signed.
        var unsigned = seg
        let trun = FragmentedMP4.offset(of: "trun", in: seg)!
        unsigned[trun + 4] = 0
        #expect(CaptionExtraction.samples(fragmentedMP4: unsigned, tracks: [track]).last?.time ?? 0 > 100_000)
    }

    @Test("fMP4 HEVC: prefix SEI read by the sample entry (hvc1), or told by the NAL header with no codec known; H.264 likewise")
    func fragmentedHEVC() {
        let seg = Self.fragment(decodeTime: 0, samples: [(0, Self.captioned(0x41, hevc: true))])
        let expected = [CaptionSample(time: 0, triplets: [CCTriplet(type: 0, 0x41, 0x41)])]
        #expect(
            CaptionExtraction.samples(
                fragmentedMP4: seg, tracks: [MP4Track(id: 1, timescale: 90_000, handler: "vide", sampleEntry: "hvc1")]) == expected)
        #expect(CaptionExtraction.samples(fragmentedMP4: seg, tracks: [MP4Track(id: 1, timescale: 90_000, handler: "vide")]) == expected)
        #expect(CaptionExtraction.samples(fragmentedMP4: seg, tracks: [Self.video]).isEmpty, "an avc1 track: 0x4E is no H.264 SEI")
    }

    @Test("fMP4 without tracks: the first traf's track taken as video at 90 kHz; tracks without video: []; other tracks' samples skipped")
    func fragmentedWithoutInit() {
        let seg = Self.fragment(trackID: 7, decodeTime: 90_000, samples: [(0, Self.captioned(0x41))])
        #expect(CaptionExtraction.samples(fragmentedMP4: seg, tracks: []).map(\.time) == [1])
        #expect(CaptionExtraction.samples(fragmentedMP4: seg, tracks: [MP4Track(id: 7, timescale: 48_000, handler: "soun")]).isEmpty)
        #expect(CaptionExtraction.samples(fragmentedMP4: seg, tracks: [MP4Track(id: 1, timescale: 90_000, handler: "vide")]).isEmpty)
        // Two fragments in one segment (LL-HLS parts): the second's tfdt gives its time.
        let two = seg + Self.fragment(trackID: 7, decodeTime: 93_000, samples: [(0, Self.captioned(0x42))])
        #expect(CaptionExtraction.samples(fragmentedMP4: two, tracks: []).map(\.time) == [1, 93_000.0 / 90_000])
    }

    @Test("fMP4 cut anywhere never traps; samples wholly before the cut are kept")
    func truncatedFragment() {
        let seg = Self.fragment(decodeTime: 0, samples: [(0, Self.captioned(0x41)), (0, Self.captioned(0x42)), (0, Self.captioned(0x43))])
        let whole = CaptionExtraction.samples(fragmentedMP4: seg, tracks: [Self.video])
        #expect(whole.count == 3)
        var seen: Set<Int> = []
        for cut in 0...seg.count {
            let samples = CaptionExtraction.samples(fragmentedMP4: Array(seg[..<cut]), tracks: [Self.video])
            #expect(samples == Array(whole.prefix(samples.count)), "cut at \(cut)")
            seen.insert(samples.count)
        }
        #expect(seen == [0, 1, 2, 3])
    }

    @Test("an init section's tracks name their sample entry")
    func sampleEntry() {
        #expect(FragmentedMP4.tracks(initSection: TimedTextMP4.initSection(timescale: 1000)).map(\.sampleEntry) == ["stpp"])
    }
}
