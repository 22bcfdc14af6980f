import HLS
/// One measured figure over the last minutes: a value a second, oldest first (pure; bounded — a session of days keeps 15
/// minutes). A second without a value (not known then: no PDT, no live edge, not started) is nil, drawn as a hole.
public struct Series: Sendable, Equatable {
    /// Seconds kept.
    public static let capacity = 900
    public private(set) var values: [Double?] = []
    /// The session second of the newest value.
    public private(set) var newest: Int?

    public init() {}

    /// Records `value` for session time `t`: one value a second, the latest within a second wins; seconds nobody recorded are
    /// holes.
    public mutating func record(_ value: Double?, at t: Double) {
        guard t.isFinite, t >= 0 else { return }
        let second = Int(t.rounded(.down))
        let v = value.flatMap { $0.isFinite ? $0 : nil }
        if let n = newest {
            guard second >= n else { return }
            if second == n {
                values[values.count - 1] = v ?? values[values.count - 1]
                return
            }
            values += Array(repeating: nil, count: min(second - n - 1, Self.capacity))
        }
        values.append(v)
        newest = second
        if values.count > Self.capacity { values.removeFirst(values.count - Self.capacity) }
    }

    /// The newest known value.
    public var last: Double? { values.last { $0 != nil } ?? nil }
}

/// What the history plots show of one pane: throughput, buffer ahead, the playing rung's bitrate and the live latency.
public struct History: Sendable, Equatable {
    /// The throughput estimate, bits/s.
    public var throughput = Series()
    /// Media delivered past the playhead, seconds.
    public var ahead = Series()
    /// The playing rung's BANDWIDTH (AVERAGE-BANDWIDTH when given), bits/s.
    public var bitrate = Series()
    /// Seconds behind the live edge.
    public var latency = Series()

    public init() {}
}

extension SessionState {
    /// Records this moment's figures into the history (once a second counts; called with every player sample).
    mutating func recordHistory(at t: Double) {
        history.throughput.record(throughput.estimate, at: t)
        history.ahead.record(bufferedAhead, at: t)
        let rung = playingRung.flatMap { ladder.rungs.indices.contains($0) ? ladder.rungs[$0] : nil }
        history.bitrate.record(rung.map { Double($0.variant.averageBandwidth ?? $0.bandwidth) }, at: t)
        history.latency.record(liveLatency, at: t)
    }
}
