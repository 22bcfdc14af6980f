import HLS

/// Stalls as the player's samples show them, the Session's stalls-and-skips feature (docs/ARCHITECTURE.md, the Session): a
/// sample waiting for data, one stopped at the end of what it was given while the stream goes on, or a reload that takes
/// more than a second, opens a stall; the first sample that plays again ends it. Its state is its own (`private(set)`),
/// changed only by `observe`. Pure.
public struct StallWatch: Sendable, Equatable {
    /// The newest stalls (`limit`), the last one open while it lasts; `earlier` counts the ones trimmed, so the totals stay
    /// whole.
    public private(set) var stalls: [Stall] = []
    public private(set) var earlier = StallTotals()
    /// Since when the player sits at the end of what it was given while the stream is not over.
    public private(set) var eofSince: Double?
    /// Since when the player has been opening a stream it was given (a reload) after playback had started.
    public private(set) var loadingSince: Double?
    public static let limit = 200

    public init() {}

    /// The stall open now, if any.
    public var current: Stall? { stalls.last.flatMap { $0.end == nil ? $0 : nil } }
    public var count: Int { earlier.count + stalls.count }
    /// Seconds stalled so far, an open stall counted up to `now`.
    public func seconds(now: Double) -> Double { earlier.seconds + stalls.reduce(0) { $0 + (($1.end ?? now) - $1.start) } }

    /// One sample at session time `t` (`started`: the first frame was shown; `ended`: the stream is over), with the last
    /// failure's cause when one is recent: the stall it opens or ends, and the lines to say.
    mutating func observe(
        _ s: PlayerSample, started: Bool, ended: Bool, at t: Double, cause recent: String?
    ) -> (facts: [SessionFact], said: [(level: LogLevel, text: String)]) {
        var facts: [SessionFact] = []
        var said: [(level: LogLevel, text: String)] = []
        // Stopped at the end of what it was given while the stream goes on (the player gave up on a failing origin, or waits on
        // a playlist that no longer grows) is a stall too, never a pause: after a second, so a reload at a break is not one.
        if s.eof && !ended && started { eofSince = eofSince ?? t } else { eofSince = nil }
        // A reload that takes more than a second (its first segment is slow or held) freezes the picture just the same.
        if s.loading && started && !ended { loadingSince = loadingSince ?? t } else { loadingSince = nil }
        let stuck = eofSince.map { t - $0 >= 1.0 } ?? false
        let reloading = loadingSince.map { t - $0 >= 1.0 } ?? false
        let waiting = s.pausedForCache || stuck || reloading
        if started, waiting, stalls.last.map({ $0.end != nil }) ?? true {
            let start = s.pausedForCache ? t : (eofSince ?? loadingSince ?? t)
            let cause = recent
            stalls.append(Stall(start: start, end: nil, cause: cause))
            if stalls.count > Self.limit {
                for old in stalls.prefix(stalls.count - Self.limit) {
                    earlier.count += 1
                    earlier.seconds += (old.end ?? t) - old.start
                }
                stalls.removeFirst(stalls.count - Self.limit)
            }
            if let cause { said.append((.warn, "stalled: \(cause)")) }
            facts.append(.stallStarted(start))
        }
        if started, waiting, let last = stalls.last, last.end == nil, last.cause == nil, let c = recent {
            stalls[stalls.count - 1].cause = c
        }
        if !waiting, let last = stalls.last, last.end == nil {
            stalls[stalls.count - 1].end = t
            if let c = last.cause { said.append((.info, "playing again after \(fixed(t - last.start, 1)) s stalled (\(c))")) }
            facts.append(.stallEnded(stalls[stalls.count - 1]))
        }
        return (facts, said)
    }
}
