import HLS
import HLSReport
import MediaFormats
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

    /// Ten 2 s segments whose video starts where the last ended, audio 50 ms before it; `change` edits them.
    static func segments(_ change: (inout [SegmentMeasure]) -> Void = { _ in }) -> VariantMeasure {
        var v = measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000)
        var s = (0..<10).map { i in
            SegmentMeasure(
                msn: 100 + i, duration: 2, discontinuity: false, videoStart: 10 + Double(i) * 2, audioStart: 9.95 + Double(i) * 2,
                independent: true)
        }
        change(&s)
        v.segments = s
        return v
    }

    @Test(
        "the media's own segments: clean; one that opens without an independent frame; a timestamp jump with no discontinuity; audio moved against video"
    )
    func segmentRules() {
        #expect(Self.rules(Self.segments()).isEmpty)
        // Not independent: a must only where the playlist says EXT-X-INDEPENDENT-SEGMENTS; its later video start is no offset.
        var dependent = Self.segments {
            $0[3].independent = false; $0[3].videoStart! += 0.13
        }
        #expect(Self.rules(dependent) == ["segment-not-independent should"])
        dependent.independentSegments = true
        let d = MediaChecks.findings(dependent)
        #expect(d.map(\.rule) == ["segment-not-independent"] && d[0].must && d[0].section == "RFC 8216bis §4.4.2.1")
        #expect(d[0].message.hasPrefix("360p: 1 segment (msn 103) opens with a frame that needs an earlier one"), "\(d[0].message)")
        // A jump of 10 s at msn 105: a must (§4.4.4.3) — unless a discontinuity is there, or the segments are not neighbours.
        let jumped = { (discontinuity: Bool) in
            Self.segments { s in
                for i in 5..<10 { s[i].videoStart! += 10; s[i].audioStart! += 10 }
                s[5].discontinuity = discontinuity
            }
        }
        let j = MediaChecks.findings(jumped(false))
        #expect(j.map(\.rule) == ["timestamps-continuous"] && j[0].must && j[0].section == "RFC 8216bis §4.4.4.3")
        #expect(
            j[0].message
                == "360p: msn 105 starts 12.000 s after msn 104, whose EXTINF is 2.000 s, with no EXT-X-DISCONTINUITY between them (a timestamp jump, or a wrong EXTINF)"
        )
        #expect(Self.rules(jumped(true)).isEmpty)
        var sampled = jumped(false)
        sampled.segments.remove(at: 4)
        #expect(Self.rules(sampled).isEmpty, "msn 103 and 105 are not neighbours")
        // Within a tenth of the EXTINF (or 0.25 s): EXTINF rounding, not a jump.
        #expect(Self.rules(Self.segments { for i in 5..<10 { $0[i].videoStart! += 0.2; $0[i].audioStart! += 0.2 } }).isEmpty)
        // MPEG-TS timestamps wrap at 2^33 / 90 kHz: the next segment just past the wrap continues.
        let wrap = 8_589_934_592.0 / 90_000
        #expect(Self.rules(Self.segments { for i in 5..<10 { $0[i].videoStart! -= wrap; $0[i].audioStart! -= wrap } }).isEmpty)
        // Audio 300 ms later from msn 106, after a discontinuity (an ad muxed off): said once, where it moved.
        let shifted = Self.segments { s in
            for i in 6..<10 { s[i].audioStart! += 0.3 }
            s[6].discontinuity = true
        }
        let a = MediaChecks.findings(shifted)
        #expect(a.map(\.rule) == ["av-offset"] && !a[0].must)
        #expect(
            a[0].message
                == "360p: at msn 106 (after a discontinuity) audio starts 250 ms after video, in msn 105 50 ms before video: 300 ms out of step",
            "\(a[0].message)")
        // The variant's line says where audio starts in most segments (the median).
        let late = Self.segments { for i in 0..<10 { $0[i].audioStart! += 0.3 } }
        #expect(Self.rules(late).isEmpty && MediaChecks.text([late]).contains { $0.contains("audio 250 ms after video") })
        #expect(MediaChecks.text([Self.segments()]).contains { $0.contains("audio 50 ms before video") })
    }

    @Test("RESOLUTION, FRAME-RATE and VIDEO-RANGE against the SPS: each named as declared against measured")
    func picture() throws {
        var v = Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000)
        // 640x360 Main@3.0, 25 fps, sample aspect 4:3 (x264's SPS, SPSTests).
        v.sps = SPS(nal: SPSTests.bytes(SPSTests.sd))
        (v.resolution, v.frameRate, v.videoRange) = (Resolution(width: 640, height: 360), 25, nil)
        #expect(Self.rules(v).isEmpty, "as coded")
        v.resolution = Resolution(width: 853, height: 360)
        #expect(Self.rules(v).isEmpty, "as shown, the sample aspect applied")
        v.resolution = Resolution(width: 1280, height: 720)
        v.frameRate = 24
        let wrong = MediaChecks.findings(v)
        #expect(wrong.map { "\($0.rule) \($0.must ? "must" : "should")" } == ["resolution should", "frame-rate must"])
        #expect(wrong[0].message == "360p: RESOLUTION says 1280x720, the media's SPS 640x360 (shown 853x360)")
        #expect(wrong[1].message == "360p: FRAME-RATE says at most 24.000, the media's SPS times 25.000 frames a second")
        v.frameRate = 30
        v.resolution = nil
        #expect(Self.rules(v).isEmpty, "FRAME-RATE is a maximum")
        // 1280x720 with transfer 16 (PQ): VIDEO-RANGE must say PQ.
        var pq = Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000)
        pq.sps = SPS(nal: SPSTests.bytes(SPSTests.pq))
        #expect(Self.rules(pq) == ["video-range must"])
        #expect(
            MediaChecks.findings(pq)[0].message == "360p: VIDEO-RANGE is absent (SDR), the media's transfer characteristics (16) are PQ")
        pq.videoRange = "PQ"
        #expect(Self.rules(pq).isEmpty)
        // No VUI colour description (x264's default): the range is not checked.
        var hd = Self.measure(peak: 880_000, average: 820_000, bw: 881_000, avg: 824_000)
        hd.sps = SPS(nal: SPSTests.bytes(SPSTests.hd))
        hd.videoRange = "PQ"
        #expect(Self.rules(hd).isEmpty)
    }

    @Test("I-frame playlists: a range that does not open with an independent frame is a must fix, named by msn")
    func iframes() {
        #expect(IFrameChecks.findings(IFrameMeasure(name: "#0 144p", measured: 10, listed: 10), index: 4).isEmpty)
        let bad = IFrameChecks.findings(IFrameMeasure(name: "#0 144p", measured: 8, listed: 10, dependent: [1, 2, 3, 4, 5, 6]), index: 4)
        #expect(bad.map(\.rule) == ["iframe-not-independent"] && bad[0].must && bad[0].variant == 4)
        #expect(
            bad[0].message
                == "#0 144p: 6 of 8 I-frame ranges do not open with an independent frame (msn 1, 2, 3, 4, 5, …): each segment of an I-frame playlist is one I-frame"
        )
        #expect(
            MediaChecks.text([], iframes: [IFrameMeasure(name: "#0 144p", measured: 8, listed: 10, dependent: [3])]).contains(
                "  I-frames #0 144p  8 of 10 ranges, 1 not independent"))
    }

    @Test("variants aligned: a variant whose timestamps lie more than 0.1 s from the first's at the same msn, named once")
    func alignment() {
        func variant(_ index: Int, _ starts: [Double?], audioOnly: Bool = false) -> VariantMeasure {
            var v = VariantMeasure(index: index, name: "#\(index)", measured: starts.count, listed: starts.count, peak: 1, average: 1)
            v.segments = starts.enumerated().map { i, t in
                SegmentMeasure(
                    msn: 10 + i, duration: 2, discontinuity: false, videoStart: audioOnly ? nil : t, audioStart: t.map { $0 - 0.05 })
            }
            return v
        }
        let aligned = [variant(0, [20, 22, 24]), variant(1, [20.04, 22, 24]), variant(2, [21, 23], audioOnly: true)]
        #expect(MediaChecks.findings(aligned, subtitles: []).isEmpty, "a frame apart is aligned; audio-only held against audio-only")
        let off = MediaChecks.findings(
            [variant(0, [20, 22, 24]), variant(1, [nil, 22.5, 24.5]), variant(2, [20, 22, 24])], subtitles: [])
        #expect(off.map(\.rule) == ["variants-aligned"] && off[0].must && off[0].variant == 1)
        #expect(
            off[0].message
                == "#1: its timestamps lie 0.500 s after #0's at msn 11 (and 1 more of 3 read): matching content in variants must have matching timestamps"
        )
        #expect(off[0].section == "RFC 8216bis §6.2.4")
    }

    @Test("EXTINF against the video measured from its frames: more than 0.1 s and 5 % off is a should fix, named once")
    func extinf() {
        var v = VariantMeasure(index: 0, name: "144p", measured: 3, listed: 3, peak: 1, average: 1)
        v.segments = [(2.0, 2.0), (2.0, 1.96), (6.0, 5.8)].enumerated().map { i, p in
            var s = SegmentMeasure(msn: i, duration: p.0, discontinuity: false)
            s.videoDuration = p.1
            return s
        }
        #expect(MediaChecks.findings(v).isEmpty, "a frame off, or under 5 % of a long segment")
        v.segments[1].videoDuration = 1.5
        v.segments[2].videoDuration = 4
        let off = MediaChecks.findings(v)
        #expect(off.map(\.rule) == ["extinf-duration"] && !off[0].must && off[0].section == "RFC 8216bis §4.4.4.1")
        #expect(off[0].message == "144p: msn 1's EXTINF is 2.000 s, its video lasts 1.500 s; 1 more such")
    }

    @Test("an audio rendition against the variants' audio at the same msn: more than 0.1 s apart is a must fix, named once")
    func renditions() {
        func measure(_ index: Int, _ name: String, video: [Double?], audio: [Double?]) -> VariantMeasure {
            var v = VariantMeasure(index: index, name: name, measured: audio.count, listed: audio.count, peak: 1, average: 1)
            v.segments = zip(video, audio).enumerated().map { i, p in
                SegmentMeasure(msn: i, duration: 2, discontinuity: false, videoStart: p.0, audioStart: p.1)
            }
            return v
        }
        let variant = measure(0, "144p", video: [1.5, 3.5, 5.5], audio: [1.44, 3.44, 5.44])
        let aligned = measure(1, "audio de", video: [nil, nil, nil], audio: [1.4, 3.4, 5.4])
        #expect(MediaChecks.findings([variant], audio: [aligned], subtitles: []).isEmpty, "40 ms from the variant's own audio")
        let late = measure(1, "audio de", video: [nil, nil, nil], audio: [1.9, 3.9, 5.9])
        let found = MediaChecks.findings([variant], audio: [late], subtitles: [])
        #expect(found.map(\.rule) == ["rendition-aligned"] && found[0].must && found[0].variant == 1)
        #expect(
            found[0].message
                == "audio de: its timestamps lie 0.460 s after 144p's at msn 0 (and 2 more of 3 read): a rendition's content must have the variants' timestamps"
        )
        // A variant without audio of its own: against its video, with AAC's priming allowed for.
        let silent = measure(0, "144p", video: [1.5, 3.5, 5.5], audio: [nil, nil, nil])
        #expect(
            MediaChecks.findings([silent], audio: [measure(1, "a", video: [nil, nil, nil], audio: [1.39, 3.39, 5.39])], subtitles: [])
                .isEmpty)
    }
}
