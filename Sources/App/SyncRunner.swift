import Foundation
import HLS
import NIOConcurrencyHelpers
import Session

/// What the sync strip and the monitor show: the state, the largest offset, each pane's offset, speed and PDT, the
/// reference clock and what was done.
public struct SyncSnapshot: Sendable {
    public var state: SyncState
    /// Two panes: seconds pane 1 is ahead of pane 2; more: the largest distance from the reference.
    public var offset: Double?
    /// Seconds each pane is ahead of the reference (the reference: 0).
    public var offsets: [Double?]
    public var speeds: [Double]
    public var pdts: [DateTime?]
    public var reference: Int?
    /// What was done last to bring the panes together.
    public var actions: [SyncAction]
    /// Why panes are out of the lock, one line each.
    public var reasons: [String]
    /// Each pane's offset from the reference over the last minutes (the history plots).
    public var history: [Series] = []

    static func waiting(_ n: Int) -> SyncSnapshot {
        SyncSnapshot(
            state: .waiting, offset: nil, offsets: Array(repeating: nil, count: n), speeds: Array(repeating: 1, count: n),
            pdts: Array(repeating: nil, count: n), reference: nil, actions: [], reasons: [])
    }
}

/// Starts two to four panes on a common PDT and keeps them there: the pure `MultiSync` decides, this reads the panes'
/// clocks and applies what it says.
public final class SyncRunner: Sendable {
    let panes: [Pane]
    let controller: NIOLockedValueBox<MultiSync>
    let latest: NIOLockedValueBox<SyncSnapshot>
    let started: ContinuousClock.Instant
    let task = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// The speeds last given to the players.
    let applied: NIOLockedValueBox<[Double]>
    /// The panes kept paused while another rebuffers.
    let waiting = NIOLockedValueBox<Set<Int>>([])

    public init(panes: [Pane], started: ContinuousClock.Instant, enabled: Bool = true, reference: Int? = nil) {
        self.panes = panes
        self.started = started
        var c = MultiSync(count: panes.count)
        c.enabled = enabled
        if let reference { c.pinReference(reference) }
        controller = NIOLockedValueBox(c)
        latest = NIOLockedValueBox(.waiting(panes.count))
        applied = NIOLockedValueBox(Array(repeating: 1, count: panes.count))
    }

    /// Seconds before a move that found no segment at its moment is tried again.
    static let retryAfter = 5.0

    /// The latest state, for the strip and the `sync` events.
    public var snapshot: SyncSnapshot { latest.withLockedValue { $0 } }

    /// Whether the lock is on, and the reference the user chose: what a runner for more panes starts from.
    public var settings: (enabled: Bool, reference: Int?) { controller.withLockedValue { ($0.enabled, $0.pinned) } }

    /// Starts the control loop (every 50 ms).
    public func start() {
        let t = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                await self?.step()
            }
        }
        task.withLockedValue { $0 = t }
    }

    /// Stops the loop; every pane plays on at normal speed.
    public func stop() {
        task.withLockedValue { $0?.cancel() }
        for p in panes { p.setSpeed(1) }
        for i in waiting.withLockedValue({ $0 }) { panes[i].wait(false) }
        waiting.withLockedValue { $0 = [] }
    }

    /// Switches the lock on or off (off: all at normal speed, from the next step, at most 50 ms later).
    public func toggle() { controller.withLockedValue { $0.enabled.toggle() } }

    /// Makes `pane` the reference clock (`r`).
    public func pinReference(_ pane: Int) { controller.withLockedValue { $0.pinReference(pane) } }

    func step() async {
        guard panes.count >= 2 else { return }
        // The playheads are read back to back; each reading is carried forward to the moment of the last (at its speed), so
        // the time between the reads does not count as offset.
        var clocks: [PaneClock] = []
        for p in panes { clocks.append(await p.clock()) }
        let t = Pane.seconds(ContinuousClock.now - started)
        let before = applied.withLockedValue { $0 }
        let last = clocks[clocks.count - 1].at
        let readings = clocks.enumerated().map { i, c in
            SyncReading(
                pdt: c.playing ? c.pdt.map { $0.adding(seconds: Pane.seconds(last - c.at) * before[i]) } : c.pdt, playing: c.playing,
                hasPDT: c.hasPDT ?? true, window: c.window, stalled: c.stalled)
        }
        let (cmd, offset) = controller.withLockedValue { c in (c.step(t: t, readings: readings), c.offset) }
        for (i, s) in cmd.speeds.enumerated() where abs(s - before[i]) > 0.0002 || (s == 1 && before[i] != 1) {
            panes[i].setSpeed(s)
            applied.withLockedValue { $0[i] = s }
        }
        let waited = waiting.withLockedValue { w in
            defer { w = cmd.waits }
            return w
        }
        for i in cmd.waits.subtracting(waited) { panes[i].wait(true) }
        for i in waited.subtracting(cmd.waits) { panes[i].wait(false) }
        for h in cmd.holds { panes[h.pane].hold(seconds: h.seconds) }
        for r in cmd.realigns where await !panes[r.pane].realign(to: r.to, readAt: last) {
            // The window moved on between the reading and the reload.
            let apart = offset.map { DurationText.words(abs($0)) } ?? "far"
            let w = { (i: Int) in clocks[i].window.map { "pane \(i + 1) lists \($0.text)" } ?? "pane \(i + 1)'s window unknown" }
            let listed = (0..<panes.count).map(w).joined(separator: ", ")
            controller.withLockedValue {
                // Tried again after a while: the window spanned the moment, so segments there may only lack PDT for now.
                $0.giveUp(
                    pane: r.pane, "no moment in common (\(apart) apart): pane \(r.pane + 1) has no segment at \(r.to); \(listed)",
                    retryAt: t + Self.retryAfter)
            }
        }
        let snap = controller.withLockedValue { c in
            SyncSnapshot(
                state: c.state, offset: c.offset, offsets: c.offsets, speeds: cmd.speeds, pdts: readings.map(\.pdt), reference: c.reference,
                actions: c.actions, reasons: c.reasons)
        }
        latest.withLockedValue { l in
            var s = snap
            s.history = l.history.count == snap.offsets.count ? l.history : Array(repeating: Series(), count: snap.offsets.count)
            for (i, o) in snap.offsets.enumerated() { s.history[i].record(snap.state == .waiting ? nil : o, at: t) }
            l = s
        }
    }
}
