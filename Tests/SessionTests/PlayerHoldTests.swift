import HLS
import Testing

@testable import Session
import SessionFixtures

/// hlstui's own pauses and the read-ahead in effect (`PlayerHold`): what sync's hold and wait and a reload+seek give the
/// player, and what the Session then knows of it.
@Suite struct PlayerHoldTests {
    @Test("a sync hold reads on as far as the hold and the usual read-ahead, and ends by playing and reading as usual again")
    func hold() throws {
        var s = Fixture.session(live: true)
        let plan = s.reduce(.hold(seconds: 2.5), at: 1)
        #expect(plan.effects == [.readahead(12.5), .pause(true), .after(ms: 2500, .endHold)])
        #expect(s.playerHold.readahead == 12.5 && !s.playerHold.held, "a sync hold is timed, not a hold a sample waits out")
        let end = s.reduce(.timer(.endHold, SeekLook()), at: 3.5)
        #expect(end.effects == [.pause(false), .readahead(10)] && s.playerHold.readahead == 10)
        // The user paused meanwhile: the hold's end leaves the pause as it is.
        var paused = Fixture.session(live: true)
        _ = paused.reduce(.hold(seconds: 1), at: 1)
        _ = paused.reduce(.action(.togglePause, PlayerLook(time: 10)), at: 1.5)
        #expect(paused.userPaused)
        #expect(paused.reduce(.timer(.endHold, SeekLook()), at: 2).effects == [.readahead(10)])
    }

    @Test("sync's wait: paused with the longest hold's read-ahead, played on once over; each change once; a user's pause kept")
    func syncWait() throws {
        var s = Fixture.session(live: true)
        #expect(s.reduce(.syncWait(true), at: 1).effects == [.readahead(130), .pause(true)] && s.playerHold.syncWaiting)
        #expect(s.reduce(.syncWait(true), at: 1.1).effects.isEmpty, "already waiting")
        #expect(s.reduce(.syncWait(false), at: 2).effects == [.readahead(10), .pause(false)] && !s.playerHold.syncWaiting)
        #expect(s.reduce(.syncWait(false), at: 2.1).effects.isEmpty)
        var paused = Fixture.session(live: true)
        _ = paused.reduce(.syncWait(true), at: 1)
        _ = paused.reduce(.action(.togglePause, PlayerLook(time: 10)), at: 1.5)
        #expect(paused.reduce(.syncWait(false), at: 2).effects == [.readahead(10)], "the user's pause stands")
    }

    @Test("a reload+seek holds the player (not when the user paused) until it lets go; a failure releases the hold")
    func held() throws {
        var s = EffectsTests.session(spliced: false)
        let plan = s.reduce(.action(.pin(1), PlayerLook(time: 14.5)), at: 5)
        #expect(plan.effects.reloadSeek?.to == .raw(14.5) && plan.effects.contains(.holdStill(byHLSTUI: true)))
        #expect(s.playerHold.held)
        let step = try #require(plan.effects.reloadSeek)
        let done = s.reduce(.timer(.reloadSeek(step), SeekLook()), at: 5 + ReloadSeek.limit)
        #expect(done.effects.last == .letGo(play: true) && !s.playerHold.held)
        var failing = EffectsTests.session(spliced: false)
        _ = failing.reduce(.action(.pin(1), PlayerLook(time: 14.5)), at: 5)
        _ = failing.reduce(.event(.failed(message: "the player refused the stream", cause: "mpv")), at: 5.1)
        #expect(!failing.playerHold.held)
        // Paused by the user: the player stays so, and a pause read is still the user's.
        var paused = EffectsTests.session(spliced: false)
        _ = paused.reduce(.action(.togglePause, PlayerLook(time: 14.5)), at: 4)
        let reload = paused.reduce(.action(.pin(1), PlayerLook(time: 14.5)), at: 5)
        #expect(reload.effects.contains(.holdStill(byHLSTUI: false)) && reload.effects.reloadSeek?.wasPaused == true)
        #expect(!paused.playerHold.held)
    }

    @Test("a move whose later segments are held back reads as far as the held segment before its seek, past a short read-ahead")
    func readsToHeldSegment() throws {
        var s = EffectsTests.session(live: true)
        s.playerHold = PlayerHold(usual: 3)
        let start = try #require(s.programDateTime(StreamPoint(msn: 2, offset: 0)))
        // Segments of 2 s: the held segment (4) starts 4 s after the reload's (2); one second more is read.
        let plan = s.planReload(rung: 0, msn: 2, to: .moment(start, msn: 2, readAt: 1), holdFrom: 4, at: 1)
        #expect(plan == reloadSteps(rung: 0, msn: 2, to: .moment(start, msn: 2, readAt: 1), at: 1, holdFrom: 4, readahead: (3, 5)))
        // The usual read-ahead reaches that far: not lengthened.
        let usual = EffectsTests.session(live: true)
        #expect(
            usual.planReload(rung: 0, msn: 2, to: .moment(start, msn: 2, readAt: 1), holdFrom: 4, at: 1).reloadSeek?.readaheadBefore == nil)
    }
}
