import HLS
import Testing
@testable import Session

@Suite("Two panes on one wall clock: the sync controller (pure)")
struct SyncTests {
    let base = DateTime(iso8601: "2026-11-22T10:00:00Z")!
    func at(_ s: Double) -> DateTime { base.adding(seconds: s) }

    @Test("no PDT in a stream: off, with the reason, at normal speed")
    func noPDT() {
        var c = SyncController()
        let cmd = c.step(t: 1, pdts: [at(0), nil], playing: [true, true], hasPDT: [true, false])
        #expect(cmd.speeds == [1, 1] && cmd.hold == nil && cmd.realign == nil)
        #expect(c.state == .off("pane 2 has no EXT-X-PROGRAM-DATE-TIME"))
    }

    @Test("start: far apart, the pane ahead reloads at the other's moment; close, it is held; then speed steers and locks")
    func start() throws {
        var c = SyncController()
        #expect(c.step(t: 0.1, pdts: [nil, at(0)], playing: [false, true], hasPDT: [true, true]).speeds == [1, 1])
        let r = try #require(c.step(t: 1, pdts: [at(8), at(0)], playing: [true, true], hasPDT: [true, true]).realign)
        #expect(r.pane == 0 && r.to == at(0) && c.state == .aligning)
        // Pane 1 now 0.4 s ahead: held for 0.4 s.
        let h = try #require(c.step(t: 2, pdts: [at(1), at(1.4)], playing: [true, true], hasPDT: [true, true]).hold)
        #expect(h.pane == 1 && abs(h.seconds - 0.4) < 1e-9)
        #expect(
            c.step(t: 2.1, pdts: [at(1.1), at(1.4)], playing: [true, false], hasPDT: [true, true]).hold == nil,
            "no new command while holding")
        // 20 ms behind: pane 1 plays 2 % faster (gain 1 per second of offset).
        let s = c.step(t: 2.8, pdts: [at(2.02), at(2.0)], playing: [true, true], hasPDT: [true, true])
        #expect(s.speeds[0] == 1 && abs(s.speeds[1] - 1.02) < 1e-9 && c.state == .steering)
        _ = c.step(t: 3.0, pdts: [at(3.001), at(3.0)], playing: [true, true], hasPDT: [true, true])
        _ = c.step(t: 3.6, pdts: [at(3.6), at(3.6)], playing: [true, true], hasPDT: [true, true])
        #expect(c.state == .locked)
        // Pane 1 ahead: it slows, never beyond 5 %.
        #expect(c.step(t: 4, pdts: [at(4), at(4.03)], playing: [true, true], hasPDT: [true, true]).speeds[1] == 0.97)
        #expect(c.step(t: 4.05, pdts: [at(4.05), at(4.15)], playing: [true, true], hasPDT: [true, true]).speeds[1] == 0.95)
    }

    @Test("once locked: a short-lived jump in the readings is ignored, a lasting one is acted on, a large one holds")
    func transients() {
        var c = SyncController()
        for i in 0..<20 {
            _ = c.step(
                t: Double(i) * 0.05, pdts: [at(Double(i) * 0.05), at(Double(i) * 0.05)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(c.state == .locked)
        let glitch = c.step(t: 1.0, pdts: [at(1.3), at(1.0)], playing: [true, true], hasPDT: [true, true])
        #expect(glitch.speeds == [1, 1] && c.offset == 0)
        var last = glitch
        for i in 1...12 { last = c.step(t: 1 + Double(i) * 0.05, pdts: [at(1.3), at(1.0)], playing: [true, true], hasPDT: [true, true]) }
        #expect(abs(c.offset! - 0.3) < 1e-6 && last.speeds[1] == 1.05, "lasting: steered, not held (under the 1 s hold threshold)")
        // A lasting 1.5 s offset (over the 1 s hold threshold): a transient for 0.6 s, then pane 0, ahead, is held 1.5 s.
        var big = c.step(t: 3, pdts: [at(4.5), at(3)], playing: [true, true], hasPDT: [true, true])
        #expect(big.hold == nil, "a new reading is a transient first")
        for i in 1...12 where big.hold == nil {
            let t = 3 + Double(i) * 0.05
            big = c.step(t: t, pdts: [at(t + 1.5), at(t)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(
            big.hold?.pane == 0 && abs((big.hold?.seconds ?? 0) - 1.5) < 1e-6 && big.speeds == [1, 1], "\(String(describing: big.hold))")
    }

    @Test("switched off: normal speed, state says so")
    func off() {
        var c = SyncController()
        c.enabled = false
        #expect(c.step(t: 1, pdts: [at(0), at(1)], playing: [true, true], hasPDT: [true, true]).speeds == [1, 1])
        #expect(c.state == .off("switched off"))
    }

    @Test("`sync` in scripts toggles the lock")
    func script() throws {
        #expect(try parseCommandScript("5 sync").map(\.action) == [.toggleSync])
    }
}
