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
}

/// Starts two panes on a common PDT and keeps them there: the pure `SyncController` decides, this applies.
public final class SyncRunner: Sendable {
    let panes: [Pane]
    let controller = NIOLockedValueBox(SyncController())
    let latest = NIOLockedValueBox(SyncSnapshot(state: .waiting, offset: nil, speeds: [1, 1], pdts: [nil, nil]))
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
            (c.step(t: t, pdts: [aPDT, b.pdt], playing: [a.playing, b.playing], hasPDT: [a.hasPDT ?? true, b.hasPDT ?? true]), c.offset)
        }
        for (i, s) in cmd.speeds.enumerated() where abs(s - before[i]) > 0.0002 || (s == 1 && before[i] != 1) {
            panes[i].setSpeed(s)
            applied.withLockedValue { $0[i] = s }
        }
        if let h = cmd.hold { panes[h.pane].hold(seconds: h.seconds) }
        if let r = cmd.realign, await !panes[r.pane].realign(to: r.to) {
            let apart = offset.map { DurationText.words(abs($0)) } ?? "far"
            controller.withLockedValue {
                $0.giveUp("no moment in common: pane \(r.pane + 1)'s window does not reach the other's PDT (\(apart) apart)")
            }
        }
        let now = controller.withLockedValue { $0.state }
        latest.withLockedValue { $0 = SyncSnapshot(state: now, offset: offset, speeds: cmd.speeds, pdts: [aPDT, b.pdt]) }
    }
}

/// Durations in words for one-line messages: "4.2 s", "12 min", "3 h", "41 days".
enum DurationText {
    static func words(_ s: Double) -> String {
        if s < 120 { return fixed(s, 1) + " s" }
        if s < 7200 { return "\(Int(s / 60)) min" }
        if s < 172_800 { return "\(Int(s / 3600)) h" }
        return "\(Int(s / 86400)) days"
    }
}
