import HLS
import HLSReport
import Testing

/// `inspect --media`'s subtitle rules as pure functions of what was read (docs/SUBTITLES.md).
@Suite("inspect --media: the WebVTT rules and the subtitles' coverage")
struct SubtitleChecksTests {
    static func segment(_ msn: Int, header: Bool = true, map: Bool = true, cueAt: Double? = nil, measured: Bool = true)
        -> SubtitleSegmentMeasure
    {
        let start = cueAt ?? (10 + Double(msn) * 2)
        return SubtitleSegmentMeasure(
            msn: msn, position: Double(msn) * 2, duration: 2, hasHeader: header, hasMap: map, cues: [start...(start + 2)],
            mediaTime: measured ? 10 + Double(msn) * 2 : nil)
    }

    static func measure(_ segments: [SubtitleSegmentMeasure], duration: Double = 20, media: Double? = 20, live: Bool = false)
        -> SubtitleMeasure
    {
        SubtitleMeasure(
            name: "English [en]", segments: segments, listed: 10, duration: duration, mediaDuration: media, targetDuration: 2, live: live)
    }

    @Test("a clean rendition: no finding")
    func clean() {
        #expect(SubtitleChecks.findings(Self.measure((0..<10).map { Self.segment($0) }), index: 4).isEmpty)
    }

    @Test("each rule once, with its first segment and how many: no WEBVTT, no map, cues off the media, too short")
    func rules() {
        let segs =
            [Self.segment(0, header: false), Self.segment(1, map: false), Self.segment(2, header: false)]
            + [Self.segment(3, cueAt: 26), Self.segment(4, cueAt: 28), Self.segment(5, measured: false)]
        let f = SubtitleChecks.findings(Self.measure(segs, duration: 12), index: 4)
        #expect(f.map(\.rule) == ["webvtt-header", "webvtt-timestamp-map", "webvtt-off-media", "subtitles-duration"])
        #expect(f[0].must && f[0].message == "English [en]: segment 0 does not start with WEBVTT (2 of 6 segments)")
        #expect(!f[1].must && f[1].section == "RFC 8216bis §3.1.4")
        #expect(f[2].message.contains("segment 3's cues lie 10.0 s after") && f[2].message.contains("(2 of 5 segments)"), "\(f[2].message)")
        #expect(f[3].message == "English [en]: the subtitles cover 12.0 s of 20.0 s of media")
        #expect(f.allSatisfy { $0.variant == 4 })
    }

    @Test("IMSC1 cues off the media: imsc-off-media (§3.1.5), no WebVTT rule")
    func imsc() {
        var seg = Self.segment(2, cueAt: 24)
        seg.imsc = true
        let f = SubtitleChecks.findings(Self.measure([seg], duration: 20), index: 0)
        #expect(f.map(\.rule) == ["imsc-off-media"] && f.first?.section == "RFC 8216bis §3.1.5", "\(f)")
    }

    @Test("a cue that began in the segment before, repeated here, is in place; a live window's length is not compared")
    func spanning() {
        var s = Self.segment(3)
        s.cues = [15...16.5] // began in segment 2 (14–16), still showing as segment 3 (16–18) starts
        #expect(SubtitleChecks.findings(Self.measure([s], duration: 2, live: true), index: 0).isEmpty)
    }
}
