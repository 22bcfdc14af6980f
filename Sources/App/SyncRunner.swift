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
    /// `--latency`: the seconds behind the wall clock every pane follows (nil while `auto` has not chosen yet, and without
    /// `--latency`); `offsets` are then each pane's error against it (positive: ahead, less latency than asked).
    public var latency: Double?
    public var followsClock = false

    static func waiting(_ n: Int) -> SyncSnapshot {
        SyncSnapshot(
            state: .waiting, offset: nil, offsets: Array(repeating: nil, count: n), speeds: Array(repeating: 1, count: n),
            pdts: Array(repeating: nil, count: n), reference: nil, actions: [], reasons: [])
    }
}

/// Starts two to four panes on a common PDT and keeps them there: the pure `MultiSync` decides, this reads the panes'
/// clocks and applies what it says. One owner loop (as a pane's, docs/ARCHITECTURE.md) holds the controller, the speeds
/// given and the panes kept waiting; commands reach it as inputs; it publishes the snapshot the screen reads. `stop`
/// asks it to end (every pane back at normal speed, none kept waiting); `stopped` waits until it has.
public final class SyncRunner: Sendable {
    let panes: [Pane]
    let started: ContinuousClock.Instant
    enum Input: Sendable { case tick, toggle, pinReference(Int), stop }
    private let inputs: AsyncStream<Input>.Continuation
    private let stream: AsyncStream<Input>
    private let initial: SyncControl
    /// The loop's task, from `start`.
    private let loop = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// What the loop published last: the strip's snapshot, and the lock's settings as the user left them.
    private let published: NIOLockedValueBox<(snapshot: SyncSnapshot, enabled: Bool, reference: Int?)>

    /// `latency`: every pane follows the wall clock less that (`LatencySync`, one pane or more) instead of the others.
    public init(
        panes: [Pane], started: ContinuousClock.Instant, enabled: Bool = true, reference: Int? = nil, latency: LatencySync.Target? = nil
    ) {
        self.panes = panes
        self.started = started
        if let latency {
            var l = LatencySync(count: panes.count, target: latency)
            l.enabled = enabled
            initial = .clock(l)
        } else {
            var c = MultiSync(count: panes.count)
            c.enabled = enabled
            if let reference { c.pinReference(reference) }
            initial = .panes(c)
        }
        (stream, inputs) = AsyncStream.makeStream(of: Input.self)
        var waiting = SyncSnapshot.waiting(panes.count)
        waiting.followsClock = latency != nil
        if case .seconds(let s)? = latency { waiting.latency = s }
        published = NIOLockedValueBox((waiting, enabled, reference))
    }

    /// Seconds before a move that found no segment at its moment is tried again.
    static let retryAfter = 5.0

    /// The latest state, for the strip and the `sync` events.
    public var snapshot: SyncSnapshot { published.withLockedValue { $0.snapshot } }

    /// Whether the lock is on, and the reference the user chose: what a runner for more panes starts from.
    public var settings: (enabled: Bool, reference: Int?) { published.withLockedValue { ($0.enabled, $0.reference) } }

    /// Starts the loop: a step every 50 ms, each after the last is done.
    public func start() {
        let t = Task { [panes, started, initial, inputs, published, stream] in
            var owner = SyncOwner(panes: panes, started: started, controller: initial, inputs: inputs, published: published)
            await owner.run(stream)
        }
        loop.withLockedValue { $0 = t }
    }

    /// Asks the loop to end: every pane plays on at normal speed (from any thread; `stopped` waits for it).
    public func stop() { inputs.yield(.stop) }

    /// Stops the loop and returns once it has ended.
    public func stopped() async {
        stop()
        await loop.withLockedValue({ $0 })?.value
    }

    /// Switches the lock on or off (off: all at normal speed, from the next step, at most 50 ms later).
    public func toggle() { inputs.yield(.toggle) }

    /// Makes `pane` the reference clock (`r`).
    public func pinReference(_ pane: Int) { inputs.yield(.pinReference(pane)) }
}

/// What decides: the panes kept on each other (`MultiSync`), or each on the wall clock less a latency (`LatencySync`).
enum SyncControl: Sendable {
    case panes(MultiSync)
    case clock(LatencySync)

    var enabled: Bool {
        get {
            switch self {
            case .panes(let m): return m.enabled
            case .clock(let l): return l.enabled
            }
        }
        set {
            switch self {
            case .panes(var m):
                m.enabled = newValue
                self = .panes(m)
            case .clock(var l):
                l.enabled = newValue
                self = .clock(l)
            }
        }
    }

    /// The reference the user chose (`r`): none when the wall clock is the reference.
    var pinned: Int? {
        if case .panes(let m) = self { return m.pinned }
        return nil
    }

    mutating func pinReference(_ pane: Int) {
        guard case .panes(var m) = self else { return }
        m.pinReference(pane)
        self = .panes(m)
    }

    mutating func giveUp(pane: Int, _ why: String, retryAt: Double?) {
        guard case .panes(var m) = self else { return }
        m.giveUp(pane: pane, why, retryAt: retryAt)
        self = .panes(m)
    }

    /// One step: `wall` is the wall clock at the moment of the readings.
    mutating func step(t: Double, wall: DateTime, readings: [SyncReading]) -> SyncCommands {
        switch self {
        case .panes(var m):
            let c = m.step(t: t, readings: readings)
            self = .panes(m)
            return c
        case .clock(var l):
            let c = l.step(t: t, wall: wall, readings: readings)
            self = .clock(l)
            return c
        }
    }

    func snapshot(speeds: [Double], pdts: [DateTime?]) -> SyncSnapshot {
        switch self {
        case .panes(let c):
            return SyncSnapshot(
                state: c.state, offset: c.offset, offsets: c.offsets, speeds: speeds, pdts: pdts, reference: c.reference,
                actions: c.actions, reasons: c.reasons)
        case .clock(let l):
            var s = SyncSnapshot(
                state: l.state, offset: l.error, offsets: l.errors, speeds: speeds, pdts: pdts, reference: nil, actions: l.actions,
                reasons: l.reasons)
            s.latency = l.latency
            s.followsClock = true
            return s
        }
    }

    /// Steps with one pane too (the clock is the other).
    var needsTwo: Bool { if case .panes = self { return true } else { return false } }
}

/// The sync loop: its state lives in its task alone (`SyncRunner.start`), no lock.
struct SyncOwner {
    let panes: [Pane]
    let started: ContinuousClock.Instant
    let inputs: AsyncStream<SyncRunner.Input>.Continuation
    let published: NIOLockedValueBox<(snapshot: SyncSnapshot, enabled: Bool, reference: Int?)>
    var controller: SyncControl
    /// The speeds last given to the players.
    var applied: [Double]
    /// The panes kept paused while another rebuffers.
    var waiting: Set<Int> = []

    init(
        panes: [Pane], started: ContinuousClock.Instant, controller: SyncControl, inputs: AsyncStream<SyncRunner.Input>.Continuation,
        published: NIOLockedValueBox<(snapshot: SyncSnapshot, enabled: Bool, reference: Int?)>
    ) {
        (self.panes, self.started, self.inputs, self.published, self.controller) = (panes, started, inputs, published, controller)
        applied = Array(repeating: 1, count: panes.count)
    }

    /// Until `.stop`: one tick outstanding at a time — the next is asked for when a step is done, so steps never pile up.
    mutating func run(_ stream: AsyncStream<SyncRunner.Input>) async {
        let inputs = self.inputs
        let tick: @Sendable () async -> Void = {
            try? await Task.sleep(for: .milliseconds(50))
            inputs.yield(.tick)
        }
        await withDiscardingTaskGroup { g in
            g.addTask(operation: tick)
            for await input in stream {
                switch input {
                case .tick:
                    await step()
                    g.addTask(operation: tick)
                case .toggle:
                    controller.enabled.toggle()
                    publishSettings()
                case .pinReference(let p):
                    controller.pinReference(p)
                    publishSettings()
                case .stop:
                    release()
                    inputs.finish()
                    g.cancelAll()
                    return
                }
            }
        }
    }

    func publishSettings() {
        let (enabled, reference) = (controller.enabled, controller.pinned)
        published.withLockedValue { ($0.enabled, $0.reference) = (enabled, reference) }
    }

    /// Every pane plays on at normal speed, none kept waiting.
    mutating func release() {
        for p in panes { p.setSpeed(1) }
        for i in waiting { panes[i].wait(false) }
        waiting = []
    }

    mutating func step() async {
        guard panes.count >= (controller.needsTwo ? 2 : 1) else { return }
        // The playheads are read back to back; each reading is carried forward to the moment of the last (at its speed), so
        // the time between the reads does not count as offset.
        var clocks: [PaneClock] = []
        for p in panes { clocks.append(await p.clock()) }
        let t = Pane.seconds(ContinuousClock.now - started)
        let before = applied
        let last = clocks[clocks.count - 1].at
        let readings = clocks.enumerated().map { i, c in
            SyncReading(
                pdt: c.playing ? c.pdt.map { $0.adding(seconds: Pane.seconds(last - c.at) * before[i]) } : c.pdt, playing: c.playing,
                hasPDT: c.hasPDT ?? true, window: c.window, stalled: c.stalled, continuous: c.continuous)
        }
        // The wall clock at the moment of the last reading (`--latency`: the clock every pane follows).
        let wall = DateTime(seconds: Date().timeIntervalSince1970 - Pane.seconds(ContinuousClock.now - last))
        let cmd = controller.step(t: t, wall: wall, readings: readings)
        let offset = controller.snapshot(speeds: [], pdts: []).offset
        for (i, s) in cmd.speeds.enumerated() where abs(s - before[i]) > 0.0002 || (s == 1 && before[i] != 1) {
            panes[i].setSpeed(s)
            applied[i] = s
        }
        for i in cmd.waits.subtracting(waiting) { panes[i].wait(true) }
        for i in waiting.subtracting(cmd.waits) { panes[i].wait(false) }
        waiting = cmd.waits
        for h in cmd.holds { panes[h.pane].hold(seconds: h.seconds) }
        for r in cmd.realigns where await !panes[r.pane].realign(to: r.to, readAt: last) {
            // The window moved on between the reading and the reload.
            let apart = offset.map { DurationText.words(abs($0)) } ?? "far"
            let w = { (i: Int) in clocks[i].window.map { "pane \(i + 1) lists \($0.text)" } ?? "pane \(i + 1)'s window unknown" }
            let listed = (0..<panes.count).map(w).joined(separator: ", ")
            // Tried again after a while: the window spanned the moment, so segments there may only lack PDT for now.
            controller.giveUp(
                pane: r.pane, "no moment in common (\(apart) apart): pane \(r.pane + 1) has no segment at \(r.to); \(listed)",
                retryAt: t + SyncRunner.retryAfter)
        }
        let snap = controller.snapshot(speeds: cmd.speeds, pdts: readings.map(\.pdt))
        published.withLockedValue { l in
            var s = snap
            s.history =
                l.snapshot.history.count == snap.offsets.count ? l.snapshot.history : Array(repeating: Series(), count: snap.offsets.count)
            for (i, o) in snap.offsets.enumerated() { s.history[i].record(snap.state == .waiting ? nil : o, at: t) }
            l.snapshot = s
        }
    }
}
