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

    @Test("start: far apart, the pane behind reloads at the other's moment; close, it is held; then speed steers and locks")
    func start() throws {
        var c = SyncController()
        #expect(c.step(t: 0.1, pdts: [nil, at(0)], playing: [false, true], hasPDT: [true, true]).speeds == [1, 1])
        let r = try #require(c.step(t: 1, pdts: [at(8), at(0)], playing: [true, true], hasPDT: [true, true]).realign)
        #expect(r.pane == 1 && r.to == at(8) && c.state == .aligning && c.action == .forward(pane: 1))
        // Pane 1 now 0.4 s ahead: held for 0.4 s.
        let h = try #require(c.step(t: 2, pdts: [at(1), at(1.4)], playing: [true, true], hasPDT: [true, true]).hold)
        #expect(h.pane == 1 && abs(h.seconds - 0.4) < 1e-9)
        #expect(
            c.step(t: 2.1, pdts: [at(1.1), at(1.4)], playing: [true, false], hasPDT: [true, true]).hold == nil,
            "no new command while holding")
        // 20 ms behind: pane 1 plays 3 % faster (gain 1.5 per second of offset).
        let s = c.step(t: 2.8, pdts: [at(2.02), at(2.0)], playing: [true, true], hasPDT: [true, true])
        #expect(s.speeds[0] == 1 && abs(s.speeds[1] - 1.03) < 1e-9 && c.state == .steering)
        _ = c.step(t: 3.0, pdts: [at(3.001), at(3.0)], playing: [true, true], hasPDT: [true, true])
        _ = c.step(t: 3.6, pdts: [at(3.6), at(3.6)], playing: [true, true], hasPDT: [true, true])
        #expect(c.state == .locked)
        // Pane 1 ahead: it slows, never beyond 5 %.
        #expect(abs(c.step(t: 4, pdts: [at(4), at(4.02)], playing: [true, true], hasPDT: [true, true]).speeds[1] - 0.97) < 1e-9)
        #expect(c.step(t: 4.05, pdts: [at(4.05), at(4.15)], playing: [true, true], hasPDT: [true, true]).speeds[1] == 0.95)
    }

    @Test("readings that advance between frames: locked only within 5 ms, then kept within a frame; frame-stepped ones lock within a frame")
    func preciseLock() {
        func run(_ c: inout SyncController, from t0: Double, offset: Double, continuous: Bool) {
            for i in 0..<12 {
                let t = t0 + Double(i) * 0.05
                _ = c.step(
                    t: t, pdts: [at(t + offset), at(t)], playing: [true, true], hasPDT: [true, true], continuous: [continuous, continuous])
            }
        }
        var c = SyncController()
        run(&c, from: 0, offset: 0.012, continuous: true)
        #expect(c.state == .steering, "12 ms apart on the audio clock is not a lock")
        run(&c, from: 1, offset: 0.004, continuous: true)
        #expect(c.state == .locked)
        run(&c, from: 2, offset: 0.02, continuous: true)
        #expect(c.state == .locked, "a 20 ms excursion once locked is within a frame")
        run(&c, from: 3, offset: 0.05, continuous: true)
        #expect(c.state == .steering, "beyond a frame: the lock is lost")
        var f = SyncController()
        run(&f, from: 0, offset: 0.03, continuous: false)
        #expect(f.state == .locked, "a playhead that moves a frame at a time locks within a frame")
        var g = SyncController()
        run(&g, from: 0, offset: 0.004, continuous: true)
        let cmd = g.step(t: 0.6, pdts: [at(0.64), at(0.6)], playing: [true, true], hasPDT: [true, true], continuous: [false, true])
        #expect(abs(cmd.speeds[1] - 1.05) < 1e-9 && g.state == .steering, "40 ms: steered at the limit, out of the lock")
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

    @Test("once locked: readings missing for a moment (waiting), then a transient far off: ignored, locked again, nothing moved")
    func transientAfterWaiting() {
        var c = SyncController()
        for i in 0..<20 {
            let t = Double(i) * 0.05
            _ = c.step(t: t, pdts: [at(t), at(t)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(c.state == .locked)
        // Both panes cross a timestamp reset: no reading for 0.8 s.
        for i in 0..<16 { _ = c.step(t: 1 + Double(i) * 0.05, pdts: [nil, nil], playing: [true, true], hasPDT: [true, true]) }
        #expect(c.state == .waiting)
        // The first readings back: one pane's audio began 1.4 s before the other's moment, for 0.3 s.
        var commands: [SyncCommand] = []
        for i in 0..<6 {
            let t = 1.8 + Double(i) * 0.05
            commands.append(c.step(t: t, pdts: [at(t + 1.4), at(t)], playing: [true, true], hasPDT: [true, true]))
        }
        #expect(c.state != .aligning && commands.allSatisfy { $0.hold == nil && $0.realign == nil }, "\(c.state)")
        var last = commands.last!
        for i in 0..<20 {
            let t = 2.1 + Double(i) * 0.05
            last = c.step(t: t, pdts: [at(t), at(t)], playing: [true, true], hasPDT: [true, true])
            #expect(last.hold == nil && last.realign == nil)
        }
        #expect(c.state == .locked && c.steady)
    }

    @Test("once locked, a reload that lands 0.8 s off is held away at once, not steered for 16 s; locked again, 0.3 s steers")
    func landingError() throws {
        var c = SyncController()
        for i in 0..<20 {
            let t = Double(i) * 0.05
            _ = c.step(t: t, pdts: [at(t), at(t)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(c.state == .locked && c.steady)
        // Pane 1 skipped 15 s ahead (its player went past segments an origin refused): pane 0 forward, or pane 1 back.
        var moved: SyncCommand?
        for i in 0..<14 where moved?.realign == nil {
            let t = 2 + Double(i) * 0.05
            moved = c.step(t: t, pdts: [at(t), at(t + 15)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(try #require(moved).realign != nil && !c.steady)
        // It landed 0.8 s behind the other: that pane is held 0.8 s, not steered at 5 % (under the 1 s hold threshold).
        let h = try #require(c.step(t: 5, pdts: [at(20.8), at(20)], playing: [true, true], hasPDT: [true, true]).hold)
        #expect(h.pane == 0 && abs(h.seconds - 0.8) < 1e-9)
        for i in 0..<12 {
            let t = 6.2 + Double(i) * 0.05
            _ = c.step(t: t, pdts: [at(t + 15), at(t + 15)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(c.state == .locked && c.steady)
        var last: SyncCommand?
        for i in 0..<14 {
            let t = 7 + Double(i) * 0.05
            last = c.step(t: t, pdts: [at(t + 15.3), at(t + 15)], playing: [true, true], hasPDT: [true, true])
        }
        #expect(last?.hold == nil && last?.speeds[1] == 1.05, "steady again: 0.3 s is steered")
    }

    /// Camera A: 2 s segments, playhead 6 s behind its edge; camera B: 4 s segments, 24 s window, 7.6 s behind A.
    func windows(a: (Double, Double), b: (Double, Double)) -> [SyncWindow?] {
        [
            SyncWindow(start: at(a.0), end: at(a.1), live: true, targetDuration: 2),
            SyncWindow(start: at(b.0), end: at(b.1), live: true, targetDuration: 4),
        ]
    }

    func first(_ c: inout SyncController, _ w: [SyncWindow?], a: Double = 100, b: Double = 92.4) -> SyncCommand {
        c.step(t: 1, pdts: [at(a), at(b)], playing: [true, true], hasPDT: [true, true], windows: w)
    }

    @Test("a way is found whenever one exists: the pane behind forward past the other's moment when only a short hold is left")
    func forward() throws {
        var c = SyncController()
        // B lists up to 12 s past A's moment: it reloads a landing margin past it (the target runs on while the reload lands),
        // so it lands just after A's moment.
        let r = try #require(first(&c, windows(a: (90, 106), b: (80, 112))).realign)
        #expect(r.pane == 1 && r.to == at(100.5) && c.action == .forward(pane: 1))
        // The reload landed 0.3 s past A: B, the pane moved, is held for it.
        let h = c.step(
            t: 2, pdts: [at(101.2), at(101.5)], playing: [true, true], hasPDT: [true, true], windows: windows(a: (92, 108), b: (80, 112)))
        #expect(h.hold?.pane == 1 && abs((h.hold?.seconds ?? 0) - 0.3) < 1e-9 && h.realign == nil, "\(h)")
        // B can come only 3.6 s forward (two segments before its edge), which would leave A held 4 s; A lists B's moment: A
        // goes back instead, one move.
        var b = SyncController()
        // It aims a landing margin past B's moment, so it lands past where B is by then, and is held briefly.
        let back = try #require(first(&b, windows(a: (90, 106), b: (80, 104))).realign)
        #expect(back.pane == 0 && back.to == at(92.9) && b.action == .back(pane: 0))
        // Where A cannot go back (its window starts after B's moment), B comes forward that far and A is held the 4 s.
        var f = SyncController()
        let part = try #require(first(&f, windows(a: (93, 106), b: (80, 104))).realign)
        #expect(part.pane == 1 && part.to == at(96) && f.action == .forward(pane: 1))
    }

    @Test("a move that found no segment at its moment: off with the line, tried again after the time given; without one, off")
    func retryAfterFailedMove() {
        var c = SyncController()
        c.giveUp("no moment in common (6.0 s apart): pane 1 has no segment at …", retryAt: 5)
        #expect(c.step(t: 4, pdts: [at(10), at(10)], playing: [true, true], hasPDT: [true, true]).speeds == [1, 1])
        #expect(c.state == .off("no moment in common (6.0 s apart): pane 1 has no segment at …"))
        _ = c.step(t: 5, pdts: [at(11), at(11)], playing: [true, true], hasPDT: [true, true])
        #expect(c.state == .steering && c.gaveUp == nil, "\(c.state)")
        var d = SyncController()
        d.giveUp("no moment in common")
        _ = d.step(t: 100, pdts: [at(11), at(11)], playing: [true, true], hasPDT: [true, true])
        #expect(d.state == .off("no moment in common"))
    }

    @Test("two cameras 11 s apart whose windows share 6 s: B forward as near A as it can play on, then A held for the rest")
    func sharedWindows() throws {
        // A: 2 s segments, 12 s window, playhead 6 s behind its edge; B: 4 s segments, 24 s window, 11 s behind A.
        var c = SyncController()
        let r = try #require(first(&c, windows(a: (86, 98), b: (69, 93)), a: 92, b: 81).realign)
        #expect(r.pane == 1 && r.to == at(85) && c.action == .forward(pane: 1), "two B segments before B's edge")
        // B landed 7.5 s behind A; A cannot go back that far, but its player holds everything to its edge: A is held.
        var w = windows(a: (87, 99), b: (69, 93))
        w[0]?.bufferedUntil = at(98)
        let h = c.step(t: 2, pdts: [at(93), at(85.5)], playing: [true, true], hasPDT: [true, true], windows: w)
        #expect(h.hold?.pane == 0 && abs((h.hold?.seconds ?? 0) - 7.5) < 1e-9 && c.action == .hold(pane: 0, seconds: 7.5), "\(h)")
        // A held player reads on, so the pause may be longer than what A lists behind its playhead; but with its playhead and
        // buffer less than a segment from its window's start, even its next segment is about to go: no way is left, and the
        // line names both windows.
        var d = SyncController()
        _ = first(&d, windows(a: (86, 98), b: (69, 93)), a: 92, b: 81)
        _ = d.step(
            t: 2, pdts: [at(93), at(85.5)], playing: [true, true], hasPDT: [true, true], windows: windows(a: (91.5, 103.5), b: (69, 93)))
        #expect(
            d.state
                == .off("no moment in common (7.5 s apart): pane 1 lists 10:01:31.500–10:01:43.500, pane 2 lists 10:01:09.000–10:01:33.000")
        )
    }

    @Test("the pane ahead back when the pane behind cannot come forward; a hold of the whole offset when only that is left")
    func backAndHold() throws {
        // B's edge is 3 s past A's moment: B cannot play on from a later moment. A lists 16 s, B's moment among them: A goes back.
        var c = SyncController()
        let r = try #require(first(&c, windows(a: (90, 106), b: (80, 97))).realign)
        #expect(r.pane == 0 && r.to == at(92.9) && c.action == .back(pane: 0))
        // A VOD ahead (its window does not slide) that lists neither B's moment nor a segment past it: held for the whole offset.
        var v = SyncController()
        let vod = [SyncWindow(start: at(96.5), end: at(200), live: false, targetDuration: 2), windows(a: (0, 0), b: (80, 97))[1]]
        let h = first(&v, vod)
        #expect(h.hold?.pane == 0 && abs((h.hold?.seconds ?? 0) - 7.6) < 1e-9 && v.action == .hold(pane: 0, seconds: h.hold!.seconds))
    }

    @Test("18 s apart, the pane behind at its edge, the other's window 14 s long: back as far as it lists, then held for the rest")
    func backPartWay() throws {
        // A: 2 s segments, window 90–104, playhead at 100; B: 4 s segments, playhead 82 and its edge 88 (it cannot come
        // forward). A cannot reach 82, so it goes back to 94 (two segments to spare), which saves 6 s of the pause.
        var c = SyncController()
        let r = try #require(first(&c, windows(a: (90, 104), b: (60, 88)), a: 100, b: 82).realign)
        #expect(r.pane == 0 && r.to == at(94) && c.action == .back(pane: 0))
        // It landed at 93, a segment's start: the 11 s left are held, not moved again.
        let h = c.step(
            t: 2, pdts: [at(93), at(82.5)], playing: [true, true], hasPDT: [true, true], windows: windows(a: (91, 105), b: (60, 89)))
        #expect(h.realign == nil && h.hold?.pane == 0 && abs((h.hold?.seconds ?? 0) - 10.5) < 1e-9, "\(h)")
        // Two seconds saved are not worth a reload: held at once.
        var d = SyncController()
        let once = first(&d, windows(a: (90, 104), b: (60, 88)), a: 96, b: 82)
        #expect(once.realign == nil && once.hold?.pane == 0 && d.action == .hold(pane: 0, seconds: 14), "\(once)")
    }

    @Test("no way: off, with both windows in the one line")
    func noWay() {
        var c = SyncController()
        // A's playhead a second from its window's start (no buffer known): a hold would lose its next segment.
        let cmd = first(&c, windows(a: (99, 111), b: (80, 97)))
        #expect(cmd.hold == nil && cmd.realign == nil && cmd.speeds == [1, 1])
        #expect(
            c.state
                == .off("no moment in common (7.6 s apart): pane 1 lists 10:01:39.000–10:01:51.000, pane 2 lists 10:01:20.000–10:01:37.000"),
            "\(c.state)")
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

@Suite("Three and four panes on one reference clock (pure)")
struct MultiSyncTests {
    let base = DateTime(iso8601: "2026-11-22T10:00:00Z")!
    func at(_ s: Double) -> DateTime { base.adding(seconds: s) }
    func live(_ a: Double, _ b: Double, td: Double = 2) -> SyncWindow {
        SyncWindow(start: at(a), end: at(b), live: true, targetDuration: td)
    }

    /// A fresh three-pane lock's first step with these playheads and windows (start, end), all playing.
    func firstStep(_ pdts: [Double], _ windows: [(Double, Double)]) -> (MultiSync, SyncCommands) {
        var m = MultiSync(count: 3)
        let c = m.step(t: 1, readings: zip(pdts, windows).map { SyncReading(pdt: at($0), playing: true, window: live($1.0, $1.1)) })
        return (m, c)
    }

    @Test("the pane with the most latency is the reference; every other pane is moved to it, never the reference")
    func reference() throws {
        var m = MultiSync(count: 3)
        // Pane 3 is 8 s behind pane 1 and 6 s behind pane 2: it is the reference.
        let r = [
            SyncReading(pdt: at(100), playing: true, window: live(84, 106)), SyncReading(pdt: at(98), playing: true, window: live(84, 104)),
            SyncReading(pdt: at(92), playing: true, window: live(80, 100)),
        ]
        // Every window lists 96 with two segments to spare before its edge: the reference comes forward to it first.
        #expect(MultiSync.commonMoment(r.map(\.window)) == at(96))
        let lead = m.step(t: 1, readings: r)
        // In the same step pane 1, 4 s ahead of that moment (as far ahead of the reference once it lands: every pane plays on
        // meanwhile, the reference's target with them), moves back a little past it; so does pane 2, 2 s ahead: a hold of
        // the margin instead of 2 s saves more than a reload's time.
        #expect(m.reference == 2 && m.lead == .forward(pane: 2), "\(lead)")
        let margin = at(96 + MultiSync.landingMargin)
        #expect(
            lead.realigns == [SyncRealign(pane: 2, to: at(96)), SyncRealign(pane: 0, to: margin), SyncRealign(pane: 1, to: margin)],
            "\(lead)")
        // The reference landed at 95, pane 1 0.6 s ahead of it: both others are held.
        var landed = r
        landed[2].pdt = at(95)
        landed[0].pdt = at(95.6)
        let cmd = m.step(t: 1.6, readings: landed)
        #expect(cmd.realigns.isEmpty && cmd.holds == [SyncHold(pane: 0, seconds: 0.6), SyncHold(pane: 1, seconds: 3)], "\(cmd)")
        #expect(cmd.speeds == [1, 1, 1])
        #expect(m.actions == [.forward(pane: 2), .hold(pane: 0, seconds: 0.6), .hold(pane: 1, seconds: 3)] && m.state == .aligning)
        // A pane behind the moment moves with the reference too, even half a second behind (it would be that far behind the
        // reference when it lands); one just ahead of it stays, to be held.
        let (behind, b) = firstStep([96.5, 94.5, 92], [(84, 106), (84, 104), (80, 100)])
        #expect(b.realigns == [SyncRealign(pane: 2, to: at(96)), SyncRealign(pane: 1, to: at(96 + MultiSync.landingMargin))], "\(b)")
        #expect(behind.actions == [.forward(pane: 2), .forward(pane: 1)])
        let (_, half) = firstStep([95.5, 97, 92], [(84, 106), (84, 104), (80, 100)])
        #expect(half.realigns.map(\.pane) == [2, 0], "\(half)")
        // The nearest live edge decides, even when a window starts after that moment: the pane there is ahead and waits.
        #expect(MultiSync.commonMoment([live(84, 106), live(103, 120)]) == at(102))
        #expect(MultiSync.commonMoment([live(84, 106), nil]) == nil)
        // The reference's own edge is too near for a second forward: it stays where it is.
        let (far, stay) = firstStep([100, 98, 92], [(96, 106), (84, 104), (80, 96.5)])
        #expect(far.lead == nil && !stay.realigns.contains { $0.pane == 2 }, "\(stay)")
        // Close to it: each is held by its own offset; then steered alone against the reference.
        let near = m.step(
            t: 5,
            readings: [
                SyncReading(pdt: at(93.4), playing: true), SyncReading(pdt: at(93.2), playing: true),
                SyncReading(pdt: at(93), playing: true),
            ])
        #expect(near.holds.map(\.pane) == [0, 1] && abs(near.holds[0].seconds - 0.4) < 1e-9 && abs(near.holds[1].seconds - 0.2) < 1e-9)
        #expect(m.offsets.map { $0.map { ($0 * 10).rounded() / 10 } } == [0.4, 0.2, 0])
        // Locked: the reference's move at the start is no longer shown, not even when a pane steers again later.
        for i in 0...12 {
            let t = 6 + Double(i) * 0.05
            _ = m.step(t: t, readings: (0..<3).map { _ in SyncReading(pdt: at(t + 90), playing: true) })
        }
        #expect(m.state == .locked && m.lead == nil, "\(m.state)")
        for i in 0...14 {
            let t = 7 + Double(i) * 0.05
            _ = m.step(t: t, readings: [at(t + 90.2), at(t + 90), at(t + 90)].map { SyncReading(pdt: $0, playing: true) })
        }
        #expect(m.state == .steering && !m.actions.contains(.forward(pane: 2)), "\(m.state) \(m.actions)")
    }

    @Test(
        "a discontinuity just after the common moment in the reference's window: it is aimed a margin before it, where its reload can seek, and the others a margin past that"
    )
    func leadBeforeBreak() {
        // The reference (pane 3) lists a camera's loop point at 96: a reload aimed within a second before it starts there,
        // without a seek; aimed earlier it seeks (the Loader holds the segments from 96 on back until the seek is done).
        var ref = live(80, 100, td: 2)
        ref.breaks = [at(96)]
        #expect(ref.exactLanding(near: at(95.5)) == at(95) && ref.exactLanding(near: at(94.5)) == at(94.5))
        #expect(ref.exactLanding(near: at(97)) == at(97) && live(80, 100).exactLanding(near: at(95.5)) == at(95.5))
        var m = MultiSync(count: 3)
        let r = [
            SyncReading(pdt: at(100), playing: true, window: live(84, 106)), SyncReading(pdt: at(98), playing: true, window: live(84, 104)),
            SyncReading(pdt: at(88), playing: true, window: ref),
        ]
        #expect(MultiSync.commonMoment(r.map(\.window)) == at(96))
        let lead = m.step(t: 1, readings: r)
        // 96 is the break itself: the moment. Within a second before it, a second before it.
        #expect(lead.realigns.first == SyncRealign(pane: 2, to: at(96)), "\(lead)")
        var early = r
        early[2].window?.end = at(99.5)
        var n = MultiSync(count: 3)
        let aimed = n.step(t: 1, readings: early)
        #expect(MultiSync.commonMoment(early.map(\.window)) == at(95.5))
        let past = at(95 + MultiSync.landingMargin)
        #expect(
            aimed.realigns == [SyncRealign(pane: 2, to: at(95)), SyncRealign(pane: 0, to: past), SyncRealign(pane: 1, to: past)]
                && n.lead == .forward(pane: 2), "\(aimed)")
    }

    @Test(
        "a pane whose target lies just before its loop point lands at the loop point (no seek): the moment is chosen where every pane lands a margin past the reference"
    )
    func othersBeforeBreak() {
        // Pane 2: a loop point at 100. Aimed within a second before it, its reload starts there.
        var c = live(80, 108, td: 4)
        c.breaks = [at(100)]
        #expect(c.landing(aimedAt: at(99.25)) == at(100) && c.landing(aimedAt: at(99)) == at(99))
        #expect(c.landing(aimedAt: at(101)) == at(101) && live(80, 108).landing(aimedAt: at(99.25)) == at(99.25))
        let r = [
            SyncReading(pdt: at(103), playing: true, window: live(84, 104)), SyncReading(pdt: at(104), playing: true, window: c),
            SyncReading(pdt: at(90), playing: true, window: live(80, 102.5)),
        ]
        #expect(MultiSync.commonMoment(r.map(\.window)) == at(98.5))
        // At 98.5 pane 2 would land at 100 and wait 1.5 s; a quarter second earlier it lands where aimed.
        var m = MultiSync(count: 3)
        let lead = m.step(t: 1, readings: r)
        #expect(
            lead.realigns == [SyncRealign(pane: 2, to: at(98.25)), SyncRealign(pane: 0, to: at(99)), SyncRealign(pane: 1, to: at(99))],
            "\(lead)")
        // Without the loop point the common moment itself.
        var plain = r
        plain[1].window?.breaks = []
        var n = MultiSync(count: 3)
        #expect(n.step(t: 1, readings: plain).realigns.first == SyncRealign(pane: 2, to: at(98.5)))
    }

    @Test(
        "a move back that would leave nearly the same hold (its reload starts at a loop point just after its target) is not made: the pane is held"
    )
    func noFutileMoveBack() {
        var ahead = SyncWindow(start: at(80), end: at(112), live: true, targetDuration: 4)
        ahead.breaks = [at(100)]
        let behind = SyncWindow(start: at(70), end: at(110), live: true, targetDuration: 6)
        var c = SyncController()
        c.movable = [false, true]
        c.realignThreshold = 1.2
        // Pane 2 is at 100.6, 1.6 s ahead of the reference at 99: back to 99.5 would start at 100, a hold of 1 s instead of 1.6.
        let cmd = c.step(t: 1, pdts: [at(99), at(100.6)], playing: [true, true], hasPDT: [true, true], windows: [behind, ahead])
        #expect(cmd.realign == nil && cmd.hold?.pane == 1 && abs((cmd.hold?.seconds ?? 0) - 1.6) < 1e-9, "\(cmd)")
        // Without the loop point it is moved back: it lands at 99.5, a hold of 0.5 s.
        var plain = ahead
        plain.breaks = []
        var d = SyncController()
        d.movable = [false, true]
        d.realignThreshold = 1.2
        let back = d.step(t: 1, pdts: [at(99), at(100.6)], playing: [true, true], hasPDT: [true, true], windows: [behind, plain])
        #expect(back.realign?.pane == 1 && back.hold == nil, "\(back)")
    }

    @Test("the reference ahead of a pane is never held: the pane catches up by speed; `r` makes another pane the reference")
    func pinned() {
        var m = MultiSync(count: 3)
        let r = [
            SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(9.9), playing: true),
        ]
        _ = m.step(t: 1, readings: r)
        #expect(m.reference == 2)
        m.pinReference(0)
        #expect(m.reference == 0 && m.pinned == 0)
        // Pane 2 is 0.1 s behind the reference (pane 1): it speeds up, the reference is never paused.
        let cmd = m.step(t: 2, readings: r)
        #expect(cmd.holds.isEmpty && cmd.realigns.isEmpty && cmd.speeds[0] == 1 && cmd.speeds[2] > 1, "\(cmd)")
    }

    @Test("a pane that landed 0.8 s behind the reference reloads a landing margin past it, then is held; 0.2 s behind, it speeds up")
    func behindReference() throws {
        var m = MultiSync(count: 3)
        m.pinReference(2)
        let w = live(80, 120)
        let r = [
            SyncReading(pdt: at(99.2), playing: true, window: w), SyncReading(pdt: at(99.8), playing: true, window: w),
            SyncReading(pdt: at(100), playing: true, window: w),
        ]
        let cmd = m.step(t: 1, readings: r)
        #expect(cmd.realigns == [SyncRealign(pane: 0, to: at(100.5))] && m.actions.first == .forward(pane: 0), "\(cmd)")
        #expect(cmd.speeds[1] == 1.05 && cmd.speeds[2] == 1 && cmd.holds.isEmpty, "0.2 s behind: speed alone")
    }

    @Test("a pane without PDT leaves the lock with one line; the others stay locked on the reference")
    func noPDT() {
        var m = MultiSync(count: 3)
        var r = [SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(10), playing: true)]
        _ = m.step(t: 0.1, readings: r)
        r[1] = SyncReading(pdt: nil, playing: true, hasPDT: false)
        for i in 1...20 {
            let t = Double(i) * 0.05
            r[0].pdt = at(10 + t)
            r[2].pdt = at(10 + t)
            _ = m.step(t: 0.1 + t, readings: r)
        }
        #expect(m.reasons == ["pane 2 has no EXT-X-PROGRAM-DATE-TIME"])
        #expect(m.reference == 0 && m.pairs[2]?.state == .locked && m.state == .locked, "the others locked: \(m.state)")
    }

    @Test("a pane that rebuffers once the panes are together: the others wait for it, then all play on locked")
    func stalledPane() {
        var m = MultiSync(count: 3)
        var r = [SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(10), playing: true)]
        // Before the panes are together a stall is only a pane without a reading: nobody waits.
        r[1] = SyncReading(pdt: at(10), playing: false, stalled: true)
        #expect(m.step(t: 0.05, readings: r).waits.isEmpty)
        r[1] = SyncReading(pdt: at(10), playing: true)
        for i in 1...20 {
            _ = m.step(
                t: 0.05 + Double(i) * 0.05,
                readings: r.map {
                    var x = $0; x.pdt = at(10 + Double(i) * 0.05); return x
                })
        }
        #expect(m.state == .locked)
        r = r.map {
            var x = $0; x.pdt = at(11); return x
        }
        r[1] = SyncReading(pdt: at(11), playing: false, stalled: true)
        let wait = m.step(t: 1.2, readings: r)
        #expect(wait.waits == [0, 2] && wait.holds.isEmpty && wait.realigns.isEmpty && wait.speeds == [1, 1, 1])
        #expect(m.state == .waitingFor([1]) && m.state.label == "waiting for pane 2 (rebuffering)")
        // Pane 3's window is about to lose the segment after its buffer (less than a segment listed before it): it plays on.
        r[2].window = live(10.5, 20)
        r[2].window?.bufferedUntil = at(11.4)
        #expect(m.step(t: 1.25, readings: r).waits == [0])
        r[2].window = nil
        #expect(m.step(t: 1.3, readings: r).waits == [0], "let go until the stall ends")
        // It plays again: nobody waits any more; the panes are still together.
        r[1] = SyncReading(pdt: at(11), playing: true)
        let go = m.step(t: 3.5, readings: r)
        #expect(go.waits.isEmpty && go.holds.isEmpty && go.realigns.isEmpty)
        #expect(m.state == .locked || m.state == .steering)
        // Switched off meanwhile: nobody is kept waiting.
        r[1] = SyncReading(pdt: at(11), playing: false, stalled: true)
        m.enabled = false
        #expect(m.step(t: 3.6, readings: r).waits.isEmpty)
    }

    @Test("a pane whose playhead has no PDT leaves the lock with one line and rejoins when PDT comes back")
    func pdtLostAndBack() {
        var m = MultiSync(count: 2)
        var r = [SyncReading(pdt: at(10), playing: true), SyncReading(pdt: at(10), playing: true)]
        var t = 0.0
        func run(_ steps: Int) {
            for _ in 0..<steps {
                t += 0.05
                r[0].pdt = r[0].pdt.map { $0.adding(seconds: 0.05) }
                r[1].pdt = r[1].pdt.map { $0.adding(seconds: 0.05) }
                _ = m.step(t: t, readings: r)
            }
        }
        run(20)
        #expect(m.state == .locked)
        r[1] = SyncReading(pdt: nil, playing: true, hasPDT: false)
        run(5)
        #expect(m.state == .off("pane 2 has no EXT-X-PROGRAM-DATE-TIME") && m.reasons.count == 1)
        r[1] = SyncReading(pdt: r[0].pdt, playing: true)
        run(20)
        #expect(m.state == .locked && m.reasons.isEmpty)
    }

    @Test("two panes keep the two-pane controller: either may be moved")
    func two() {
        var m = MultiSync(count: 2)
        let cmd = m.step(t: 1, readings: [SyncReading(pdt: at(8), playing: true), SyncReading(pdt: at(0), playing: true)])
        #expect(m.reference == 0 && cmd.realigns == [SyncRealign(pane: 1, to: at(8))] && m.actions == [.forward(pane: 1)])
    }
}
