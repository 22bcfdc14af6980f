import HLS
import LoaderEvents
import Testing
@testable import Session
import SessionFixtures

@Suite("Session state: the media clock, stalls, GAP, failures and the command script")
struct SessionStateTests {
    @Test("raw time-pos maps to segment, playlist position and PDT through the first PTS of each segment")
    func mediaClock() throws {
        var s = Fixture.session()
        var p = PlayerSample()
        p.timePos = 13.5
        s.apply(.sample(p), at: 1)
        #expect(s.playhead == StreamPoint(msn: 1, offset: 1.5))
        #expect(s.position == 3.5)
        #expect(s.playheadPDT?.iso8601 == "2026-01-01T00:00:03.500Z")
        #expect(s.windowDuration == 20)
        #expect(s.liveLatency == nil)
        #expect(s.playingRung == 0)
        // Past the last segment with a known PTS, the playlist's durations carry the position on.
        p.timePos = 19.25
        s.apply(.sample(p), at: 2)
        #expect(s.playhead == StreamPoint(msn: 4, offset: 1.25))
        // Buffered ranges are converted from time-pos to playlist seconds.
        p.seekableRanges = [TimeRange(start: 10, end: 18)]
        s.apply(.sample(p), at: 3)
        #expect(s.bufferedRanges == [TimeRange(start: 0, end: 8)])
    }

    @Test("a live loop that restarts timestamps does not confuse the clock: only segments near the window count")
    func liveWrap() {
        var clock = MediaClock()
        clock.firstPTS = [100: 10.5, 160: 10.0, 161: 12.0]
        let m = Fixture.playlist(Fixture.media(live: true, sequence: 158)).media!
        let p = clock.locate(10.7, in: m)
        #expect(p?.msn == 160 && abs((p?.offset ?? 9) - 0.7) < 1e-9, "msn 100 carries a closer PTS but left the window long ago")
        #expect(clock.locate(9.9, in: m) == StreamPoint(msn: 160, offset: 0), "just before the earliest segment clamps to it")
        #expect(clock.precedes(9.6, StreamPoint(msn: 160, offset: 0)), "audio 0.4 s before the segment: clamped, no moment yet")
        #expect(!clock.precedes(9.97, StreamPoint(msn: 160, offset: 0)) && !clock.precedes(10.7, StreamPoint(msn: 160, offset: 0.7)))
        #expect(clock.locate(2, in: m) == nil)
    }

    @Test("a window that lists the same timestamps twice: the playhead is found where the player went on from, not in the newest")
    func repeatedTimestamps() {
        // A 30 s window of a camera that loops every 24 s (12 segments of 2 s, first PTS 1.5 … 23.5): segments 100 and 112 both
        // start at 15.5, with a timestamp reset at 105 (listed as a discontinuity) between them.
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n"
        for i in 0..<15 { text += (i == 5 ? "#EXT-X-DISCONTINUITY\n" : "") + "#EXTINF:2.0,\ns\(100 + i).ts\n" }
        let m = Fixture.playlist(text).media!
        var clock = MediaClock()
        for i in 0..<15 { clock.firstPTS[100 + i] = 1.5 + Double((i + 7) % 12) * 2 }
        #expect(clock.firstPTS[100] == 15.5 && clock.firstPTS[112] == 15.5 && clock.firstPTS[105] == 1.5)
        #expect(clock.locate(15.6, in: m)?.msn == 112, "no anchor: of equal timestamps the newest")
        // Reloaded at 100: the player plays 100 on.
        clock.anchor = 100
        #expect(clock.locate(15.6, in: m)?.msn == 100)
        clock.follow(17.6, in: m)
        #expect(clock.anchor == 101 && clock.locate(17.6, in: m)?.msn == 101, "not 113, which starts at 17.5 too")
        // Still before the reset: the end of 104 (23.5 + 2) is not taken for the reset's far side.
        clock.follow(25.4, in: m)
        let end = clock.locate(25.4, in: m)
        #expect(end?.msn == 104 && abs((end?.offset ?? 0) - 1.9) < 1e-9)
        // Across the reset: 1.6 lies in 105, the first segment of the new timeline after the anchor.
        clock.follow(1.6, in: m)
        #expect(clock.anchor == 105 && clock.locate(1.6, in: m)?.msn == 105)
        // And on along the new timeline, to the second 15.5 of the window.
        for x in stride(from: 3.6, through: 15.6, by: 2) { clock.follow(x, in: m) }
        #expect(clock.locate(15.6, in: m)?.msn == 112)
        // A held player behind the window: its segment (104) is no longer listed, so its length is not known; it is taken as
        // the target duration, and 25.4 is still that segment, not one on the far side of the reset.
        var later = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:105\n"
        for i in 5..<15 { later += "#EXTINF:2.0,\ns\(100 + i).ts\n" }
        let moved = Fixture.playlist(later).media!
        #expect(moved.mediaSequence == 105 && !moved.lists(104))
        var behind = clock
        behind.anchor = 104
        #expect(behind.locate(25.4, in: moved)?.msn == 104)
        // A stream just given from 100 whose first segment is not measured yet: the anchor stays until it is.
        clock.anchor = 100
        clock.firstPTS[100] = nil
        clock.follow(15.6, in: m)
        #expect(clock.anchor == 100)
    }

    @Test("while the player loads a new stream the playhead stays where the old one showed it, whatever its stale time-pos reads")
    func playheadWhileLoading() throws {
        var s = Fixture.session(live: true)
        var p = PlayerSample()
        p.timePos = 15
        s.apply(.sample(p), at: 0.3)
        let before = try #require(s.playheadPDT)
        #expect(s.playhead?.msn == 2)
        // A reload from msn 4, whose timestamps restart (a loop): the old player's time-pos (15) still reads until it starts.
        s.apply(.loader(.request(Fixture.request(4, pts: 0.5, start: 0.4))), at: 0.4)
        s.apply(.streamGiven(startMSN: 4, from: (time: 15, wall: DateTime(seconds: 1000))), at: 0.5)
        p.timePos = 15.05
        s.apply(.sample(p), at: 0.6)
        #expect(s.playerLoading && s.playhead?.msn == 2 && s.playheadPDT == before, "\(String(describing: s.playhead))")
        s.apply(.playbackStarted, at: 0.7)
        p.timePos = 0.6
        s.apply(.sample(p), at: 0.8)
        #expect(s.playhead?.msn == 4 && abs((s.playhead?.offset ?? 0) - 0.1) < 1e-9, "\(String(describing: s.playhead))")
    }

    @Test("live: latency behind the live edge")
    func liveLatency() throws {
        var s = Fixture.session(live: true)
        var p = PlayerSample()
        p.timePos = 15
        s.apply(.sample(p), at: 0.3)
        #expect(abs((s.liveLatency ?? 0) - 15.2) < 1e-9, "window 20 s, playhead 5 s into it, the playlist read 0.2 s ago")
        // The edge moves on after the playlist showed it: its age counts, up to 1.5 target durations (then the playlist is stuck).
        p.timePos = 16
        s.apply(.sample(p), at: 1.3)
        #expect(abs((s.liveLatency ?? 0) - 15.2) < 1e-9, "one second later: playhead and edge both moved on")
        s.apply(.sample(p), at: 10.3)
        #expect(abs((s.liveLatency ?? 0) - 17) < 1e-9, "paused 9 s on a playlist that stopped growing: 14 s + 3 s at most")
        // A refresh that shows a newer segment resets the age.
        s.apply(
            .loader(
                .playlist(
                    PlaylistEvent(
                        url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil,
                        playlist: Fixture.playlist(Fixture.media(live: true, sequence: 1)).media!, received: 10.4))), at: 10.4)
        #expect(s.edgeSeen[0]?.msn == 10 && s.edgeSeen[0]?.at == 10.4)
    }

    @Test("live: a playlist hlstui read itself moves the edge (by PDT), not the window the player plays")
    func liveEdge() throws {
        var s = Fixture.session(live: true)
        var p = PlayerSample()
        p.timePos = 15
        s.apply(.sample(p), at: 0.3)
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:5\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:10.000Z\n"
        for i in 5..<15 { text += "#EXTINF:2.0,\nseg\(i).ts\n" }
        s.apply(.liveEdge(rung: 0, playlist: Fixture.playlist(text).media!), at: 0.3)
        #expect(s.media[0]?.mediaSequence == 0 && s.edgeSeen[0]?.msn == 14)
        #expect(abs((s.liveLatency ?? 0) - 25) < 1e-9, "the edge ends at 00:00:30, the playhead is at 00:00:05")
    }

    @Test("a stall is counted only after playback started, and timed from the sample that saw it to the one that ended it")
    func stalls() {
        var s = SessionState(url: "u")
        var p = PlayerSample()
        p.pausedForCache = true
        #expect(s.apply(.sample(p), at: 0.5).isEmpty, "initial buffering is not a stall")
        s.apply(.playbackStarted, at: 1)
        p.pausedForCache = false
        s.apply(.sample(p), at: 1.2)
        p.pausedForCache = true
        #expect(s.apply(.sample(p), at: 2) == [.stallStarted(2)])
        #expect(s.state == .buffering)
        #expect(s.apply(.sample(p), at: 2.25).isEmpty)
        p.pausedForCache = false
        #expect(s.apply(.sample(p), at: 3.5) == [.stallEnded(Stall(start: 2, end: 3.5))])
        #expect(s.stalls.count == 1 && s.stalledSeconds == 1.5)
        #expect(s.state == .playing)
    }

    @Test("a reload that takes over a second is a stall from the moment it began; a switch's hold is buffering, never a pause")
    func reloadStall() {
        var s = SessionState(url: "u")
        var p = PlayerSample()
        s.apply(.playbackStarted, at: 1)
        s.apply(.sample(p), at: 1.5)
        p.loading = true
        #expect(s.apply(.sample(p), at: 2).isEmpty && s.state == .buffering, "a reload freezes the picture: waiting")
        #expect(s.apply(.sample(p), at: 2.6).isEmpty, "a short reload is not a stall")
        #expect(s.apply(.sample(p), at: 3.1) == [.stallStarted(2)])
        p.loading = false
        #expect(s.apply(.sample(p), at: 4) == [.stallEnded(Stall(start: 2, end: 4))])
        #expect(s.state == .playing)
        // hlstui pauses the player while it moves it inside a new rung: the user did not pause.
        p.paused = true
        p.held = true
        s.apply(.sample(p), at: 5)
        #expect(s.state == .buffering)
        p.held = false
        s.apply(.sample(p), at: 5.4)
        #expect(s.state == .paused, "once let go, a pause is the user's")
    }

    @Test("a skip at a discontinuity that has left every playlist (a player behind the live window) is still put down to it")
    func skipAtDiscontinuityBehindWindow() {
        var s = Fixture.session()
        s.media = [:]
        #expect(s.skipCause(at: 10, over: 279...280) == nil, "the player alone")
        s.seen[280] = SegmentFacts(duration: 2, pdt: nil, discontinuity: true)
        #expect(s.skipCause(at: 10, over: 279...280)?.hasPrefix("a discontinuity at msn 280: the player reset its playback") == true)
    }

    @Test(
        "a forward jump past content never shown is a skip with its cause; playing, a pause, a reload's wait, an asked seek and a GAP crossing are not"
    )
    func skips() throws {
        var s = Fixture.session() // msn 0–3 at first PTS 10, 12, 14, 16; msn 4–5 GAP
        var p = PlayerSample()
        p.coreIdle = false
        func at(_ pos: Double, wall: Double, _ t: Double) -> [SessionFact] {
            p.timePos = pos
            p.wall = DateTime(seconds: 1_000 + wall)
            return s.apply(.sample(p), at: t)
        }
        #expect(at(10.0, wall: 0, 1).isEmpty)
        #expect(at(10.25, wall: 0.25, 1.25).isEmpty, "playing moves the playhead by the time elapsed")
        p.paused = true
        #expect(at(10.25, wall: 2, 3).isEmpty)
        p.paused = false
        #expect(at(10.5, wall: 2.25, 3.25).isEmpty, "resumed between two samples: playing covers it")
        s.apply(.switched(VariantSwitch(t: 3.3, from: 0, to: 0, reason: .manual, mechanism: .spliceSeek)), at: 3.3)
        let f = at(12.05, wall: 2.5, 3.5)
        guard case .skipped(let k)? = f.first else { Issue.record("no skip: \(f)"); return }
        #expect(abs(k.seconds - 1.3) < 1e-6 && k.from.msn == 0 && k.to.msn == 1 && abs(k.to.offset - 0.05) < 1e-6, "\(k)")
        #expect(k.cause.hasPrefix("switch to 360p") && k.cause.hasSuffix("by splice+seek"), "\(k.cause)")
        #expect(s.log.last?.text.hasPrefix("skipped 1.30 s of content: msn 0") == true)
        // The player racing through what follows the jump is the same skip.
        #expect(at(12.5, wall: 2.75, 3.75).isEmpty)
        #expect(s.skipCount == 1 && abs(s.skips[0].seconds - 1.5) < 1e-6)
        // A seek somebody asked for is not a skip (planning one starts the check afresh).
        s.skipWatch.restart()
        #expect(at(15.0, wall: 3.0, 4).isEmpty)
        // A reload's wait moves the clock, not the playhead: a jump when it ends is still measured against one sample's time.
        p.loading = true
        #expect(at(15.0, wall: 6.0, 7).isEmpty)
        p.loading = false
        let g = at(17.5, wall: 6.25, 7.25)
        guard case .skipped(let j)? = g.first else { Issue.record("no skip after the reload: \(g)"); return }
        #expect(abs(j.seconds - 2.25) < 1e-6 && s.skipCount == 2)
        // Held by hlstui at a fresh rung's segment start, then moved back to where it was: no skip.
        p.held = true
        p.paused = true
        #expect(at(16.0, wall: 6.5, 7.5).isEmpty)
        p.held = false
        p.paused = false
        #expect(at(17.8, wall: 6.75, 7.75).isEmpty && s.skipCount == 2, "back where it was, plus the time played")
        // While mpv restarts its playback (a timestamp reset) `time-pos` may read far ahead; once it plays it is back: no skip.
        p.coreIdle = true
        #expect(at(19.9, wall: 7.0, 8).isEmpty && at(19.9, wall: 7.25, 8.25).isEmpty)
        p.coreIdle = false
        #expect(at(18.0, wall: 7.5, 8.5).isEmpty && s.skipCount == 2, "restarted where it stood, then played on")
        // Crossing a GAP no rung fills moves past no content.
        var c = Fixture.session()
        c.apply(.loader(.request(Fixture.request(6, pts: 22, start: 0.3))), at: 0.3)
        p = PlayerSample()
        p.coreIdle = false
        p.timePos = 17.8
        p.wall = DateTime(seconds: 2_000)
        c.apply(.sample(p), at: 5)
        p.timePos = 22.1
        p.wall = DateTime(seconds: 2_000.25)
        #expect(c.apply(.sample(p), at: 5.25).isEmpty && c.skipCount == 0, "GAP msn 4–5 crossed")
        // A failed segment in the jump names the cause.
        var d = Fixture.session()
        d.apply(.loader(.request(Fixture.request(2, start: 0.4, error: "HTTP 404"))), at: 0.4)
        p.timePos = 13.0
        p.wall = DateTime(seconds: 3_000)
        d.apply(.sample(p), at: 6)
        p.timePos = 16.0
        p.wall = DateTime(seconds: 3_000.25)
        guard case .skipped(let e)? = d.apply(.sample(p), at: 6.25).first else { Issue.record("no skip past the failed segment"); return }
        #expect(e.cause == "msn 2 failed (HTTP 404) and the player went past it", "\(e.cause)")
    }

    @Test("a jump read after a sample without a position (mpv restarting at it) is measured from the point before: a skip")
    func skipAcrossAnUnreadPosition() throws {
        var s = Fixture.session() // msn 0–3 at first PTS 10, 12, 14, 16
        s.apply(.loader(.request(Fixture.request(2, start: 0.4, error: "HTTP 503 (after 2 retries)"))), at: 0.4)
        var p = PlayerSample()
        p.coreIdle = false
        func at(_ pos: Double?, wall: Double, _ t: Double) -> [SessionFact] {
            p.timePos = pos
            p.wall = DateTime(seconds: 5_000 + wall)
            return s.apply(.sample(p), at: t).filter { if case .skipped = $0 { true } else { false } }
        }
        p.pausedForCache = true
        #expect(at(10.5, wall: 0, 1).isEmpty && at(10.5, wall: 4, 5).isEmpty, "stalled in msn 0")
        // The stall ends; for one sample mpv has no position (it restarts at the jump).
        p.pausedForCache = false
        #expect(at(nil, wall: 4.25, 5.25).isEmpty)
        let f = at(14.5, wall: 4.5, 5.5)
        guard case .skipped(let k)? = f.first else { Issue.record("no skip: \(f)"); return }
        // 10.5 → 14.5 is 4 s of content in 0.5 s that may have played.
        #expect(k.from.msn == 0 && k.to.msn == 2 && abs(k.seconds - 3.5) < 1e-6, "\(k)")
        #expect(k.cause == "msn 2 failed (HTTP 503 (after 2 retries)) and the player went past it", "\(k.cause)")
        // Standing still without a position moves the clock: time it did not play never excuses a jump.
        p.paused = true
        #expect(at(14.75, wall: 4.75, 5.75).isEmpty && at(nil, wall: 10, 11).isEmpty)
        p.paused = false
        guard case .skipped(let j)? = at(16.75, wall: 10.25, 11.25).first else { Issue.record("no skip after the pause"); return }
        #expect(abs(j.seconds - 1.75) < 1e-6 && s.skipCount == 2, "\(j)")
    }

    @Test(
        "glass to glass is the sample's wall clock minus the PDT at the playhead, live only; a segment that left the window keeps its PDT")
    func glassToGlass() throws {
        var s = Fixture.session(live: true) // msn 0 at PDT 00:00:00, first PTS 10
        var p = PlayerSample()
        p.timePos = 11.5
        p.wall = DateTime(iso8601: "2026-01-01T00:00:09.000Z")
        s.apply(.sample(p), at: 1)
        #expect(s.pdtLatency == 7.5, "09.000 − 01.500")
        // The window moves on past the playhead's segment: its PDT and position still measure it.
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:2\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:04.000Z\n"
        for i in 2..<8 { text += "#EXTINF:2.0,\nseg\(i).ts\n" }
        s.apply(
            .loader(
                .playlist(
                    PlaylistEvent(
                        url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil, playlist: Fixture.playlist(text).media!,
                        received: 1.1))), at: 1.1)
        #expect(s.playheadPDT == DateTime(iso8601: "2026-01-01T00:00:01.500Z") && s.pdtLatency == 7.5)
        #expect(s.position == -2.5, "1.5 s into msn 0, two 2 s segments before the window's start")
        let vod = Fixture.session()
        var q = vod.sample
        q.timePos = 11.5
        q.wall = p.wall
        var v = vod
        v.apply(.sample(q), at: 1)
        #expect(v.playheadPDT != nil && v.pdtLatency == nil, "a VOD's PDT is when it was recorded")
    }

    @Test("glass to glass on the frame: shown when the audio clock reaches it (at the pane's speed, late by avsync); the audio's own")
    func glassToGlassOnTheFrame() throws {
        var s = Fixture.session(live: true) // msn 0 at PDT 00:00:00, first PTS 10
        var p = PlayerSample()
        p.timePos = 11.5
        p.wall = DateTime(iso8601: "2026-01-01T00:00:09.000Z")
        p.audioPts = 11.48
        p.audioWall = DateTime(iso8601: "2026-01-01T00:00:09.002Z")
        p.avsync = 0.001
        p.speed = 1.05
        s.apply(.sample(p), at: 1)
        // Shown 21 ms of media after the audio read, at 1.05: 20 ms of wall clock later.
        let shown = try #require(s.frameShownAt)
        #expect(abs(shown.seconds(since: DateTime(iso8601: "2026-01-01T00:00:09.022Z")!)) < 2e-6)
        #expect(abs(try #require(s.pdtLatency) - 7.522) < 2e-6, "09.022 − 01.500")
        #expect(abs(try #require(s.audioLatency) - 7.522) < 2e-6, "09.002 − 01.480")
        // Paused, the two positions further apart than steady playback has them, or read far apart: no frame-exact figure;
        // the read's wall clock then.
        var q = p
        q.audioPts = 11.4
        s.apply(.sample(q), at: 1.1)
        #expect(s.frameShownAt == nil && s.audioLatency == nil && s.pdtLatency == 7.5, "the frame 100 ms ahead of the audio")
        q = p
        q.audioWall = DateTime(iso8601: "2026-01-01T00:00:09.030Z")
        s.apply(.sample(q), at: 1.15)
        #expect(s.frameShownAt == nil && s.pdtLatency == 7.5, "audio-pts read 30 ms after time-pos")
        q = p
        q.paused = true
        s.apply(.sample(q), at: 1.2)
        #expect(s.frameShownAt == nil && s.pdtLatency == 7.5)
    }

    @Test("a GAP of the rung playing that no rung fills is reported once, with its PDT and duration, when its playlist arrives")
    func gap() {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        s.apply(.opened(url: s.url, playlist: Fixture.playlist(Fixture.multivariant), diagnostics: []), at: 0)
        s.apply(.switched(VariantSwitch(t: 0.1, from: nil, to: 0, reason: .start, mechanism: .load)), at: 0.1)
        let media = Fixture.playlist(Fixture.media()).media!
        let f = s.apply(
            .loader(
                .playlist(PlaylistEvent(url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil, playlist: media, received: 0.2))
            ), at: 0.2)
        let action = "no allowed rung has media: the player's playlist ends before it and hlstui reloads after it"
        #expect(
            f == [
                .gap(rung: 0, msn: 4, pdt: DateTime(iso8601: "2026-01-01T00:00:08Z"), duration: 2, action: action),
                .gap(rung: 0, msn: 5, pdt: DateTime(iso8601: "2026-01-01T00:00:10Z"), duration: 2, action: action),
            ])
        #expect(
            s.apply(
                .loader(
                    .playlist(
                        PlaylistEvent(url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil, playlist: media, received: 1))),
                at: 1
            ).isEmpty)
        // A GAP answered locally (a rendition's, say) is reported once too, and is not a problem.
        let r = s.apply(.loader(.request(Fixture.request(7, rung: 1, error: "GAP"))), at: 1.1)
        #expect(r.count == 1 && s.apply(.loader(.request(Fixture.request(7, rung: 1, error: "GAP"))), at: 1.2).isEmpty)
        #expect(s.problem == nil, "a GAP is expected, not a problem")
    }

    @Test("a failure names the first cause hlstui saw, with the playlist's file and line")
    func failureCause() {
        var s = SessionState(url: "http://o.test/a/master.m3u8")
        let d = Diagnostic(.error, line: 4, rule: "RFC 8216bis §4.4.2.3", "no query parameter token")
        s.apply(.opened(url: s.url, playlist: Fixture.playlist(Fixture.multivariant), diagnostics: [d]), at: 0)
        s.apply(.log(level: .error, text: "mpv cplayer: No video or audio streams selected."), at: 1)
        let f = s.apply(.fileEnded(reason: .error, error: "no audio or video data played"), at: 1)
        #expect(s.state == .error)
        #expect(s.error == "playback failed: a/master.m3u8 line 4: no query parameter token (RFC 8216bis §4.4.2.3)")
        #expect(f.count == 1)
        #expect(s.log.contains { $0.text.contains("mpv: no audio or video data played") })
    }

    @Test("origin failures become the cause, and throughput is measured from real downloads only")
    func requests() {
        var s = Fixture.session()
        #expect(s.throughput.estimate != nil)
        let before = s.throughput.samples
        s.apply(.loader(.request(Fixture.request(9, bytes: 100, error: "HTTP 500"))), at: 1)
        #expect(s.throughput.samples == before)
        #expect(s.cause == "segment 9 v360/seg9.ts: HTTP 500")
        var t = ThroughputEstimator()
        t.add(bytes: 1_000_000, seconds: 1)
        #expect(t.estimate == 8_000_000)
        t.add(bytes: 250_000, seconds: 1)
        #expect(t.estimate! < 8_000_000 && t.estimate! > 2_000_000, "the fast average falls first and the lower one counts")
    }

    @Test("command scripts: timed actions in order, errors with their line")
    func script() throws {
        let s = try parseCommandScript(
            "# a script\n3.0 cap 360\n\n5 pin 1\n8 auto\n10 seek 20\n1 seek +5\n12 bitrate 2M\n13 cap none\n14 quit\n")
        #expect(
            s.map(\.action) == [
                .seekRelative(5), .capHeight(360), .pin(1), .automatic, .seekTo(20), .capBitrate(2_000_000), .capHeight(nil), .quit,
            ])
        #expect(s[1].line == 2)
        #expect(throws: ScriptError.self) { try parseCommandScript("1 cap 360\nsoon pin 2\n") }
        do { _ = try parseCommandScript("1 cap 360\n2 jump\n") } catch {
            #expect(error.line == 2 && error.description.contains("\"2 jump\""))
        }
        #expect(Action.parseRate("800k") == 800_000 && Action.parseRate("1.5M") == 1_500_000 && Action.parseRate("x") == nil)
    }
}

@Suite("Live buffer")
struct LiveBufferTests {
    @Test(
        "ahead of the playhead the buffer ends where the segments delivered to the player end; before any is known, at mpv's cache-end; else unknown"
    )
    func cacheEnd() {
        var s = Fixture.session(live: true) // segments 0–3 (first PTS 10, 12, 14, 16) delivered
        var p = PlayerSample()
        p.timePos = 11
        p.cacheEnd = 17
        // mpv's seekable ranges stay frozen on live streams: a stale one says nothing about what lies ahead.
        p.seekableRanges = [TimeRange(start: 10, end: 11.5)]
        s.apply(.sample(p), at: 1)
        #expect(
            s.bufferedRanges == [TimeRange(start: 0, end: 8)] && s.bufferedAhead == 7, "delivered through segment 3: \(s.bufferedRanges)")
        // A reload: what the player held is gone; until a segment arrives, mpv's cache-end (same timestamp run) measures it.
        s.apply(.streamGiven(startMSN: nil), at: 2)
        p.seekableRanges = []
        s.apply(.sample(p), at: 2)
        #expect(s.bufferedRanges == [TimeRange(start: 1, end: 7)] && s.bufferedAhead == 6)
        // cache-end behind the playhead (a timestamp reset between them) and nothing delivered: not known, not 0.
        p.cacheEnd = 2
        s.apply(.sample(p), at: 3)
        #expect(s.bufferedAhead == nil && s.bufferedRanges.isEmpty)
    }
}

@Suite("Buffer across a timestamp reset")
struct ResetBufferTests {
    @Test("live: what the cache holds from before the window (it slid on) is buffered from the window's start, not dropped")
    func slidWindow() {
        var s = Fixture.session(live: true)
        let slid = Fixture.playlist(Fixture.media(live: true, sequence: 2)).media!
        s.apply(
            .loader(
                .playlist(PlaylistEvent(url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil, playlist: slid, received: 1))),
            at: 1)
        var p = PlayerSample()
        p.timePos = 15 // segment 2 (first PTS 14), the window's first
        p.seekableRanges = [TimeRange(start: 10, end: 17)] // from segment 0, which left the window
        s.apply(.sample(p), at: 1)
        #expect(s.position == 1)
        #expect(s.bufferedRanges.first?.start == 0, "\(s.bufferedRanges)")
    }

    @Test("a buffered range whose end lies past a live loop's timestamp reset ends where the newest fetched segment ends")
    func reset() {
        var s = Fixture.session(live: true)
        var p = PlayerSample()
        p.timePos = 13
        p.seekableRanges = [TimeRange(start: 12, end: 3)]
        s.apply(.sample(p), at: 1)
        #expect(s.bufferedRanges == [TimeRange(start: 2, end: 8)], "segments 0–3 were fetched: the buffer ends at 8 s")
    }

    @Test("a replayed command is cued by where its pane's playhead was, at its time plus a grace at the latest")
    func replayCue() {
        let c = ScriptedAction(at: 3, action: .pin(1), line: 1, playhead: StreamPoint(msn: 1, offset: 0.8))
        #expect(c.cue(t: 1, playhead: StreamPoint(msn: 1, offset: 0.8)) == .due, "the player is there: earlier than the clock says")
        #expect(c.cue(t: 2, playhead: StreamPoint(msn: 2, offset: 0)) == .due)
        #expect(c.cue(t: 3, playhead: StreamPoint(msn: 1, offset: 0.5)) == .notYet, "at its time, but the player is not there yet")
        #expect(c.cue(t: 3, playhead: nil) == .notYet, "not playing yet")
        #expect(c.cue(t: 3 + ScriptedAction.replayGrace, playhead: nil) == .late)
        let line = ScriptedAction(at: 3, action: .pin(1), line: 1)
        #expect(
            line.cue(t: 2.9, playhead: StreamPoint(msn: 9, offset: 0)) == .notYet && line.cue(t: 3, playhead: nil) == .due, "its time only")
        // Decided at the playhead recorded with it, in its own pane (the first pane's for a command to every pane).
        #expect(c.moment(for: 0) == StreamPoint(msn: 1, offset: 0.8) && c.moment(for: 1) == nil && line.moment(for: 0) == nil)
        let second = ScriptedAction(at: 3, action: .pin(1), line: 1, pane: 1, playhead: StreamPoint(msn: 4, offset: 0))
        #expect(second.moment(for: 1) == StreamPoint(msn: 4, offset: 0) && second.moment(for: 0) == nil)
    }

}

@Suite("A seek asked for during start-up")
struct PendingSeekTests {
    /// Opened, rung 0 given and its VOD playlist read; no frame shown yet.
    static func starting() -> SessionState {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        s.apply(.opened(url: s.url, playlist: Fixture.playlist(Fixture.multivariant), diagnostics: []), at: 0)
        s.apply(.switched(VariantSwitch(t: 0.1, from: nil, to: 0, reason: .start, mechanism: .load)), at: 0.1)
        s.apply(.streamGiven(startMSN: nil), at: 0.1)
        s.apply(
            .loader(
                .playlist(
                    PlaylistEvent(
                        url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil,
                        playlist: Fixture.playlist(Fixture.media(live: false)).media!, received: 0.1))), at: 0.1)
        for i in 0..<2 { s.apply(.loader(.request(Fixture.request(i, pts: 10 + Double(i) * 2, start: 0.1))), at: 0.2) }
        return s
    }

    @Test("seek 14 before the first frame is kept, said, and carried out at the first look that knows the playhead")
    func kept() {
        var s = Self.starting()
        #expect(s.planSeek(to: 14, at: 0.3).isEmpty)
        #expect(s.pendingSeek == 14 && s.log.last?.text == "seek to 14.0 s: once the player shows its first frame")
        #expect(s.watchStep(look: PlayerLook(time: nil), at: 0.4).effects.isEmpty, "the player still loading: kept")
        s.apply(.playbackStarted, at: 0.5)
        var p = PlayerSample()
        p.timePos = 10.1
        s.apply(.sample(p), at: 0.5)
        let plan = s.watchStep(look: PlayerLook(time: 10.1), at: 0.52)
        #expect(s.pendingSeek == nil)
        #expect(
            plan.effects.contains { e in
                switch e {
                case .seekDemuxer(let by, _), .seekInCache(let by): abs(by - 13.9) < 0.01
                case .load(_, let msn, _): msn == 7
                default: false
                }
            }, "\(plan.effects)")
    }

    @Test("a relative seek before the first frame counts from the start on VOD, and adds to one already kept")
    func relative() {
        var s = Self.starting()
        _ = s.planSeek(by: 5, at: 0.3)
        _ = s.planSeek(by: 5, at: 0.35)
        #expect(s.pendingSeek == 10)
    }
}

@Suite("A seek in the cache only where mpv's demuxer holds it")
struct CacheSeekTests {
    @Test("delivered but not in mpv's seekable ranges: not a cache seek (it would reach the demuxer); held there: a cache seek")
    func cacheSeek() {
        var s = Fixture.session() // segments 0–3 delivered (first PTS 10, 12, 14, 16)
        var p = PlayerSample()
        p.timePos = 10.2
        p.seekableRanges = [TimeRange(start: 10, end: 12.5)] // mpv has demuxed only into segment 1
        s.apply(.sample(p), at: 1)
        let isCacheSeek = { (e: [PaneEffect]) in e.contains { if case .seekInCache = $0 { true } else { false } } }
        #expect(s.bufferedRanges.contains { $0.start <= 5 && 5 <= $0.end }, "5 s is delivered: \(s.bufferedRanges)")
        #expect(!isCacheSeek(s.planSeek(to: 5, at: 1.1)), "delivered, not demuxed")
        p.seekableRanges = [TimeRange(start: 10, end: 18)]
        s.apply(.sample(p), at: 1.2)
        #expect(isCacheSeek(s.planSeek(to: 5, at: 1.3)), "in mpv's cache")
    }
}

@Suite("Timed metadata reached by the playhead")
struct TimedMetadataFollowTests {
    /// An item at raw time `time`, in the 2 s segment holding it (segment 0 starts at raw time 10; `loop`: that many loops
    /// of 10 segments later, the same times again).
    static func item(_ time: Double, id: UInt32, loop: Int = 0) -> TimedMetadataEvent {
        TimedMetadataEvent(
            rung: 0, msn: Int((time - 10) / 2) + 10 * loop, time: time, duration: 2, scheme: "https://aomedia.org/emsg/ID3", value: "",
            id: id, frames: [TimedMetadataEvent.Frame(id: "TXXX", text: "n=\(id)")], bytes: 20)
    }

    static func msn(_ time: Double, loop: Int = 0) -> Int { Int((time - 10) / 2) + 10 * loop }

    @Test("each item once, as the playhead passes it; the one at a start's first frame too; a jump skips what it jumps over")
    func follow() {
        var t = TimedMetadataTrack()
        for (i, time) in [10.0, 12, 14, 16, 30].enumerated() { t.add(Self.item(time, id: UInt32(i))) }
        t.add(Self.item(12, id: 1))
        #expect(t.items.count == 5, "the same item read twice is one")
        func look(_ time: Double, at: Double) -> [UInt32] { t.follow(time, msn: Self.msn(time), at: at).map(\.id) }
        #expect(look(10.1, at: 1) == [0], "the start: the item at its first frame")
        #expect(look(10.9, at: 1.8).isEmpty)
        #expect(look(12.0, at: 2.9) == [1])
        #expect(look(12.5, at: 3.4).isEmpty, "said once")
        #expect(look(14.3, at: 5.2) == [2], "a look 1.8 s late on a loaded machine: no jump, 14 is said")
        #expect(look(20.5, at: 5.3).isEmpty, "a seek over 16: not said")
        #expect(look(5, at: 5.4).isEmpty, "back: nothing")
        #expect(look(30.2, at: 5.5) == [4], "a jump that lands just after an item (within half a second): said")
        #expect(look(30.3, at: 5.6).isEmpty)
        #expect(t.reached == 4)
    }

    @Test("a stream whose timestamps start again each loop: the item of the loop playing is said, not the earlier loop's at the same time")
    func loop() {
        var t = TimedMetadataTrack()
        t.add(Self.item(12, id: 7))
        t.add(Self.item(12, id: 7, loop: 1))
        #expect(t.items.map(\.msn) == [1, 11], "the same time and id in another segment is another item")
        #expect(t.follow(11.9, msn: Self.msn(11.9, loop: 1), at: 1).isEmpty)
        #expect(t.follow(12.1, msn: Self.msn(12.1, loop: 1), at: 1.2).map(\.msn) == [11])
        #expect(t.reached == 1)
    }
}
