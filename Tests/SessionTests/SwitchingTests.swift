import HLS
import LoaderEvents
import Testing
@testable import Session
import SessionFixtures

@Suite("Variant control: mechanisms, ABR, GAP crossing (pure)")
struct SwitchingTests {
    let ladder = Fixture.ladder

    @Test("TS rungs with the same codec families and groups splice; a different codec or container reloads")
    func compatibility() throws {
        let r = ladder.rungs
        #expect(SwitchPlanner.families(r[0].variant) == ["avc1", "mp4a"])
        #expect(SwitchPlanner.compatible(r[0], r[1]) && SwitchPlanner.compatible(r[0], r[3]))
        #expect(!SwitchPlanner.compatible(r[0], r[2])) // hev1 vs avc1
        let ts = try #require(Fixture.playlist(Fixture.media()).media)
        #expect(SwitchPlanner.isTS(ts))
        let fmp4 = try #require(
            Fixture.playlist("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:2,\ns0.m4s\n#EXT-X-ENDLIST\n").media)
        #expect(!SwitchPlanner.isTS(fmp4))
        let named = try #require(Fixture.playlist("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns0.m4s?x=1\n#EXT-X-ENDLIST\n").media)
        #expect(!SwitchPlanner.isTS(named))
    }

    @Test("the mechanism follows the container, the ladder, VOD or live, and the mode")
    func mechanisms() {
        typealias M = SwitchMechanism
        let cases: [(Bool, Bool, Bool, SwitchMode, M)] = [
            (true, true, false, .smooth, .splice), (true, true, false, .immediate, .spliceSeek),
            (true, true, true, .smooth, .splice), (true, true, true, .immediate, .spliceReload),
            (true, false, false, .immediate, .reloadSeek), (false, true, false, .immediate, .reloadSeek),
            (false, true, false, .smooth, .reloadBoundary), (false, true, true, .immediate, .reloadBoundary),
        ]
        for (spliced, compatible, live, mode, expected) in cases {
            #expect(
                SwitchPlanner.mechanism(spliced: spliced, compatible: compatible, live: live, mode: mode) == expected,
                "spliced \(spliced) compatible \(compatible) live \(live) \(mode)")
        }
    }

    @Test("GAP fill candidates: allowed, compatible, best first")
    func fill() {
        #expect(SwitchPlanner.fill(for: 0, ladder: ladder, allowed: [0, 1, 2, 3]) == [3, 0, 1])
        #expect(SwitchPlanner.fill(for: 0, ladder: ladder, allowed: Caps(maxHeight: 720).allowed(ladder)) == [0, 1])
    }

    func input(
        current: Int, estimate: Double?, buffer: Double? = 8, inFlight: (rung: Int, msn: Int, elapsed: Double)? = nil, since: Double? = 10
    ) -> AbrInput {
        AbrInput(
            ladder: ladder, allowed: [0, 1, 3], current: current, estimate: estimate, bufferAhead: buffer, segmentDuration: 2,
            inFlight: inFlight, sinceSwitch: since)
    }

    @Test("ABR: up when a higher rung fits 70 % of the throughput, with enough buffer and time since the last switch")
    func abrUp() throws {
        #expect(Abr.decide(input(current: 1, estimate: nil)) == nil)
        let up = try #require(Abr.decide(input(current: 1, estimate: 10_000_000)))
        #expect(up.rung == 3 && up.reason.contains("fits 1080p"))
        #expect(Abr.decide(input(current: 1, estimate: 10_000_000, buffer: 1)) == nil, "too little buffer to go up")
        #expect(Abr.decide(input(current: 1, estimate: 10_000_000, since: 1)) == nil, "too soon after a switch")
        #expect(Abr.decide(input(current: 1, estimate: 1_200_000))?.rung == 0)
    }

    @Test("ABR hysteresis: between the up and the stay thresholds nothing moves; below the stay threshold it goes down at once")
    func abrHysteresis() throws {
        // 800k rung: stays while 800k <= 0.95 × estimate, goes up only when 5M <= 0.7 × estimate.
        for bps in [900_000.0, 2_000_000, 7_000_000] { #expect(Abr.decide(input(current: 0, estimate: bps)) == nil, "\(bps)") }
        let down = try #require(Abr.decide(input(current: 0, estimate: 600_000, since: 0.1)))
        #expect(down.rung == 1 && down.reason.contains("needs more than"))
    }

    @Test("ABR emergency: a segment taking longer than the buffer can wait switches down before it ends")
    func abrEmergency() throws {
        let slow = (rung: 3, msn: 7, elapsed: 2.5)
        let d = try #require(Abr.decide(input(current: 3, estimate: 40_000_000, buffer: 2.0, inFlight: slow)))
        #expect(d.rung == 0 && d.reason.contains("segment 7") && d.reason.contains("2.5 s"))
        #expect(Abr.decide(input(current: 3, estimate: 40_000_000, buffer: 9, inFlight: slow)) == nil, "enough buffer to wait")
        #expect(Abr.decide(input(current: 3, estimate: 40_000_000, buffer: 2, inFlight: (3, 7, 0.3))) == nil, "not late yet")
    }

    @Test("a GAP no rung fills is crossed: from the segment before it, or from inside it")
    func gapCrossing() throws {
        var s = Fixture.session()
        // Segments 4-5 are GAP in rung 0's playlist; no other rung's playlist is known, and the stream is not spliced.
        let before = try #require(s.gapToCross(at: StreamPoint(msn: 3, offset: 1.5)))
        #expect(before == GapCrossing(first: 4, after: 6, duration: 4, startsIn: 0.5))
        #expect(s.gapToCross(at: StreamPoint(msn: 4, offset: 0.2))?.startsIn == 0)
        #expect(s.gapToCross(at: StreamPoint(msn: 1, offset: 0)) == nil)
        #expect(s.isUnfillableGap(4) && !s.isUnfillableGap(3))
        // Spliced, and rung 1 has media there: the Loader fills it, nothing to cross.
        s.switching.splice(true)
        var other = try #require(Fixture.playlist(Fixture.media()).media)
        for i in other.segments.indices { other.segments[i].gap = false }
        s.apply(
            .loader(
                .playlist(PlaylistEvent(url: "http://origin.test/v144/index.m3u8", rung: 1, rendition: nil, playlist: other, received: 1))),
            at: 1)
        #expect(s.gapToCross(at: StreamPoint(msn: 3, offset: 1.5)) == nil && !s.isUnfillableGap(4))
        // A cap that excludes rung 1 leaves only rungs without media there.
        _ = s.select(.capBitrate(200_000))
        #expect(!s.isUnfillableGap(4) || s.caps.allowed(s.ladder) == [1])
    }

    @Test("the end of a playlist stopped before a GAP run is not the end of the stream")
    func notEndedAtGap() {
        var s = Fixture.session()
        var p = PlayerSample()
        p.timePos = 17.9
        p.eof = true
        #expect(!s.apply(.sample(p), at: 1).contains(.ended))
        p.timePos = 10 + 19.9
        for i in 6..<10 { s.apply(.loader(.request(Fixture.request(i, pts: 10 + Double(i) * 2))), at: 2) }
        #expect(s.apply(.sample(p), at: 3).contains(.ended))
    }

    @Test("a boundary reload decided on live finds its boundary even when the new rung's window has moved past the playhead's segment")
    func boundaryAfterWindowMoved() throws {
        // Rung 0 plays segments 0–3 (first PTS 10…16); a switch to rung 2 is decided for the next boundary, and rung 2's
        // playlist, read a moment later on a loaded machine, already starts at msn 4.
        var s = Fixture.session(live: true)
        s.apply(.switched(VariantSwitch(t: 1, from: 0, to: 2, reason: .manual, mechanism: .reloadBoundary, atMSN: 4)), at: 1)
        let moved = try #require(Fixture.playlist(Fixture.media(live: true, sequence: 4)).media)
        s.apply(
            .loader(
                .playlist(PlaylistEvent(url: "http://origin.test/v720/index.m3u8", rung: 2, rendition: nil, playlist: moved, received: 1.1))
            ), at: 1.1)
        #expect(s.loadedRung == 2 && s.media[2]?.mediaSequence == 4)
        // The player stopped a frame past the end of segment 3, the last it was given; the poll came late.
        let w = try #require(s.watchPoint(at: 18.033))
        #expect(w.point.msn == 3 && abs(w.point.offset - 2.033) < 1e-9, "the point stays in the last fetched segment: \(w.point)")
        #expect(w.segmentDuration == 2.0, "its duration comes from the playlist that lists it (rung 0's), so the boundary is seen")
        #expect(try #require(w.segmentDuration) - w.point.offset <= 0.035, "at or past the boundary: the reload fires")
        // Mid-segment, nothing is due yet.
        let mid = try #require(s.watchPoint(at: 15.0))
        #expect(mid.point == StreamPoint(msn: 2, offset: 1.0) && mid.segmentDuration == 2.0)
    }

    @Test("at the end of what the player was given, the playhead stays in the last segment it fetched, not the next one the window lists")
    func withinFetched() {
        let s = Fixture.session() // segments 0–3 fetched (first PTS 10, 12, 14, 16); the window lists 0–9
        #expect(s.withinFetched(StreamPoint(msn: 4, offset: 0.033)) == StreamPoint(msn: 3, offset: 2.033))
        #expect(s.withinFetched(StreamPoint(msn: 2, offset: 1)) == StreamPoint(msn: 2, offset: 1), "a fetched segment stays")
        #expect(
            s.withinFetched(StreamPoint(msn: 6, offset: 0.1)) == StreamPoint(msn: 6, offset: 0.1),
            "not right after a fetched one: left alone")
    }

    @Test("switch mode: `m` toggles, scripts set it; a switch logs its reason, mechanism and first segment")
    func switchMode() throws {
        var s = Fixture.session()
        #expect(s.manualSwitch == .immediate)
        #expect(s.select(.toggleSwitchMode) == nil && s.manualSwitch == .smooth)
        #expect(try parseCommandScript("1 switch immediate\n2 switch").map(\.action) == [.switchMode(.immediate), .toggleSwitchMode])
        s.apply(
            .switched(
                VariantSwitch(t: 5, from: 0, to: 3, reason: .abr, mechanism: .splice, atMSN: 9, detail: "measured 9Mbps fits 1080p 5M")),
            at: 5)
        #expect(s.loadedRung == 3)
        #expect(s.log.last?.text == "360p 800k → 1080p 5M (abr, splice from msn 9): measured 9Mbps fits 1080p 5M")
    }

    @Test("mpv's log: repeats folded, known-harmless lines demoted or dropped, the rest untouched")
    func mpvLog() {
        var f = MPVLogFilter()
        #expect(
            f.take(level: "error", prefix: "lavf", text: "Edit lists are not correctly supported (FFmpeg issue).", spliced: false).map(
                \.level) == [LogLevel.info])
        #expect(
            f.take(level: "error", prefix: "lavf", text: "Edit lists are not correctly supported (FFmpeg issue).", spliced: false).isEmpty)
        let next = f.take(level: "warn", prefix: "ffmpeg/demuxer", text: "mpegts: Packet corrupt (stream = 0, dts = 1).", spliced: false)
        #expect(next.count == 2 && next[0].text.contains("repeated 1 more times") && next[1].level == .warn)
        #expect(
            f.take(level: "warn", prefix: "ffmpeg/demuxer", text: "hls: Packet corrupt (stream = 2, dts = 1).", spliced: true).first?.level
                == .info)
        #expect(f.take(level: "error", prefix: "ao/null", text: "illegal state: start() while paused", spliced: false).isEmpty)
        #expect(
            f.take(level: "error", prefix: "cplayer", text: "Audio/Video desynchronisation detected!", spliced: true).first?.level == .error
        )
        // SAMPLE-AES: FFmpeg probes the samples before decrypting them; its decoders' complaints are said once, as info, until playback starts.
        let first = f.take(level: "error", prefix: "ffmpeg/audio", text: "aac: invalid band type", spliced: false, probingSampleAES: true)
        #expect(first.last?.level == .info && first.last?.text.contains("before it decrypts them") == true)
        #expect(
            f.take(
                level: "warn", prefix: "ffmpeg/demuxer", text: "mpegts: Could not find codec parameters for stream 0", spliced: false,
                probingSampleAES: true
            ).isEmpty)
        #expect(
            f.take(
                level: "error", prefix: "ffmpeg/video", text: "h264: error while decoding MB 1 0", spliced: false, probingSampleAES: true
            ).isEmpty)
        #expect(f.probeComplaints == 3)
        #expect(
            f.take(level: "error", prefix: "ffmpeg/audio", text: "aac: invalid band type", spliced: false, probingSampleAES: false).last?
                .level == .error)
    }

    @Test("decoder reference chatter (after a seek, a splice, a reset) is the message log's, at info; corruption stays an error")
    func decoderChatter() {
        var f = MPVLogFilter()
        for text in ["h264: co located POCs unavailable", "h264: mmco: unref short failure", "hevc: Could not find ref with POC 12"] {
            #expect(f.take(level: "error", prefix: "ffmpeg/video", text: text, spliced: false).last?.level == .info, "\(text)")
        }
        #expect(
            f.take(level: "error", prefix: "ffmpeg/video", text: "h264: error while decoding MB 3 4", spliced: false).last?.level == .error)
        // Only the video decoder's: the same words from elsewhere keep their level.
        #expect(f.take(level: "error", prefix: "cplayer", text: "co located POCs unavailable", spliced: false).last?.level == .error)
    }

    @Test("FFmpeg's lines while several players share the process may be any pane's: said so, and never this pane's problem")
    func anyPlayersLine() {
        var f = MPVLogFilter()
        let line = f.take(
            level: "error", prefix: "ffmpeg/video", text: "h264: error while decoding MB 3 4", spliced: false, anyPlayer: true)
        #expect(line.count == 1 && line[0].level == .info && line[0].text.contains("from one of the panes"), "\(line)")
        // Alone in the process, the same line is this pane's.
        #expect(
            f.take(level: "error", prefix: "ffmpeg/video", text: "h264: error while decoding MB 5 6", spliced: false).last?.level == .error)
    }

    @Test("throughput: averages weighted by download time, so a few slow downloads outweigh many fast ones (hls.js EWMA)")
    func throughput() throws {
        for (x, v) in [(0.0, 1.0), (1, 2), (-1, 0.5), (0.5, 1.4142135623730951), (-3.25, 0.10511205190671431), (10, 1024)] {
            #expect(abs(pow2(x) - v) < 1e-12 * max(1, v), "2^\(x)")
        }
        var e = ThroughputEstimator()
        #expect(e.estimate == nil)
        e.add(bytes: 1000, seconds: 0.01)
        #expect(e.estimate == nil, "too small to measure")
        e.add(bytes: 100_000, seconds: 0.004)
        #expect(abs(try #require(e.estimate) - 200_000_000) < 1)
        for _ in 0..<20 { e.add(bytes: 100_000, seconds: 0.004) }
        for _ in 0..<4 { e.add(bytes: 90_000, seconds: 2) }
        let est = try #require(e.estimate)
        #expect(est < 1_200_000 && est > 360_000, "after 4 slow downloads: \(est)")
        for _ in 0..<2 { e.add(bytes: 90_000, seconds: 2) }
        #expect(try #require(e.estimate) < 883_000, "after 6 the 360p rung no longer fits")
        #expect(try #require(e.fast) < e.slow!)
    }
}
