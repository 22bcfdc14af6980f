import Foundation
import HLS
import NIOConcurrencyHelpers
import Session

/// What the sync strip and the monitor show: the controller's state, the offset, the speeds and each playhead's PDT.
public struct SyncSnapshot: Sendable {
    public var state: SyncState
    public var offset: Double?
    public var speeds: [Double]
    public var pdts: [DateTime?]
    /// What was done last to bring the panes together.
    public var action: SyncAction?
}

/// Starts two panes on a common PDT and keeps them there: the pure `SyncController` decides, this applies.
public final class SyncRunner: Sendable {
    let panes: [Pane]
    let controller = NIOLockedValueBox(SyncController())
    let latest = NIOLockedValueBox(SyncSnapshot(state: .waiting, offset: nil, speeds: [1, 1], pdts: [nil, nil], action: nil))
    let started: ContinuousClock.Instant
    let task = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// The speeds last given to the players.
    let applied = NIOLockedValueBox<[Double]>([1, 1])

    public init(panes: [Pane], started: ContinuousClock.Instant) {
        self.panes = panes
        self.started = started
    }

    /// The latest state, for the strip and the `sync` events.
    public var snapshot: SyncSnapshot { latest.withLockedValue { $0 } }

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

    public func stop() { task.withLockedValue { $0?.cancel() } }

    /// Switches the lock on or off (off: both at normal speed, from the next step, at most 50 ms later).
    public func toggle() {
        controller.withLockedValue { $0.enabled.toggle() }
    }

    func step() async {
        guard panes.count == 2 else { return }
        // Both playheads are read back to back; pane 1's reading is carried forward to the moment of pane 2's (at its speed),
        // so the time between the two reads does not count as offset.
        let a = await panes[0].clock(), b = await panes[1].clock()
        let t = Pane.seconds(ContinuousClock.now - started)
        let before = applied.withLockedValue { $0 }
        let aPDT = a.playing ? a.pdt.map { $0.adding(seconds: Pane.seconds(b.at - a.at) * before[0]) } : a.pdt
        let (cmd, offset) = controller.withLockedValue { c in
            (
                c.step(
                    t: t, pdts: [aPDT, b.pdt], playing: [a.playing, b.playing], hasPDT: [a.hasPDT ?? true, b.hasPDT ?? true],
                    windows: [a.window, b.window]), c.offset
            )
        }
        for (i, s) in cmd.speeds.enumerated() where abs(s - before[i]) > 0.0002 || (s == 1 && before[i] != 1) {
            panes[i].setSpeed(s)
            applied.withLockedValue { $0[i] = s }
        }
        if let h = cmd.hold { panes[h.pane].hold(seconds: h.seconds) }
        if let r = cmd.realign, await !panes[r.pane].realign(to: r.to) {
            // The window moved on between the reading and the reload.
            let apart = offset.map { DurationText.words(abs($0)) } ?? "far"
            let w = { (i: Int, c: PaneClock) in c.window.map { "pane \(i + 1) lists \($0.text)" } ?? "pane \(i + 1)'s window unknown" }
            controller.withLockedValue {
                $0.giveUp("no moment in common (\(apart) apart): pane \(r.pane + 1) has no segment at \(r.to); \(w(0, a)), \(w(1, b))")
            }
        }
        let (now, action) = controller.withLockedValue { ($0.state, $0.action) }
        latest.withLockedValue { $0 = SyncSnapshot(state: now, offset: offset, speeds: cmd.speeds, pdts: [aPDT, b.pdt], action: action) }
    }
}
