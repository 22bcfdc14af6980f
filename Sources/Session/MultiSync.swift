import HLS

/// One pane's reading for the sync controllers: its playhead's PDT, whether it advances, whether its stream has PDT, what its
/// playlist lists.
public struct SyncReading: Sendable, Equatable {
    public var pdt: DateTime?
    public var playing: Bool
    public var hasPDT: Bool
    public var window: SyncWindow?
    public init(pdt: DateTime?, playing: Bool, hasPDT: Bool = true, window: SyncWindow? = nil) {
        self.pdt = pdt
        self.playing = playing
        self.hasPDT = hasPDT
        self.window = window
    }
}

/// What the panes are told at one step: a speed each, panes to hold, panes to reload at a moment.
public struct SyncCommands: Sendable, Equatable {
    public var speeds: [Double]
    public var holds: [SyncHold] = []
    public var realigns: [SyncRealign] = []
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
        didSet { for k in pairs.keys { pairs[k]?.enabled = enabled } }
    }

    public init(count: Int) {
        self.count = max(2, count)
        if self.count == 2 { use(reference: 0) }
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
            c.movable = count == 2 ? [true, true] : [false, true]
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
        }
        guard let r = reference else { return out }
        for i in pairs.keys.sorted() {
            guard var c = pairs[i] else { continue }
            let pair = [readings[r], readings[i]]
            let cmd = c.step(
                t: t, pdts: pair.map(\.pdt), playing: pair.map(\.playing), hasPDT: pair.map(\.hasPDT), windows: pair.map(\.window))
            pairs[i] = c
            // The pair's pane 0 is the reference: in two-pane mode it may be moved; beside more panes it never is.
            if count == 2 { out.speeds[r] = cmd.speeds[0] }
            out.speeds[i] = cmd.speeds[1]
            if let h = cmd.hold { out.holds.append(SyncHold(pane: c.panes[h.pane], seconds: h.seconds)) }
            if let a = cmd.realign { out.realigns.append(SyncRealign(pane: c.panes[a.pane], to: a.to)) }
        }
        return out
    }

    /// Gives up bringing `pane` to the reference (its reload found no segment at the moment asked).
    public mutating func giveUp(pane: Int, _ why: String) {
        if let k = pairs.first(where: { $0.value.panes.contains(pane) })?.key { pairs[k]?.giveUp(why) }
    }

    /// The state of the whole: locked when every pane is; off when every pane is off (with the first reason); else the least
    /// advanced pane's.
    public var state: SyncState {
        let states = pairs.keys.sorted().compactMap { pairs[$0]?.state }
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
    public var actions: [SyncAction] { pairs.keys.sorted().compactMap { pairs[$0]?.action } }

    /// Why panes are out of the lock, one line each.
    public var reasons: [String] {
        pairs.keys.sorted().compactMap { k in if case .off(let why)? = pairs[k]?.state { return why } else { return nil } }
    }
}
