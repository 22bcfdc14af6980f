import HLS

/// `--latency S` (docs/SYNC.md): every pane plays the moment whose EXT-X-PROGRAM-DATE-TIME (RFC 8216bis §4.4.4.6) is the wall
/// clock less S, and holds it there — moved or held to get there, sped up or slowed by at most 5 % to stay — so any number of
/// hlstui processes, on hosts whose clocks agree (NTP, PTP), show the same moment without a connection between them. The wall
/// clock is one more entry of a `MultiSync`, its reference: never moved, never waited for; each pane follows it on its own.
/// Pure: the wall clock comes in with each step.
public struct LatencySync: Sendable {
    public enum Target: Sendable, Equatable {
        /// Seconds behind the wall clock.
        case seconds(Double)
        /// The smallest latency every pane can hold (`smallest`), chosen once every pane's playlist is known and kept.
        case auto
    }

    public let target: Target
    /// The latency followed: the one asked for, or the one `auto` chose (nil until it has).
    public private(set) var latency: Double?
    public let count: Int
    /// The panes and, last, the clock.
    var sync: MultiSync
    /// Panes that cannot follow the target, and why (one line each).
    public private(set) var unreachable: [Int: String] = [:]
    /// Panes stalled at the last step (rebuffering, their origin failing): followed again once they play.
    public private(set) var stalled: [Int] = []
    /// Each pane's recent readings of how far its playlist's end lies behind the wall clock (session time, seconds): the end
    /// moves a part or a segment at a time (`SyncWindow.publishStep`), so what a pane can hold is judged by the furthest
    /// behind of the last two steps, not by the reading of the moment.
    var lags: [[(t: Double, lag: Double)]]

    public init(count: Int, target: Target) {
        self.count = max(1, count)
        self.target = target
        if case .seconds(let s) = target { latency = s }
        sync = MultiSync(count: self.count + 1, clock: self.count)
        lags = Array(repeating: [], count: self.count)
    }

    public var enabled: Bool {
        get { sync.enabled }
        set { sync.enabled = newValue }
    }

    /// The smallest latency, up to the next tenth of a second, at which every window lists the moment with the margin a
    /// pane plays behind its live edge (`SyncWindow.edgeMargin`) at every moment: read now, the end may have just moved, so
    /// one step of it (`SyncWindow.publishStep`) more. Nil until every window is known and live.
    public static func smallest(wall: DateTime, windows: [SyncWindow?]) -> Double? {
        let ws = windows.compactMap { $0 }
        guard !ws.isEmpty, ws.count == windows.count, ws.allSatisfy(\.live) else { return nil }
        let least = ws.map { wall.seconds(since: $0.edge) + $0.edgeMargin + $0.publishStep }.max() ?? 0
        return (least * 10).rounded(.up) / 10
    }

    /// The furthest pane `i`'s playlist end has been behind the wall clock over its last two steps, with `lag` read at `t`.
    mutating func recentLag(pane i: Int, lag: Double, step: Double, at t: Double) -> Double {
        lags[i].removeAll { $0.t < t - 2 * step || $0.t > t }
        lags[i].append((t, lag))
        return lags[i].map(\.lag).max() ?? lag
    }

    /// One step at session time `t`, the wall clock reading `wall` at the moment of `readings` (one per pane).
    public mutating func step(t: Double, wall: DateTime, readings: [SyncReading]) -> SyncCommands {
        var out = SyncCommands(speeds: Array(repeating: 1, count: count))
        guard readings.count == count else { return out }
        if latency == nil { latency = Self.smallest(wall: wall, windows: readings.map(\.window)) }
        guard let s = latency else { return out }
        let moment = wall.adding(seconds: -s)
        unreachable = [:]
        stalled = readings.indices.filter { readings[$0].stalled }
        for (i, r) in readings.enumerated() {
            // A pane that stalled (its origin failing) has a playlist no one reloads: how far behind its end lies says nothing
            // of what it can hold once it plays again; it is brought back to the target then.
            guard let w = r.window, !r.stalled else { continue }
            let lag = recentLag(pane: i, lag: wall.seconds(since: w.edge), step: w.publishStep, at: t)
            if let why = Self.unreachable(pane: i, window: w, latency: s, lag: lag) { unreachable[i] = why }
        }
        // A pane that cannot follow is left alone (normal speed, never moved): its controller reads no playhead.
        let fed = readings.enumerated().map { i, r in unreachable[i] == nil ? r : SyncReading(pdt: nil, playing: false) }
        let cmd = sync.step(t: t, readings: fed + [SyncReading(pdt: moment, playing: true, continuous: true)])
        out.speeds = Array(cmd.speeds.prefix(count))
        out.holds = cmd.holds.filter { $0.pane < count }
        out.realigns = cmd.realigns.filter { $0.pane < count }
        return out
    }

    /// Why pane `i` cannot play `latency` behind the wall clock, when its window says so: a playlist that is not live, or
    /// one whose live edge is too close to the wall clock for a pane to stay that far behind it (RFC 8216bis §6.3.3,
    /// §4.4.3.8), its end `lag` seconds behind the wall clock at most lately.
    static func unreachable(pane i: Int, window w: SyncWindow, latency: Double, lag: Double) -> String? {
        guard w.live else { return "pane \(i + 1) is not live: --latency follows live streams" }
        let least = lag + w.edgeMargin
        guard latency < least - 0.5 else { return nil }
        return "pane \(i + 1) cannot play \(fixed(latency, 1)) s behind the wall clock: its playlist ends up to "
            + "\(fixed(lag, 1)) s behind it and a pane plays \(fixed(w.edgeMargin, 1)) s behind that "
            + "(--latency \(fixed(least, 1)) or more)"
    }

    /// Seconds each pane plays ahead of its target (positive: less latency than asked; nil: no reading, not followed, or
    /// stalled).
    public var errors: [Double?] {
        let o = sync.offsets
        return (0..<count).map { unreachable[$0] == nil && !stalled.contains($0) ? o[$0] : nil }
    }

    /// The largest error.
    public var error: Double? { errors.compactMap { $0 }.max { abs($0) < abs($1) } }

    /// Locked when every pane that can follow the target does; off when none can (the first reason).
    public var state: SyncState {
        let followed = (0..<count).filter { unreachable[$0] == nil }
        if followed.isEmpty, let why = unreachable.min(by: { $0.key < $1.key })?.value { return .off(why) }
        if !stalled.isEmpty { return .waitingFor(stalled) }
        return MultiSync.combined(followed.compactMap { sync.pairs[$0]?.state })
    }

    /// Why panes do not follow the target, one line each.
    public var reasons: [String] { unreachable.sorted { $0.key < $1.key }.map(\.value) + sync.reasons }

    /// What was done last for each pane.
    public var actions: [SyncAction] { sync.actions }
}
