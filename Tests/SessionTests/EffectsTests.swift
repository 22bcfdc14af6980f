import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// The Session decides what the pane does: switches, seeks, watcher looks, recovery and sync as effects, without a player.
@Suite("The Session plans switches, seeks and the watcher's looks as effects")
struct EffectsTests {
    /// The fixture session (rung 0, segments 0–3 fetched with first PTS 10, 12, 14, 16), spliced when asked, live when asked.
    static func session(spliced: Bool = true, live: Bool = false) -> SessionState {
        var s = Fixture.session(live: live)
        s.apply(.spliceChosen(spliced), at: 0.3)
        return s
    }

    static func fill(_ s: SessionState, _ rung: Int) -> [Int] {
        SwitchPlanner.fill(for: rung, ladder: s.ladder, allowed: s.caps.allowed(s.ladder))
    }

    /// `planSwitch`, called outside the expectation macros (they cannot call a mutating method).
    func plan(
        _ s: inout SessionState, to rung: Int, reason: SwitchReason, detail: String? = nil, mode: SwitchMode, look: PlayerLook, at t: Double
    ) -> PanePlan? {
        s.planSwitch(to: rung, reason: reason, detail: detail, mode: mode, look: look, at: t)
    }

    @Test("spliced TS, immediate, VOD: route the rung and re-read the playhead's segment from it (splice+seek)")
    func spliceSeek() throws {
        var s = Self.session()
        let plan = try #require(plan(&s, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5))
        #expect(
            plan.effects == [
                .route(rung: 1, fill: Self.fill(s, 1)), .seekableCache(false), .after(ms: 10, .reread(rung: 1, msn: 2, attempt: 0)),
            ])
        #expect(plan.record?.mechanism == .spliceSeek && plan.record?.atMSN == 2 && plan.record?.from == 0 && plan.record?.to == 1)
        #expect(s.plannedReload == nil)
    }

    @Test("the player's first segment cannot be re-read exactly: reload there and seek in the fresh cache (reload+seek)")
    func firstSegment() throws {
        var s = Self.session()
        let plan = try #require(plan(&s, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: 10.5), at: 5))
        #expect(plan.effects == [.route(rung: 1, fill: Self.fill(s, 1))] + reloadSteps(rung: 1, msn: 0, to: .raw(10.5), at: 5))
        #expect(plan.record?.mechanism == .reloadSeek && plan.record?.atMSN == 0)
        #expect(plan.record?.detail?.contains("the player's first") == true)
    }

    @Test("smooth: only the route; where it takes effect is the Loader's answer, so the record leaves atMSN to the pane")
    func smooth() throws {
        var s = Self.session()
        let plan = try #require(plan(&s, to: 1, reason: .abr, detail: "why", mode: .smooth, look: PlayerLook(time: 14.5), at: 5))
        #expect(plan.effects == [.route(rung: 1, fill: Self.fill(s, 1))])
        #expect(plan.record?.mechanism == .splice && plan.record?.atMSN == nil && plan.record?.detail == "why")
    }

    @Test("live, immediate, spliced: route now, reload at the next boundary (splice+reload@boundary)")
    func liveSplice() throws {
        var s = Self.session(live: true)
        let plan = try #require(plan(&s, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5))
        #expect(plan.effects == [.route(rung: 1, fill: Self.fill(s, 1))])
        #expect(
            plan.record?.mechanism == .spliceReload && plan.record?.atMSN == 3 && s.plannedReload == PlannedReload(rung: 1, boundary: 3))
        // The boundary look carries the reload out, once.
        let look = s.watchStep(look: PlayerLook(time: 15.98), at: 6)
        // Played on: a player that reached the end of its playlist first is paused there (keep-open), and so is the new file.
        #expect(look.effects.contains(.load(rung: 1, startMSN: 3)) && look.effects.contains(.pause(false)))
        var paused = Self.session(live: true)
        _ = self.plan(&paused, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5)
        _ = paused.planTogglePause()
        let held = paused.watchStep(look: PlayerLook(time: 15.98), at: 6).effects
        #expect(held.contains(.load(rung: 1, startMSN: 3)) && !held.contains(.pause(false)), "a user's pause holds")
        #expect(!s.watchStep(look: PlayerLook(time: 15.99), at: 6.02).effects.contains(.load(rung: 1, startMSN: 3)))
    }

    @Test("live, immediate, spliced, LL-HLS given part by part: a splice, no reload (it would take effect at the same boundary)")
    func lowLatencySplice() throws {
        var s = Self.session(live: true)
        _ = s.apply(.lowLatencyStarted(holdBack: 1), at: 1)
        let plan = try #require(plan(&s, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5))
        #expect(plan.effects == [.route(rung: 1, fill: Self.fill(s, 1))])
        #expect(plan.record?.mechanism == .splice && s.plannedReload == nil)
        #expect(plan.record?.detail?.contains("low latency") == true)
        #expect(!s.watchStep(look: PlayerLook(time: 15.98), at: 6).effects.contains { if case .load = $0 { true } else { false } })
    }

    @Test("not spliced (fMP4) or rungs that differ: prewarm and reload+seek (VOD, immediate) or reload@boundary (smooth)")
    func reloads() throws {
        var fmp4 = Self.session(spliced: false)
        let now = try #require(plan(&fmp4, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5))
        #expect(
            now.effects == [.prewarm(rung: 1)] + reloadSteps(rung: 1, msn: 2, to: .raw(14.5), at: 5) && now.record?.mechanism == .reloadSeek
        )
        var hevc = Self.session()
        let later = try #require(plan(&hevc, to: 2, reason: .abr, mode: .smooth, look: PlayerLook(time: 14.5), at: 5))
        #expect(later.effects == [.prewarm(rung: 2)] && later.record?.mechanism == .reloadBoundary && later.record?.atMSN == 3)
        #expect(hevc.plannedReload == PlannedReload(rung: 2, boundary: 3))
        // The boundary passed between two looks (a loaded machine): carried out at the playhead, not a segment later.
        let late = hevc.watchStep(look: PlayerLook(time: 16.3), at: 6)
        #expect(late.effects == reloadSteps(rung: 2, msn: 3, to: .raw(16.3), at: 6) && hevc.plannedReload == nil)
        #expect(
            late.said.map(\.text) == [
                "the playhead passed the boundary of msn 3 before the watcher looked: reloaded at msn 3 and sought to the playhead"
            ])
    }

    @Test("while the player loads its position is unknown: reload+seek waits for the next boundary instead")
    func loading() throws {
        var s = Self.session(spliced: false)
        s.apply(.streamGiven(startMSN: 2, from: nil), at: 4)
        #expect(s.playerLoading)
        let plan = try #require(plan(&s, to: 1, reason: .manual, mode: .immediate, look: PlayerLook(time: nil), at: 5))
        #expect(plan.effects == [.prewarm(rung: 1)] && s.plannedReload == PlannedReload(rung: 1, boundary: nil))
        #expect(s.watchStep(look: PlayerLook(time: nil), at: 5.1).effects.isEmpty, "no look while loading")
        s.apply(.playbackStarted, at: 5.2)
        #expect(!s.playerLoading)
    }

    @Test("no switch to the rung already loaded, or to a rung the ladder does not have")
    func noSwitch() {
        var s = Self.session()
        #expect(plan(&s, to: 0, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5) == nil)
        #expect(plan(&s, to: 9, reason: .manual, mode: .immediate, look: PlayerLook(time: 14.5), at: 5) == nil)
        // A selection that keeps the loaded rung changes only the splice's GAP fill.
        let plan = s.planSelection(.pin(0), look: PlayerLook(time: 14.5), at: 5)
        #expect(plan.effects == [.route(rung: 0, fill: Self.fill(s, 0))] && plan.record == nil)
    }

    @Test("seek: in the buffer by the player; beyond it on TS by an aimed demuxer seek; across an unfillable GAP by a reload")
    func seeks() {
        // Not spliced: no rung fills the GAP run at msn 4–5.
        var s = Self.session(spliced: false)
        var p = PlayerSample()
        p.timePos = 14.5
        p.seekableRanges = [TimeRange(start: 10, end: 18)]
        s.apply(.sample(p), at: 1)
        // Position 4.5 s (msn 2); the cache holds 0–8 s.
        #expect(s.planSeek(by: 2, at: 2) == [.seekInCache(by: 2)])
        #expect(s.planSeek(by: -1.5, at: 2) == [.seekInCache(by: -1.5)])
        // To 19.5 s (msn 9), past the GAP run (msn 4–5) no rung fills: a reload at the target's segment.
        #expect(s.planSeek(by: 15, at: 2) == [.load(rung: 0, startMSN: 9)])
        #expect(s.log.last?.text == "seek: reloaded at msn 9")
        // Spliced, the other rungs fill the GAP run: position 0.5 s to 13.0 s, 1.0 s into msn 6, beyond the cache, is a demuxer
        // seek aimed half of msn 5 (1.0 s) earlier.
        var ts = Self.session()
        var q = PlayerSample()
        q.timePos = 10.5
        q.seekableRanges = [TimeRange(start: 10, end: 12)]
        ts.apply(.sample(q), at: 1)
        #expect(ts.planSeek(by: 12.5, at: 2) == [.seekDemuxer(by: 12.5, aimBack: 1.0 + 1.0)])
    }

    @Test("the watcher: a live playlist not read for a target duration and a half is refreshed; an unfillable GAP is crossed")
    func watcher() {
        var live = Self.session(live: true)
        #expect(live.watchStep(look: PlayerLook(time: 11), at: 2.0).effects.isEmpty, "read 1.9 s ago: not due")
        #expect(live.watchStep(look: PlayerLook(time: 11), at: 2.7).effects == [.refresh(rung: 0, purpose: .liveEdge)])
        #expect(live.watchStep(look: PlayerLook(time: 11), at: 2.8).effects.isEmpty, "once until the next is due")
        var s = Self.session(spliced: false)
        let plan = s.watchStep(look: PlayerLook(time: 17.2, atEnd: true, paused: true), at: 3)
        #expect(plan.effects == [.load(rung: 0, startMSN: 6), .pause(false)], "the end paused the player: it plays on after the run")
        guard case .gap(0, 4, _, 4, let action)? = plan.facts.first else {
            Issue.record("no gap fact: \(plan.facts)")
            return
        }
        #expect(action == "crossed: reloaded at msn 6")
        // mpv reports the end a moment before it pauses there: the reload plays on whatever the look saw.
        var early = Self.session(spliced: false)
        #expect(
            early.watchStep(look: PlayerLook(time: 17.2, atEnd: true, paused: false), at: 3).effects == [
                .load(rung: 0, startMSN: 6), .pause(false),
            ])
        // The user's pause is kept across the reload, and space plays again.
        var paused = Self.session(spliced: false)
        #expect(paused.planTogglePause() == [.pause(true)])
        #expect(paused.watchStep(look: PlayerLook(time: 17.2, atEnd: true, paused: true), at: 3).effects == [.load(rung: 0, startMSN: 6)])
        #expect(paused.planTogglePause() == [.pause(false)] && !paused.userPaused)
    }

    @Test("a player its origin stopped: retried once a second after a second of stall; reloaded where the playhead's moment is")
    func recovery() throws {
        var s = Self.session(live: true)
        var p = PlayerSample()
        p.timePos = 15.0
        p.eof = true
        p.coreIdle = true
        s.apply(.sample(p), at: 10)
        s.apply(.sample(p), at: 11.2)
        let stall = try #require(s.currentStall)
        #expect(s.eofSince != nil)
        let first = s.watchStep(look: PlayerLook(time: 15, atEnd: true), at: stall.start + 1.1)
        #expect(first.effects.contains(.refresh(rung: 0, purpose: .recovery)))
        #expect(
            !s.watchStep(look: PlayerLook(time: 15, atEnd: true), at: stall.start + 1.5).effects.contains(
                .refresh(rung: 0, purpose: .recovery)))
        let fresh = Fixture.playlist(Fixture.media(live: true)).media!
        let plan = s.recovered(rung: 0, with: fresh, at: stall.start + 1.6)
        #expect(plan.effects == [.load(rung: 0, startMSN: 2), .pause(false)], "msn 2 holds the playhead's moment")
        #expect(plan.said.first?.text.hasPrefix("the origin answers again after 1.6 s stalled") == true)
        // The stall ended meanwhile: nothing.
        var playing = Self.session(live: true)
        #expect(playing.recovered(rung: 0, with: fresh, at: 12).effects.isEmpty)
    }

    @Test("sync: realign reloads at the segment holding the other pane's moment and seeks to it; hold pauses for the offset")
    func sync() throws {
        var s = Self.session(live: true)
        let date = try #require(DateTime(iso8601: "2026-01-01T00:00:07.000Z"))
        #expect(s.planRealign(to: date, readAt: 0.9, at: 1) == reloadSteps(rung: 0, msn: 3, to: .moment(date, msn: 3, readAt: 0.9), at: 1))
        // The moment's raw time: known once the Loader has read the segment's first PTS.
        let seg = try #require(s.playingMedia?.segments.first { $0.mediaSequence == 3 })
        let into = date.seconds(since: try #require(seg.effectiveProgramDateTime))
        s.clock.firstPTS[3] = nil
        #expect(s.rawTime(of: date, from: 3) == nil)
        s.clock.firstPTS[3] = 50
        #expect(abs((s.rawTime(of: date, from: 3) ?? 0) - (50 + into)) < 1e-9 && into > 0)
        #expect(s.rawTime(of: date, from: 4) == nil, "a moment before the segment has no raw time from there")
        // A moment the target ran on to, in a later segment: that segment's own first PTS, once the Loader has read it.
        let next = try #require(s.playingMedia?.segments.first { $0.mediaSequence == 4 })
        let later = try #require(next.effectiveProgramDateTime).adding(seconds: 0.25)
        s.clock.firstPTS[2] = 40
        #expect(abs((s.rawTime(of: date, from: 2) ?? 0) - (50 + into)) < 1e-9, "read from the segment holding it, not segment 2")
        #expect(s.rawTime(of: later, from: 3) == nil, "segment 4 not read yet")
        s.clock.firstPTS[4] = 60.125
        #expect(abs((s.rawTime(of: later, from: 3) ?? 0) - 60.375) < 1e-9)
        let past = try #require(s.playingMedia?.segments.last?.effectiveProgramDateTime).adding(seconds: 60)
        #expect(s.rawTime(of: past, from: 3) == nil, "past what the playlist lists")
        // The window moves on before the cache holds the moment: segment 3 is no longer listed, what was said of it stands.
        var moved = try #require(s.playingMedia)
        moved.segments.removeFirst(4)
        moved.mediaSequence += 4
        var left = s
        left.media[0] = moved
        #expect(left.playingMedia?.lists(3) == false)
        #expect(abs((left.rawTime(of: date, from: 3) ?? 0) - (50 + into)) < 1e-9, "segment 3 left the window")
        #expect(abs((left.rawTime(of: later, from: 3) ?? 0) - 60.375) < 1e-9)
        // The move was asked for: the reload it gives is not measured as a skip from where the playhead was.
        s.apply(.streamGiven(startMSN: 3, from: (time: 14.5, wall: date)), at: 1.1)
        #expect(s.skipWatch.progress == nil && !s.skipWatch.moveAsked)
        // A reload nobody asked for is measured from where the playhead was.
        #expect(s.clock.firstPTS[2] == 40, "a player that decodes video keeps what was measured before the reload")
        s.apply(.streamGiven(startMSN: 3, from: (time: 51, wall: date)), at: 1.2)
        #expect(s.skipWatch.progress?.point == StreamPoint(msn: 3, offset: 1))
        // Timed by segments read along (no video decoded): a reload forgets what was measured before its first segment.
        var along = s
        along.forgetsBeforeReload = true
        along.apply(.streamGiven(startMSN: 3, from: (time: 51, wall: date)), at: 1.3)
        #expect(along.clock.firstPTS[2] == nil && along.clock.firstPTS[3] == 50)
        #expect(s.planRealign(to: try #require(DateTime(iso8601: "2025-12-31T23:00:00.000Z")), at: 1) == nil)
        // A discontinuity after the moment's segment: the seek is made while the Loader keeps the segments from it on back (mpv
        // would seek video across the reset); within a second before it, the reload starts there without a seek, so the pane
        // lands ahead and is held the rest.
        var d = Self.session(live: true)
        var dm = try #require(d.playingMedia, "the live session plays a media playlist")
        let n = try #require(dm.segments.firstIndex { $0.mediaSequence == 4 })
        dm.segments[n].discontinuity = true
        d.media[0] = dm
        let start3 = try #require(dm.segments.first { $0.mediaSequence == 3 }?.effectiveProgramDateTime)
        // The reload starts a segment earlier: FFmpeg reads into a stream's second segment before it starts playing.
        let mid = start3.adding(seconds: 0.5)
        #expect(d.planRealign(to: mid, at: 1) == reloadSteps(rung: 0, msn: 2, to: .moment(mid, msn: 2, readAt: 1), at: 1, holdFrom: 4))
        let two = start3.adding(seconds: -1)
        #expect(d.planRealign(to: two, at: 1) == reloadSteps(rung: 0, msn: 2, to: .moment(two, msn: 2, readAt: 1), at: 1, holdFrom: 4))
        #expect(d.planRealign(to: start3.adding(seconds: 1.25), at: 1) == [.load(rung: 0, startMSN: 4)])
        #expect(s.planHold(seconds: 1.25, at: 1) == [.readahead(11.25), .pause(true), .after(ms: 1250, .endHold)])
        #expect(s.log.last?.text == "sync: holding for 1.250 s")
    }
}
