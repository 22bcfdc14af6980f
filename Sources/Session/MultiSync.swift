import HLS

/// One pane's reading for the sync controllers: its playhead's PDT, whether it advances, whether its stream has PDT, what its
/// playlist lists.
public struct SyncReading: Sendable, Equatable {
    public var pdt: DateTime?
    public var playing: Bool
    public var hasPDT: Bool
    public var window: SyncWindow?
    /// The player waits for data (rebuffering, or stopped at the end of what its origin gave), not a pause of anyone's.
    public var stalled: Bool
    /// The reading advances between video frames (the audio clock, or the wall clock itself): exact to a millisecond, where a
    /// playhead read from `time-pos` moves a frame at a time (docs/SYNC.md, measuring).
    public var continuous: Bool
    public init(
        pdt: DateTime?, playing: Bool, hasPDT: Bool = true, window: SyncWindow? = nil, stalled: Bool = false, continuous: Bool = false
    ) {
        self.pdt = pdt
        self.playing = playing
        self.hasPDT = hasPDT
        self.window = window
        self.stalled = stalled
        self.continuous = continuous
    }
}

/// What the panes are told at one step: a speed each, panes to hold, panes to reload at a moment.
public struct SyncCommands: Sendable, Equatable {
    public var speeds: [Double]
    public var holds: [SyncHold] = []
    public var realigns: [SyncRealign] = []
    /// Panes to keep paused while others rebuffer (every other pane is let go).
    public var waits: Set<Int> = []
}

public struct SyncHold: Sendable, Equatable {
    public var pane: Int
    public var seconds: Double
}

public struct SyncRealign: Sendable, Equatable {
    public var pane: Int
    public var to: DateTime
}

/// Two to four panes on one wall clock (EXT-X-PROGRAM-DATE-TIME, RFC 8216bis §4.4.4.6). Two panes: one `SyncController`
/// that may move either. More: one reference clock — by default the pane with the most latency, once every pane has a PDT;
/// `pinReference` chooses it — and one controller per other pane against it, which moves only that pane; pure.
public struct MultiSync: Sendable {
    public private(set) var count: Int
    public private(set) var reference: Int?
    /// The reference the user chose (`r`), kept while that pane exists.
    public private(set) var pinned: Int?
    /// One controller per pane but the reference (two panes: one for pane 2 against pane 1).
    public private(set) var pairs: [Int: SyncController] = [:]
    public var enabled = true {
        didSet {
            for k in pairs.keys { pairs[k]?.enabled = enabled }
            stalled = []
        }
    }
    /// Panes that stalled once the others were brought to them: the others wait (paused) until these play again, so all
    /// resume together and the offset the stall would make never opens.
    public private(set) var stalled: [Int] = []
    /// Panes that stopped waiting because their window would no longer keep their playhead.
    var released: Set<Int> = []
    /// The reference's own move at the start (forward to a moment every pane can play on from), shown until the lock.
    public private(set) var lead: SyncAction?
    /// How far past the reference's moment the panes moved with it at the start are moved (seconds). Every target runs on
    /// with the wall clock until its reload's cache holds it, so what spreads the landings is only each player's seek and
    /// restart; a pane that lands behind the reference is never held in its place but moved again (or, within
    /// `steerLimit`, sped up for seconds), so this is wider than `SyncController.landingMargin`.
    public static let landingMargin = 0.75

    /// The latest moment every pane can play on from: two target durations before the nearest live edge (RFC 8216bis §6.3.3
    /// asks three of a first start; DECISIONS.md, sync); nil when a window is not known or not live. A pane whose window
    /// starts after it is ahead of it and is held or moved back part of the way.
    public static func commonMoment(_ windows: [SyncWindow?]) -> DateTime? {
        let ws = windows.compactMap { $0 }
        guard ws.count == windows.count, ws.allSatisfy(\.live) else { return nil }
        return ws.map { $0.end.adding(seconds: -$0.edgeMargin) }.min { $0.seconds(since: $1) < 0 }
    }

    /// The reference's move at the start and the panes moved with it. The reference comes forward to the latest moment every
    /// pane can play on from (`commonMoment`), when that is a second or more ahead of it: the others then move back or wait a
    /// short while, not for the whole latency of the slowest feed (less latency is preferred when monitoring). The others move
    /// in the same step when they will have to move once it lands (further ahead of it than a hold is worth, or behind it),
    /// each `landingMargin` past the moment: every target runs on with the clock during its reload, so each lands just ahead
    /// of it and is held the difference — one reload's time sooner than moving them after it lands.
    ///
    /// Just before a discontinuity a reload does not seek and starts at the discontinuity (`SyncWindow.landing`), up to
    /// `SyncWindow.breakMargin` past its aim: a pane moved there is held that much longer. So the moment is chosen among the
    /// common moment and the moments up to the longest target duration before it where a pane's target lies just outside that
    /// margin: the one whose longest hold is shortest, the latest of equal ones. Nil when the reference need not come forward.
    static func start(common: DateTime, reference r: Int, readings: [SyncReading], pairs: [Int: SyncController])
        -> (moment: DateTime, targets: [Int: DateTime])?
    {
        guard let p = readings[r].pdt else { return nil }
        let lookBack = readings.compactMap { $0.window?.targetDuration }.max() ?? 0
        var candidates = [common]
        for (i, reading) in readings.enumerated() {
            for b in reading.window?.breaks ?? [] {
                let c = b.adding(seconds: -SyncWindow.breakMargin - (i == r ? 0 : landingMargin))
                let before = common.seconds(since: c)
                if before > 0 && before <= lookBack { candidates.append(c) }
            }
        }
        var best: (moment: DateTime, targets: [Int: DateTime], hold: Double)?
        for c in candidates {
            // Where the reference lands, aimed at `c`: before a discontinuity at its segment's first frame.
            let m = readings[r].window?.exactLanding(near: c) ?? c
            guard m.seconds(since: p) >= 1 else { continue }
            var targets: [Int: DateTime] = [:]
            var longest = 0.0
            for i in readings.indices where i != r {
                guard let c = pairs[i], let q = readings[i].pdt else { continue }
                // Both play on at the same pace once the reference lands (its target runs on with the clock meanwhile).
                let after = q.seconds(since: m)
                let target = [m.adding(seconds: landingMargin), m].first { readings[i].window?.canStart(at: $0) ?? true }
                let lands = target.map { readings[i].window?.landing(aimedAt: $0) ?? $0 }.map { $0.seconds(since: m) }
                // Held where it is when that is no longer than a hold is worth and a move would not save a reload's time.
                if after >= 0, after <= c.realignThreshold, lands.map({ $0 < 0 || after - $0 < c.minimumSaving }) ?? true {
                    longest = max(longest, after)
                    continue
                }
                guard let target, let lands else { continue }
                // Landing behind the reference it would be moved again: chosen only when no moment avoids it.
                longest = max(longest, lands < 0 ? 1000 - lands : lands)
                targets[i] = target
            }
            let chosen = best.map { b in longest < b.hold - 0.1 || (longest <= b.hold + 0.1 && m.seconds(since: b.moment) > 0) } ?? true
            if chosen { best = (m, targets, longest) }
        }
        return best.map { ($0.moment, $0.targets) }
    }

    /// The reference is a clock, not a pane (`LatencySync`): it is never moved, and no pane waits for another that stalls —
    /// each follows the clock on its own.
    public private(set) var clockReference = false

    public init(count: Int) {
        self.count = max(2, count)
        if self.count == 2 { use(reference: 0) }
    }

    /// `count` entries of which `clock` is a clock every other follows (`LatencySync`): never moved, never waited for.
    public init(count: Int, clock: Int) {
        self.count = max(2, count)
        clockReference = true
        pinReference(clock)
    }

    /// Makes `pane` the reference clock: every other pane is brought to it anew.
    public mutating func pinReference(_ pane: Int) {
        guard pane >= 0, pane < count else { return }
        pinned = pane
        use(reference: pane)
    }

    mutating func use(reference r: Int) {
        reference = r
        pairs = [:]
        for i in 0..<count where i != r {
            var c = SyncController()
            c.panes = [r, i]
            c.movable = count == 2 && !clockReference ? [true, true] : [false, true]
            c.enabled = enabled
            pairs[i] = c
        }
    }

    /// One step at session time `t` with every pane's reading.
    public mutating func step(t: Double, readings: [SyncReading]) -> SyncCommands {
        var out = SyncCommands(speeds: Array(repeating: 1, count: count))
        guard readings.count == count else { return out }
        if reference == nil {
            // The pane with the most latency: the earliest moment on the wall clock, once every pane has one.
            let pdts = readings.compactMap(\.pdt)
            guard pdts.count == count, let earliest = pdts.indices.min(by: { pdts[$0].seconds(since: pdts[$1]) < 0 }) else { return out }
            use(reference: earliest)
            // The reference first comes forward to the latest moment every pane can play on from, when that is later: the
            // others then move back or wait a short while, not for the whole latency of the slowest feed (less latency is
            // preferred when monitoring).
            if count > 2, let common = Self.commonMoment(readings.map(\.window)),
                let plan = Self.start(common: common, reference: earliest, readings: readings, pairs: pairs)
            {
                lead = .forward(pane: earliest)
                out.realigns.append(SyncRealign(pane: earliest, to: plan.moment))
                for (i, target) in plan.targets.sorted(by: { $0.key < $1.key }) {
                    guard var c = pairs[i], let q = readings[i].pdt else { continue }
                    c.moved(at: t, from: q, to: target)
                    pairs[i] = c
                    out.realigns.append(SyncRealign(pane: i, to: target))
                }
                return out
            }
        }
        guard let r = reference else { return out }
        // A pane that rebuffers after the panes were together: the others wait for it, the controllers are not stepped.
        let together = !stalled.isEmpty || pairs.values.contains { $0.state == .locked || $0.state == .steering }
        let now = (0..<count).filter { readings[$0].stalled }
        if enabled, !clockReference, together, !now.isEmpty, now.count < count {
            stalled = now
            // A pane waits while its window keeps what it needs next; past that it plays on (let go until the stall ends) and
            // is brought back like any pane once the other plays again.
            for i in 0..<count where !now.contains(i) && !released.contains(i) {
                let r = readings[i]
                let keeps = r.window.map { w in r.pdt.map { w.canHold(at: $0, bufferedUntil: w.bufferedUntil) } ?? true } ?? true
                if keeps { out.waits.insert(i) } else { released.insert(i) }
            }
            return out
        }
        stalled = []
        released = []
        for i in pairs.keys.sorted() {
            guard var c = pairs[i] else { continue }
            let pair = [readings[r], readings[i]]
            let cmd = c.step(
                t: t, pdts: pair.map(\.pdt), playing: pair.map(\.playing), hasPDT: pair.map(\.hasPDT), windows: pair.map(\.window),
                continuous: pair.map(\.continuous))
            pairs[i] = c
            // The pair's pane 0 is the reference: in two-pane mode it may be moved; beside more panes it never is.
            if count == 2 { out.speeds[r] = cmd.speeds[0] }
            out.speeds[i] = cmd.speeds[1]
            if let h = cmd.hold { out.holds.append(SyncHold(pane: c.panes[h.pane], seconds: h.seconds)) }
            if let a = cmd.realign { out.realigns.append(SyncRealign(pane: c.panes[a.pane], to: a.to)) }
        }
        // The reference's move at the start is shown until the lock, not again whenever a pane leaves it later.
        if state == .locked { lead = nil }
        return out
    }

    /// Gives up bringing `pane` to the reference (its reload found no segment at the moment asked).
    public mutating func giveUp(pane: Int, _ why: String, retryAt: Double? = nil) {
        // The reference's own move at the start: the others are brought to wherever it is.
        guard pane != reference || count == 2 else { return }
        if let k = pairs.first(where: { $0.value.panes.contains(pane) })?.key { pairs[k]?.giveUp(why, retryAt: retryAt) }
    }

    /// The state of the whole: locked when every pane is; off when every pane is off (with the first reason); else the least
    /// advanced pane's.
    public var state: SyncState {
        if !stalled.isEmpty { return .waitingFor(stalled) }
        return Self.combined(pairs.keys.sorted().compactMap { pairs[$0]?.state })
    }

    /// The state of several controllers together: locked when every one is; off when every one is off (the first one's
    /// reason); else the least advanced one's.
    static func combined(_ states: [SyncState]) -> SyncState {
        guard !states.isEmpty else { return .waiting }
        if states.allSatisfy({ if case .off = $0 { return true } else { return false } }) { return states[0] }
        let order: [SyncState] = [.waiting, .aligning, .steering, .locked]
        return order.first { o in states.contains(o) } ?? states[0]
    }

    /// Seconds each pane is ahead of the reference (the reference: 0; nil: no reading yet).
    public var offsets: [Double?] {
        (0..<count).map { i in i == reference ? 0 : pairs[i]?.offset.map { -$0 } }
    }

    /// The largest distance between a pane and the reference.
    public var offset: Double? {
        count == 2 ? pairs[1]?.offset : offsets.compactMap { $0 }.max { abs($0) < abs($1) }
    }

    /// What was done last for each pane (two panes: the one controller's).
    public var actions: [SyncAction] {
        let each = pairs.keys.sorted().compactMap { pairs[$0]?.action }
        return state == .locked ? each : (lead.map { [$0] } ?? []) + each
    }

    /// Why panes are out of the lock, one line each.
    public var reasons: [String] {
        pairs.keys.sorted().compactMap { k in if case .off(let why)? = pairs[k]?.state { return why } else { return nil } }
    }
}
