import HLSReport
import MediaFormats
import Testing

/// HEVC and Dolby Vision codec strings from the bytes (ISO/IEC 14496-15 Annex E.3), and CODECS held against them.
@Suite("HEVC and Dolby Vision: the codec string from hvcC, the SPS and dvcC; CODECS and SUPPLEMENTAL-CODECS against it")
struct HEVCTests {
    static func bytes(_ hex: String) -> [UInt8] { SPSTests.bytes(hex) }

    /// An init section's sample entry and configuration boxes, as x265 (Main, level 2) writes them through FFmpeg: the
    /// `hvcC` payload's first 13 bytes.
    static func initSection(entry: String, extra: [UInt8] = []) -> [UInt8] {
        [0, 0, 0, 0] + Array(entry.utf8) + [UInt8](repeating: 0, count: 78) + [0, 0, 0, 0] + Array("hvcC".utf8)
            + bytes("0101600000009000000000003c") + [UInt8](repeating: 0, count: 16) + extra
    }

    @Test("hvcC: Main profile level 2, progressive — hvc1.1.6.L60.90; hev1 named by its sample entry")
    func hvcC() {
        #expect(HEVC.codecString(initSection: Self.initSection(entry: "hvc1")) == "hvc1.1.6.L60.90")
        #expect(HEVC.codecString(initSection: Self.initSection(entry: "hev1")) == "hev1.1.6.L60.90")
        #expect(HEVC.codecString(initSection: Array("moov".utf8)) == nil)
    }

    @Test("the first SPS of an MPEG-TS stream, emulation prevention bytes taken out (H.265 §7.4.2)")
    func sps() {
        // x265's VPS and SPS as FFmpeg muxed them into MPEG-TS: 00 00 03 inside the constraint flags.
        let annexB = Self.bytes(
            "0000000140010c01ffff01600000030090000003000003003c9598090000000142010101600000030090000003000003003ca00a080b9f796566924caf01680800000300"
        )
        #expect(HEVC.codecString(annexB: annexB) == "hvc1.1.6.L60.90")
    }

    @Test("profile space, high tier, Main 10 and constraint bytes: Annex E.3's examples")
    func annexE() {
        // Main 10 (2), compatibility flag 2 only (reversed: 4), high tier, level 5.1 (153), constraints B0.
        #expect(HEVC.codecString(fourcc: "hvc1", profileTierLevel: Self.bytes("2220000000b0000000000099")) == "hvc1.2.4.H153.B0")
        // Profile space 1 (A), Rext (4), flag 4 (reversed: 0x10), constraints 98 00 20.
        #expect(HEVC.codecString(fourcc: "hev1", profileTierLevel: Self.bytes("44080000009800200000005d")) == "hev1.A4.10.L93.98.0.20")
    }

    @Test("Dolby Vision: its own sample entry in CODECS (dvh1.05.06); in a plain HEVC entry, a supplemental codec (dvh1.08.07)")
    func dolbyVision() {
        // dvcC: version 1.0, profile 5 level 6 (0x0A 0x35: 0000101 0|00110 101), then profile 8 level 7.
        let p5 = DolbyVision.codecs(
            initSection: Self.initSection(entry: "dvh1", extra: [0, 0, 0, 0] + Array("dvcC".utf8) + [1, 0, 0x0A, 0x35]))
        #expect(p5?.codec == "dvh1.05.06" && p5?.supplemental == nil)
        let p8 = DolbyVision.codecs(
            initSection: Self.initSection(entry: "hvc1", extra: [0, 0, 0, 0] + Array("dvvC".utf8) + [1, 0, 0x10, 0x3D]))
        #expect(p8?.codec == nil && p8?.supplemental == "dvh1.08.07")
        #expect(DolbyVision.codecs(initSection: Self.initSection(entry: "hvc1")) == nil)
    }

    static func variant(codecs: String, video: String, entry: String?, supplemental: String? = nil, listed: String? = nil) -> [String] {
        var v = VariantMeasure(index: 0, name: "720p", measured: 4, listed: 4, peak: 1_000_000, average: 900_000)
        (v.bandwidth, v.averageBandwidth, v.codecs, v.videoCodec, v.sampleEntry) = (1_000_000, 900_000, codecs, video, entry)
        (v.supplementalVideoCodec, v.supplementalCodecs) = (supplemental, listed)
        return MediaChecks.findings(v).map(\.rule)
    }

    @Test("CODECS against HEVC media: the level, the family and in fMP4 the sample entry type must agree; Dolby Vision too")
    func checks() {
        #expect(Self.variant(codecs: "hvc1.1.6.L60.90,mp4a.40.2", video: "hvc1.1.6.L60.90", entry: "hvc1").isEmpty)
        #expect(Self.variant(codecs: "hvc1.1.6.L93.90,mp4a.40.2", video: "hvc1.1.6.L60.90", entry: "hvc1") == ["codecs-video"])
        // A sample entry hev1 declared as hvc1: a player that plays only hvc1 (Safari) is told it can.
        #expect(Self.variant(codecs: "hvc1.1.6.L60.90", video: "hev1.1.6.L60.90", entry: "hev1") == ["codecs-video"])
        // MPEG-TS says nothing of a sample entry: either type is right.
        #expect(Self.variant(codecs: "hev1.1.6.L60.90", video: "hvc1.1.6.L60.90", entry: nil).isEmpty)
        // H.264 declared over HEVC media.
        #expect(Self.variant(codecs: "avc1.64001f,mp4a.40.2", video: "hvc1.1.6.L60.90", entry: "hvc1") == ["codecs-video"])
        #expect(Self.variant(codecs: "dvh1.05.06", video: "dvh1.05.06", entry: "dvh1").isEmpty)
        #expect(Self.variant(codecs: "hvc1.2.4.L153.B0", video: "dvh1.05.06", entry: "dvh1") == ["codecs-video"])
        let p8 = (video: "hvc1.2.4.L153.B0", supplemental: "dvh1.08.07")
        #expect(
            Self.variant(
                codecs: "hvc1.2.4.L153.B0", video: p8.video, entry: "hvc1", supplemental: p8.supplemental, listed: "dvh1.08.07/db1p"
            )
            .isEmpty)
        #expect(
            Self.variant(codecs: "hvc1.2.4.L153.B0", video: p8.video, entry: "hvc1", supplemental: p8.supplemental) == [
                "supplemental-codecs"
            ])
    }
}
