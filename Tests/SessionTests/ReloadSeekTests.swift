import HLS
import Testing

@testable import Session

/// A reload+seek decided look by look without a player: what the cache holds, whether the seek ran, the clock.
@Suite("Reload+seek: seek once the fresh cache holds the target, let go once it shows, what ends it")
struct ReloadSeekTests {
    /// Live fixture: 2 s segments, segment 0 at PDT 00:00:00, first PTS 10, 12, 14, 16 for segments 0–3, playing.
    static func session() -> SessionState { EffectsTests.session(live: true) }

    static func look(_ ranges: [(Double, Double)], end: Double? = nil, seeking: Bool? = nil, time: Double? = nil) -> SeekLook {
        SeekLook(seekable: ranges.map { TimeRange(start: $0.0, end: $0.1) }, cacheEnd: end, seeking: seeking, time: time)
    }

    @Test("a switch's raw target: wait while the cache lacks it or the new file loads, seek once it holds it, let go once shown")
    func raw() throws {
        var s = Self.session()
        let step = ReloadSeek(to: .raw(15), rung: 1, wasPaused: false, deadline: 6)
        #expect(s.reduce(.reloadSeek(step, Self.look([])), at: 1).effects == [.lookAgain(step)])
        var loading = s
        _ = loading.reduce(.event(.streamGiven(startMSN: 2)), at: 1)
        #expect(
            loading.reduce(.reloadSeek(step, Self.look([(10, 20)])), at: 1.1).effects == [.lookAgain(step)],
            "the cache read before the new file starts may be the old file's")
        var sought = step
        sought.soughtTo = 15
        #expect(
            s.reduce(.reloadSeek(step, Self.look([(10, 20)])), at: 1.2).effects == [
                .seekAbsolute(to: 15, aimBack: nil), .lookAgain(sought),
            ])
        #expect(
            s.reduce(.reloadSeek(sought, Self.look([(10, 20)], seeking: true, time: 15)), at: 1.3).effects == [.lookAgain(sought)],
            "time-pos reads the target at once while the seek still runs")
        let done = s.reduce(.reloadSeek(sought, Self.look([(10, 20)], seeking: false, time: 15.04)), at: 1.4)
        #expect(done.effects == [.letGo(play: true)] && done.said.isEmpty)
        var paused = sought
        paused.wasPaused = true
        #expect(s.reduce(.reloadSeek(paused, Self.look([], seeking: false, time: 14.95)), at: 1.4).effects == [.letGo(play: false)])
    }

    @Test("the deadline: a seek that never came lets the player go from its segment start, and says so")
    func deadline() {
        var s = Self.session()
        let step = ReloadSeek(to: .raw(15), rung: 1, wasPaused: false, deadline: 6)
        let plan = s.reduce(.reloadSeek(step, Self.look([])), at: 6)
        #expect(plan.effects == [.letGo(play: true)])
        #expect(plan.said.map(\.text) == ["reload+seek: the new rung's cache never held the playhead; playing from its segment start"])
    }

    @Test("sync's moment runs on with the clock; its GOP not yet seekable (the next segment held back): the demuxer is aimed before it")
    func moment() throws {
        var s = Self.session()
        let date = try #require(DateTime(iso8601: "2026-01-01T00:00:07.000Z"))
        // Read at t = 1 in segment 3 (raw 16 at its start); segment 4 (PDT 00:00:08) is held back.
        var step = ReloadSeek(to: .moment(date, msn: 3, readAt: 1), rung: 0, wasPaused: false, heldFrom: 4, deadline: 6)
        step.readaheadBefore = 3
        // At t = 1.5 the moment is 00:00:07.5: raw 17.5, past the seekable range's end (16.9) but within the packets (17.6).
        let plan = s.reduce(.reloadSeek(step, Self.look([(10, 16.9)], end: 17.6)), at: 1.5)
        guard case .seekAbsolute(let to, let back?) = plan.effects.first else {
            Issue.record("an aimed seek: \(plan.effects)")
            return
        }
        #expect(abs(to - 17.5) < 1e-9 && abs(back - 0.7) < 1e-9)
        // Without segments held back the range's end is the cache's: nothing to aim at, wait.
        var free = step
        free.heldFrom = nil
        #expect(s.reduce(.reloadSeek(free, Self.look([(10, 16.9)], end: 17.6)), at: 1.5).effects == [.lookAgain(free)])
        // Done: the held segments go to the player and the read-ahead is what it was.
        var sought = step
        sought.soughtTo = 17.5
        #expect(
            s.reduce(.reloadSeek(sought, Self.look([(10, 18)], seeking: false, time: 17.5)), at: 1.6).effects == [
                .releaseSegments, .readahead(3), .letGo(play: true),
            ])
    }

    @Test("sync's moment ran past the held discontinuity before the cache held it: released, reloaded at the discontinuity")
    func pastBreak() throws {
        var s = Self.session()
        let date = try #require(DateTime(iso8601: "2026-01-01T00:00:07.000Z"))
        var step = ReloadSeek(to: .moment(date, msn: 3, readAt: 1), rung: 0, wasPaused: false, heldFrom: 4, deadline: 6)
        step.readaheadBefore = 3
        let plan = s.reduce(.reloadSeek(step, Self.look([])), at: 2.2)
        #expect(plan.effects == [.releaseSegments, .readahead(3), .reloadAtMoment(rung: 0, msn: 4, moment: date, readAt: 1)])
        #expect(plan.said.first?.text == "sync: the moment ran on past the discontinuity at msn 4 during the reload; reloading there")
    }

    @Test("a low-latency start that never landed starts again at the edge once; a second miss plays on; a landing resets the count")
    func edgeStart() {
        var s = Self.session()
        let step = ReloadSeek(to: .position(msn: 3, offset: 0.5, readAt: 1), rung: 0, wasPaused: false, deadline: 6)
        let first = s.reduce(.reloadSeek(step, Self.look([])), at: 6)
        #expect(first.effects == [.reloadAtEdge(rung: 0)] && first.said.first?.level == .warn)
        let second = s.reduce(.reloadSeek(step, Self.look([])), at: 7)
        #expect(second.effects == [.letGo(play: true)])
        #expect(
            second.said.map(\.text) == [
                "low latency: the player's cache never held the start behind the edge; playing from its segment start"
            ])
        // Position 0.5 s into segment 3, read at t = 1: at t = 1.5 it is raw 17.
        let seek = s.reduce(.reloadSeek(step, Self.look([(10, 20)])), at: 1.5)
        #expect(seek.effects.first == .seekAbsolute(to: 17, aimBack: nil))
        var landed = step
        landed.soughtTo = 17
        _ = s.reduce(.reloadSeek(landed, Self.look([(10, 20)], seeking: false, time: 17)), at: 1.6)
        #expect(s.reduce(.reloadSeek(step, Self.look([])), at: 6).effects == [.reloadAtEdge(rung: 0)], "the count starts again")
    }
}
