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
        #expect(s.reduce(.timer(.reloadSeek(step), Self.look([])), at: 1).effects == [.after(ms: 5, .reloadSeek(step))])
        var loading = s
        _ = loading.reduce(.event(.streamGiven(startMSN: 2)), at: 1)
        #expect(
            loading.reduce(.timer(.reloadSeek(step), Self.look([(10, 20)])), at: 1.1).effects == [.after(ms: 5, .reloadSeek(step))],
            "the cache read before the new file starts may be the old file's")
        var sought = step
        sought.soughtTo = 15
        #expect(
            s.reduce(.timer(.reloadSeek(step), Self.look([(10, 20)])), at: 1.2).effects == [
                .seekAbsolute(to: 15, aimBack: nil), .after(ms: 5, .reloadSeek(sought)),
            ])
        #expect(
            s.reduce(.timer(.reloadSeek(sought), Self.look([(10, 20)], seeking: true, time: 15)), at: 1.3).effects == [
                .after(ms: 5, .reloadSeek(sought))
            ],
            "time-pos reads the target at once while the seek still runs")
        let done = s.reduce(.timer(.reloadSeek(sought), Self.look([(10, 20)], seeking: false, time: 15.04)), at: 1.4)
        #expect(done.effects == [.letGo(play: true)] && done.said.isEmpty)
        var paused = sought
        paused.wasPaused = true
        #expect(s.reduce(.timer(.reloadSeek(paused), Self.look([], seeking: false, time: 14.95)), at: 1.4).effects == [.letGo(play: false)])
    }

    @Test("the deadline: a seek that never came lets the player go from its segment start, and says so")
    func deadline() {
        var s = Self.session()
        let step = ReloadSeek(to: .raw(15), rung: 1, wasPaused: false, deadline: 6)
        let plan = s.reduce(.timer(.reloadSeek(step), Self.look([])), at: 6)
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
        let plan = s.reduce(.timer(.reloadSeek(step), Self.look([(10, 16.9)], end: 17.6)), at: 1.5)
        guard case .seekAbsolute(let to, let back?) = plan.effects.first else {
            Issue.record("an aimed seek: \(plan.effects)")
            return
        }
        #expect(abs(to - 17.5) < 1e-9 && abs(back - 0.7) < 1e-9)
        // Without segments held back the range's end is the cache's: nothing to aim at, wait.
        var free = step
        free.heldFrom = nil
        #expect(
            s.reduce(.timer(.reloadSeek(free), Self.look([(10, 16.9)], end: 17.6)), at: 1.5).effects == [.after(ms: 5, .reloadSeek(free))])
        // Done: the held segments go to the player and the read-ahead is what it was.
        var sought = step
        sought.soughtTo = 17.5
        #expect(
            s.reduce(.timer(.reloadSeek(sought), Self.look([(10, 18)], seeking: false, time: 17.5)), at: 1.6).effects == [
                .releaseSegments, .readahead(3), .letGo(play: true),
            ])
    }

    @Test("sync's moment ran past the held discontinuity before the cache held it: released, reloaded at the discontinuity")
    func pastBreak() throws {
        var s = Self.session()
        let date = try #require(DateTime(iso8601: "2026-01-01T00:00:07.000Z"))
        var step = ReloadSeek(to: .moment(date, msn: 3, readAt: 1), rung: 0, wasPaused: false, heldFrom: 4, deadline: 6)
        step.readaheadBefore = 3
        let plan = s.reduce(.timer(.reloadSeek(step), Self.look([])), at: 2.2)
        #expect(
            plan.effects == [.releaseSegments, .readahead(3)] + reloadSteps(rung: 0, msn: 4, to: .moment(date, msn: 4, readAt: 1), at: 2.2))
        #expect(plan.said.first?.text == "sync: the moment ran on past the discontinuity at msn 4 during the reload; reloading there")
    }

    @Test("a low-latency start that never landed starts again at the edge once; a second miss plays on; a landing resets the count")
    func edgeStart() {
        var s = Self.session()
        let step = ReloadSeek(to: .position(msn: 3, offset: 0.5, readAt: 1), rung: 0, wasPaused: false, deadline: 6)
        let first = s.reduce(.timer(.reloadSeek(step), Self.look([])), at: 6)
        #expect(first.effects == [.refresh(rung: 0, purpose: .edgeStart)] && first.said.first?.level == .warn)
        let second = s.reduce(.timer(.reloadSeek(step), Self.look([])), at: 7)
        #expect(second.effects == [.letGo(play: true)])
        #expect(
            second.said.map(\.text) == [
                "low latency: the player's cache never held the start behind the edge; playing from its segment start"
            ])
        // Position 0.5 s into segment 3, read at t = 1: at t = 1.5 it is raw 17.
        let seek = s.reduce(.timer(.reloadSeek(step), Self.look([(10, 20)])), at: 1.5)
        #expect(seek.effects.first == .seekAbsolute(to: 17, aimBack: nil))
        var landed = step
        landed.soughtTo = 17
        _ = s.reduce(.timer(.reloadSeek(landed), Self.look([(10, 20)], seeking: false, time: 17)), at: 1.6)
        #expect(
            s.reduce(.timer(.reloadSeek(step), Self.look([])), at: 6).effects == [.refresh(rung: 0, purpose: .edgeStart)],
            "the count starts again")
    }

    @Test(
        "a low-latency start in the newest GOP (PART-HOLD-BACK shorter than a GOP): the packets hold it, the GOP is not seekable yet; the demuxer is aimed before it"
    )
    func edgeStartInNewestGOP() {
        var s = Self.session()
        // 0.5 s into segment 3 read at t = 1 (raw 16.5): at t = 1.5, raw 17. The last key frame read is at 16.9 (its GOP not
        // marked seekable until the next key frame is published); the packets reach 17.6.
        let step = ReloadSeek(to: .position(msn: 3, offset: 0.5, readAt: 1), rung: 0, wasPaused: false, deadline: 6)
        let plan = s.reduce(.timer(.reloadSeek(step), Self.look([(10, 16.9)], end: 17.6)), at: 1.5)
        guard case .seekAbsolute(let to, let back?) = plan.effects.first else {
            Issue.record("an aimed seek: \(plan.effects)")
            return
        }
        #expect(abs(to - 17) < 1e-9 && abs(back - 0.2) < 1e-9)
        // The packets do not reach it yet: wait.
        #expect(
            s.reduce(.timer(.reloadSeek(step), Self.look([(10, 16.9)], end: 17.02)), at: 1.5).effects == [.after(ms: 5, .reloadSeek(step))])
        // A switch's raw target with nothing held back waits for the seekable range as before.
        let raw = ReloadSeek(to: .raw(17), rung: 1, wasPaused: false, deadline: 6)
        #expect(
            s.reduce(.timer(.reloadSeek(raw), Self.look([(10, 16.9)], end: 17.6)), at: 1.5).effects == [.after(ms: 5, .reloadSeek(raw))])
    }

    @Test("splice+seek's re-read: held still and the demuxer aimed a segment back, again until the new rung's segment is asked for")
    func reread() {
        var s = Self.session()
        // Playhead at raw 15: 1 s into segment 2; segment 1 (2 s) came from rung 0, so rung 1 has not been read there yet.
        let first = s.reduce(.timer(.reread(rung: 1, msn: 2, attempt: 0), Self.look([], time: 15)), at: 1)
        #expect(
            first.effects == [
                .holdStill(byHLSTUI: true), .seekDemuxer(by: 0, aimBack: 2),
                .after(ms: 5, .rereadSettle(to: 15, wasPaused: false, deadline: 3)),
                .after(ms: 30, .reread(rung: 1, msn: 2, attempt: 1)),
            ], "\(first.effects)")
        // Later attempts seek again without a second hold; the fourth is the last.
        #expect(
            s.reduce(.timer(.reread(rung: 1, msn: 2, attempt: 1), Self.look([], time: 15)), at: 1.03).effects == [
                .seekDemuxer(by: 0, aimBack: 2), .after(ms: 30, .reread(rung: 1, msn: 2, attempt: 2)),
            ])
        #expect(
            s.reduce(.timer(.reread(rung: 1, msn: 2, attempt: 3), Self.look([], time: 15)), at: 1.1).effects == [
                .seekDemuxer(by: 0, aimBack: 2), .after(ms: 300, .seekableCacheBack),
            ])
        // Rung 0 served segment 1: the demuxer has re-read it, no seek.
        #expect(
            s.reduce(.timer(.reread(rung: 0, msn: 2, attempt: 0), Self.look([], time: 15)), at: 1).effects == [
                .after(ms: 300, .seekableCacheBack)
            ])
        // The player's first segment cannot be aimed a segment back: no seek, the player let go at once.
        #expect(
            s.reduce(.timer(.reread(rung: 1, msn: 0, attempt: 0), Self.look([], time: 10.5)), at: 1).effects == [
                .holdStill(byHLSTUI: true), .letGo(play: true), .after(ms: 300, .seekableCacheBack),
            ])
        #expect(s.reduce(.timer(.seekableCacheBack, Self.look([])), at: 2).effects == [.seekableCache(nil)])
    }

    @Test("splice+seek's settle: the player plays on once no longer seeking and at the target, or at the deadline")
    func settle() {
        var s = Self.session()
        let timer = SessionTimer.rereadSettle(to: 15, wasPaused: false, deadline: 3)
        #expect(s.reduce(.timer(timer, Self.look([], seeking: true, time: 15)), at: 1).effects == [.after(ms: 5, timer)])
        #expect(s.reduce(.timer(timer, Self.look([], seeking: false, time: 13.9)), at: 1).effects == [.after(ms: 5, timer)])
        #expect(s.reduce(.timer(timer, Self.look([], seeking: false, time: 15.05)), at: 1).effects == [.letGo(play: true)])
        #expect(s.reduce(.timer(timer, Self.look([], seeking: true, time: 13.9)), at: 3).effects == [.letGo(play: true)])
        let paused = SessionTimer.rereadSettle(to: 15, wasPaused: true, deadline: 3)
        #expect(s.reduce(.timer(paused, Self.look([], seeking: false, time: 15)), at: 1).effects == [.letGo(play: false)])
    }
}
