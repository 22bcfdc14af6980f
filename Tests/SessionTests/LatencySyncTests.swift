import HLS
import Testing
@testable import Session

@Suite("--latency: panes follow the wall clock less a latency (pure)")
struct LatencySyncTests {
    let base = DateTime(iso8601: "2026-11-22T10:00:00Z")!
    func at(_ s: Double) -> DateTime { base.adding(seconds: s) }
    /// A live window ending `behind` seconds before wall clock `wall`, 60 s long, 2 s segments.
    func window(wall: Double, behind: Double, td: Double = 2) -> SyncWindow {
        SyncWindow(start: at(wall - behind - 60), end: at(wall - behind), live: true, targetDuration: td)
    }

    /// A player the way the runner sees it: its playhead runs at the speed given, a move lands where it was aimed plus
    /// `landing` (the player's seek and restart), a hold pauses it.
    struct Player {
        var pdt: Double
        var speed = 1.0
        var heldUntil = -1.0
        var landing: Double
        mutating func advance(_ dt: Double, at t: Double) { if t >= heldUntil { pdt += dt * speed } }
    }

    /// Runs one process's `LatencySync` over `players` for `seconds` of wall clock from `wall0`, a step every 50 ms; the
    /// players' PDTs at the end, and the errors.
    func run(_ players: inout [Player], latency: LatencySync.Target, wall0: Double, seconds: Double, behind: Double = 2)
        -> LatencySync
    {
        var l = LatencySync(count: players.count, target: latency)
        var t = 0.0
        while t < seconds {
            let wall = wall0 + t
            let readings = players.map { p in
                SyncReading(pdt: at(p.pdt), playing: t >= p.heldUntil, window: window(wall: wall, behind: behind))
            }
            let cmd = l.step(t: t, wall: at(wall), readings: readings)
            for i in players.indices { players[i].speed = cmd.speeds[i] }
            for h in cmd.holds { players[h.pane].heldUntil = t + h.seconds }
            for r in cmd.realigns { players[r.pane].pdt = r.to.seconds(since: base) + players[r.pane].landing }
            t += 0.05
            for i in players.indices { players[i].advance(0.05, at: t) }
        }
        return l
    }

    @Test("two processes that never talk, their panes started 3 s apart: both play the wall clock less 10 s, to the frame")
    func twoProcesses() throws {
        // Process A's pane starts 13 s behind the wall clock, process B's 7.5 s; each lands 0.2 s off where it aimed.
        var a = [Player(pdt: 1000 - 13, landing: 0.2)]
        var b = [Player(pdt: 1000 - 7.5, landing: -0.15)]
        let la = run(&a, latency: .seconds(10), wall0: 1000, seconds: 20)
        let lb = run(&b, latency: .seconds(10), wall0: 1000, seconds: 20)
        #expect(la.state == .locked && lb.state == .locked, "\(la.state) \(lb.state)")
        // At wall clock 1020 both show the moment 1010, within a frame of each other (33 ms at 30 fps).
        #expect(abs(a[0].pdt - 1010) < 0.034 && abs(b[0].pdt - 1010) < 0.034, "\(a[0].pdt) \(b[0].pdt)")
        #expect(abs((la.error ?? 1)) < 0.034 && la.latency == 10)
    }

    @Test("several panes of one process each follow the clock on their own: one behind moves forward, one ahead is held")
    func panes() throws {
        var p = [Player(pdt: 1000 - 14, landing: 0.1), Player(pdt: 1000 - 9.6, landing: 0), Player(pdt: 1000 - 10.02, landing: 0)]
        var l = LatencySync(count: 3, target: .seconds(10))
        let first = l.step(
            t: 0, wall: at(1000),
            readings: p.map { SyncReading(pdt: at($0.pdt), playing: true, window: window(wall: 1000, behind: 2)) })
        // Pane 1, 4 s behind its target: forward to it (a margin past it); pane 2, 0.4 s ahead: held; pane 3, 20 ms behind:
        // sped up. The clock is never told anything.
        #expect(first.realigns.map(\.pane) == [0] && first.holds.map(\.pane) == [1], "\(first)")
        #expect(first.speeds.count == 3 && first.speeds[2] > 1 && first.speeds[1] == 1)
        let l2 = run(&p, latency: .seconds(10), wall0: 1000, seconds: 20)
        #expect(l2.state == .locked && p.allSatisfy { abs($0.pdt - 1010) < 0.034 }, "\(p.map(\.pdt))")
    }

    @Test("a latency shorter than a playlist allows: that pane is named, left at normal speed, never moved")
    func unreachable() {
        var l = LatencySync(count: 2, target: .seconds(5))
        // Pane 1's playlist ends 1 s behind the wall clock (it can play 1 + 2 × 2 s behind); pane 2's ends 4 s behind.
        let cmd = l.step(
            t: 0, wall: at(1000),
            readings: [
                SyncReading(pdt: at(996), playing: true, window: window(wall: 1000, behind: 1)),
                SyncReading(pdt: at(990), playing: true, window: window(wall: 1000, behind: 4)),
            ])
        #expect(l.unreachable.keys.sorted() == [1], "\(l.unreachable)")
        #expect(
            l.reasons.first
                == "pane 2 cannot play 5.0 s behind the wall clock: its playlist ends up to 4.0 s behind it and a pane plays 4.0 s behind that (--latency 8.0 or more)"
        )
        #expect(cmd.speeds[1] == 1 && !cmd.realigns.contains { $0.pane == 1 } && !cmd.holds.contains { $0.pane == 1 })
        #expect(l.errors[1] == nil)
        // Pane 1 can: it is held 1 s (it plays 4 s behind, 1 s ahead of its target).
        #expect(cmd.holds.map(\.pane) == [0])
    }

    @Test("not live: named; no PDT: named by the pane's controller")
    func notFollowed() {
        var l = LatencySync(count: 2, target: .seconds(10))
        var vod = window(wall: 1000, behind: 2)
        vod.live = false
        _ = l.step(
            t: 0, wall: at(1000),
            readings: [SyncReading(pdt: at(990), playing: true, window: vod), SyncReading(pdt: nil, playing: true, hasPDT: false)])
        #expect(l.reasons.contains("pane 1 is not live: --latency follows live streams"))
        #expect(
            l.reasons.contains("pane 1 has no EXT-X-PROGRAM-DATE-TIME") || l.reasons.contains { $0.contains("EXT-X-PROGRAM-DATE-TIME") })
    }

    @Test("auto: the smallest latency every pane can hold, chosen once every window is known, then kept")
    func auto() {
        var l = LatencySync(count: 2, target: .auto)
        // No window yet: nothing chosen, nothing done.
        let none = l.step(
            t: 0, wall: at(1000), readings: [SyncReading(pdt: at(980), playing: true), SyncReading(pdt: nil, playing: false)])
        #expect(l.latency == nil && none.realigns.isEmpty && none.holds.isEmpty && l.state == .waiting)
        // Ends 1.23 s and 3 s behind, 2 s segments: the latest moment both can play on from is 3 + 4 s behind the clock, and
        // one segment more (read just after the end moved, it is 2 s further behind just before it moves again).
        _ = l.step(
            t: 0.05, wall: at(1000),
            readings: [
                SyncReading(pdt: at(980), playing: true, window: window(wall: 1000, behind: 1.23)),
                SyncReading(pdt: at(985), playing: true, window: window(wall: 1000, behind: 3)),
            ])
        #expect(l.latency == 9)
        _ = l.step(
            t: 0.1, wall: at(1001),
            readings: [
                SyncReading(pdt: at(981), playing: true, window: window(wall: 1001, behind: 0.5)),
                SyncReading(pdt: at(986), playing: true, window: window(wall: 1001, behind: 0.5)),
            ])
        #expect(l.latency == 9, "kept once chosen")
    }

    /// A low-latency window at wall clock `wall`: 4 s segments of `part`-second parts published as the clock passes their end
    /// plus `delay`, so its end moves a part at a time; PART-HOLD-BACK `holdBack` when the pane is given parts.
    func partWindow(wall: Double, part: Double, delay: Double = 0.1, holdBack: Double?) -> SyncWindow {
        let end = ((wall - delay) / part).rounded(.down) * part
        var w = SyncWindow(start: at(end - 60), end: at(end), live: true, targetDuration: 4)
        w.partTarget = part
        w.holdBack = holdBack
        return w
    }

    @Test("low latency: a pane given parts plays PART-HOLD-BACK behind its last part, so 1.5 s behind the clock on 0.333 s parts")
    func lowLatency() {
        /// A pane playing `latency` behind the clock from `wall0`, a step every 50 ms: whether it was named at each step.
        func named(latency: Double, part: Double, holdBack: Double, wall0: Double, steps: Int) -> [Bool] {
            var l = LatencySync(count: 1, target: .seconds(latency))
            return (0..<steps).map { k in
                let wall = wall0 + Double(k) * 0.05
                let window = partWindow(wall: wall, part: part, holdBack: holdBack)
                _ = l.step(
                    t: Double(k) * 0.05, wall: at(wall), readings: [SyncReading(pdt: at(wall - latency), playing: true, window: window)])
                return !l.unreachable.isEmpty
            }
        }
        let floor = named(latency: 1.5, part: 0.334, holdBack: 1.002, wall0: 1000, steps: 40)
        #expect(!floor.contains(true), "\(floor)")
        // Just under the floor (1 s parts, PART-HOLD-BACK 3 s: 4.1 s at every moment): named at every step once the end has
        // moved, not on and off as each part is published.
        let near = named(latency: 3.5, part: 1, holdBack: 3, wall0: 1000.2, steps: 60)
        #expect(near.drop(while: { !$0 }).allSatisfy { $0 } && near.filter { $0 }.count >= 40, "\(near)")
        // Without parts the same stream is played two target durations behind its end: 1.5 s is named.
        var whole = LatencySync(count: 1, target: .seconds(1.5))
        _ = whole.step(
            t: 0, wall: at(1000),
            readings: [SyncReading(pdt: at(998.5), playing: true, window: partWindow(wall: 1000, part: 0.334, holdBack: nil))])
        #expect(whole.reasons.first?.contains("(--latency 8.") == true, "\(whole.reasons)")
    }

    @Test("a pane that stalled (its origin gone) is not named for its playlist falling behind: it is followed again once it plays")
    func stalled() {
        var l = LatencySync(count: 1, target: .seconds(2))
        // Its playlist was last read 10 s ago: it ends 10 s behind the clock.
        let w = partWindow(wall: 990, part: 1, holdBack: 1)
        _ = l.step(t: 0, wall: at(1000), readings: [SyncReading(pdt: at(989), playing: false, window: w, stalled: true)])
        #expect(l.unreachable.isEmpty, "\(l.reasons)")
        #expect(l.state == .waitingFor([0]) && l.state.label == "waiting for pane 1 (rebuffering)", "\(l.state)")
        #expect(l.errors == [nil], "no error shown for a pane that does not play")
        // The same reading, not stalled: a latency its playlist cannot give, named.
        _ = l.step(t: 0.05, wall: at(1000), readings: [SyncReading(pdt: at(989), playing: true, window: w)])
        #expect(l.unreachable.count == 1, "\(l.reasons)")
    }

    @Test("a segment after a discontinuity without a PDT yet is still the live edge: the pane is not named for it")
    func undatedEdge() {
        // The last dated segment ends 4 s behind the clock; 3 s of parts follow it after a discontinuity, undated.
        var w = partWindow(wall: 1000, part: 1, holdBack: 3)
        w.end = w.end.adding(seconds: -3)
        var l = LatencySync(count: 1, target: .seconds(5))
        _ = l.step(t: 0, wall: at(1000), readings: [SyncReading(pdt: at(995), playing: true, window: w)])
        #expect(l.unreachable.isEmpty, "\(l.reasons)")
        w.edge = w.end
        var dated = LatencySync(count: 1, target: .seconds(5))
        _ = dated.step(t: 0, wall: at(1000), readings: [SyncReading(pdt: at(995), playing: true, window: w)])
        #expect(dated.reasons.first?.contains("ends up to 4.0 s behind") == true, "\(dated.reasons)")
    }

    @Test("auto at the floor of a low-latency stream whose end moves a part at a time: chosen so it is never named, locked throughout")
    func autoAtTheFloor() {
        // 1 s parts, PART-HOLD-BACK 3 s (the origin's ll-ts), read at every phase of a part: the choice holds at all of them.
        for phase in stride(from: 0.0, to: 1.0, by: 0.125) {
            var players = [Player(pdt: 1000 + phase - 5, landing: 0.05)]
            var l = LatencySync(count: 1, target: .auto)
            var t = 0.0
            var named: [String] = []
            while t < 20 {
                let wall = 1000 + phase + t
                let cmd = l.step(
                    t: t, wall: at(wall),
                    readings: [
                        SyncReading(
                            pdt: at(players[0].pdt), playing: t >= players[0].heldUntil,
                            window: partWindow(wall: wall, part: 1, holdBack: 3))
                    ])
                named += l.reasons
                players[0].speed = cmd.speeds[0]
                for h in cmd.holds { players[0].heldUntil = t + h.seconds }
                for r in cmd.realigns { players[0].pdt = r.to.seconds(since: base) + players[0].landing }
                t += 0.05
                players[0].advance(0.05, at: t)
            }
            // PART-HOLD-BACK, the 0.1 s publishing delay and one part (4.1 s, the least it can hold at every moment), plus up to
            // one part more as the end was read at one phase or another: never the 8 s a segment pane needs.
            #expect((l.latency ?? 0) >= 4.1 && (l.latency ?? 0) <= 5.2, "phase \(phase): \(String(describing: l.latency))")
            #expect(named.isEmpty && l.state == .locked, "phase \(phase): \(l.state) \(named.prefix(2))")
        }
    }
}
