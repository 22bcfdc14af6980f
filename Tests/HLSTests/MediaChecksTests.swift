import HLSReport
import Testing

/// `inspect --media`'s rules on what was measured (docs/VALIDATION.md): RFC 8216bis §4.4.6.2 and Apple's authoring rules.
@Suite("Media against the playlist: peak and average bit rate against BANDWIDTH and AVERAGE-BANDWIDTH, the codec against CODECS")
struct MediaChecksTests {
    static func measure(
        peak: Double, average: Double, bw: Int?, avg: Int?, codecs: String? = "avc1.4d401e,mp4a.40.2",
        video: String? = "avc1.4d401e", separate: Bool = false, measured: Int = 10
    ) -> VariantMeasure {
        var v = VariantMeasure(index: 2, name: "360p", measured: measured, listed: 10, peak: peak, average: average)
        (v.bandwidth, v.averageBandwidth, v.codecs, v.videoCodec, v.separateAudio, v.peakMSN) = (bw, avg, codecs, video, separate, 7)
        return v
    }

    static func rules(_ v: VariantMeasure) -> [String] {
        MediaChecks.findings(v).map { "\($0.rule) \($0.must ? "must" : "should")" }
    }

    @Test("declared as measured: nothing; under the peak or the average: must fix; over by more than 10 %: should fix")
    func bitRates() {
        #expect(Self.rules(Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000)).isEmpty)
        let under = MediaChecks.findings(Self.measure(peak: 880_000, average: 820_000, bw: 528_000, avg: 495_000))
        #expect(under.map(\.rule) == ["bandwidth-under-peak", "average-bandwidth"] && under.allSatisfy(\.must))
        #expect(
            under[0].message
                == "360p: BANDWIDTH 528k is under the measured peak segment bit rate 880k (msn 7); it MUST be at least the peak")
        #expect(under[0].section == "RFC 8216bis §4.4.6.2")
        #expect(
            Self.rules(Self.measure(peak: 580_000, average: 540_000, bw: 881_000, avg: 824_000))
                == ["bandwidth-over-peak should", "average-bandwidth should"])
        // Audio renditions of their own are not measured: more declared than the variant's bytes is not wrong then.
        #expect(Self.rules(Self.measure(peak: 580_000, average: 540_000, bw: 881_000, avg: 824_000, separate: true)).isEmpty)
        // A sample's average is an estimate: only its peak is held against BANDWIDTH.
        #expect(
            Self.rules(Self.measure(peak: 880_000, average: 820_000, bw: 528_000, avg: 495_000, measured: 3)) == [
                "bandwidth-under-peak must"
            ])
        #expect(
            Self.rules(Self.measure(peak: 2_000_000, average: 820_000, bw: 2_000_000, avg: 824_000)) == ["peak-over-twice-average should"])
    }

    @Test("CODECS against the SPS: another profile or level, or no video codec listed, is a must fix")
    func codecs() {
        let wrong = MediaChecks.findings(
            Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000, codecs: "avc1.42e01e,mp4a.40.2"))
        #expect(wrong.map(\.rule) == ["codecs-video"] && wrong[0].must)
        #expect(
            wrong[0].message == "360p: CODECS says avc1.42e01e, the media's SPS says avc1.4d401e (profile and level as the bytes give them)"
        )
        #expect(Self.rules(Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000, codecs: "AVC1.4D401E")).isEmpty, "case")
        #expect(
            Self.rules(Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000, codecs: "mp4a.40.2")) == [
                "codecs-missing-video must"
            ])
        let lines = MediaChecks.text([Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000)])
        #expect(
            lines == [
                "media measured (10 segments):",
                "  #2 360p  peak 880k / BANDWIDTH 881k  average 820k / AVERAGE-BANDWIDTH 824k  video avc1.4d401e  (10 of 10 segments)",
                "media: no problems found",
            ], "\(lines)")
    }
}
