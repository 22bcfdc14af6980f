import LoaderEvents

/// What one pane keeps of the Loader's requests (a feature sub-state, docs/ARCHITECTURE.md): the newest requests and keys
/// with totals over the whole session, the segments in flight and those delivered to the player, each rung's latest segment
/// request, the throughput measured and the highest segment bitrate seen. Its state changes only through its transitions,
/// each called by the Session's reducer (`SessionState+Loader.swift`).
public struct RequestLedger: Sendable {
    /// The newest requests (`SessionState.requestLimit`) and keys (`SessionState.keyLimit`); the totals cover the session.
    public private(set) var requests: [RequestEvent] = []
    public private(set) var totals = RequestTotals()
    public private(set) var keys: [KeyEvent] = []
    /// Segment downloads in progress, by MSN: the rung and the session time they started (the oldest let go past 16).
    public private(set) var inFlight: [Int: InFlight] = [:]
    /// Session time of the latest segment request (started or finished) of each rung.
    public private(set) var lastSegmentAt: [Int: Double] = [:]
    /// Segments of the variant the player received whole since it was last given a stream, by MSN: the session time each
    /// arrived (the newest 64). What it holds ahead of the playhead is measured from these, not from mpv's cache ranges alone.
    public private(set) var delivered: [Int: Double] = [:]
    public private(set) var throughput = ThroughputEstimator()
    /// The highest bitrate a segment of the stream has had so far (its bytes over its duration): what the player's cache
    /// budget is sized from when the stream states no BANDWIDTH (a media playlist opened alone).
    public private(set) var observedPeakBitsPerSecond: Int?

    public init() {}

    /// A segment's download started at `t`.
    mutating func started(msn: Int, rung: Int?, at t: Double) {
        if let rung {
            inFlight[msn] = InFlight(rung: rung, start: t)
            lastSegmentAt[rung] = t
        }
        if inFlight.count > 16, let oldest = inFlight.min(by: { $0.value.start < $1.value.start }) { inFlight[oldest.key] = nil }
    }

    /// A request the Loader made, finished at `t`: logged and counted; a variant segment's download timed and, when it went
    /// to the player whole, marked delivered. True in that last case.
    mutating func record(_ r: RequestEvent, at t: Double) -> Bool {
        requests.append(r)
        totals.count += 1
        totals.bytes += r.bytes
        if r.kind == .segment { totals.segments += 1 }
        if requests.count > SessionState.requestLimit { requests.removeFirst(requests.count - SessionState.requestLimit) }
        if r.kind == .segment, let msn = r.msn { inFlight[msn] = nil }
        if r.kind == .segment, let rung = r.rung { lastSegmentAt[rung] = t }
        var arrived = false
        // Only the variant's own segments time the playhead and the network: renditions share MSNs.
        if r.kind == .segment, let msn = r.msn, r.rung != nil {
            // A segment served as its parts were published took the publishing's time, not the network's.
            if r.status == 200 || r.status == 206, !r.local, !r.paced { throughput.add(bytes: r.bytes, seconds: r.durationMs / 1000) }
            if (200..<300).contains(r.status), r.outcome == .ok {
                delivered[msn] = t
                if delivered.count > 64, let oldest = delivered.keys.min() { delivered[oldest] = nil }
                arrived = true
            }
        }
        // A part times the network from its first byte on: a hinted one is held until it is published (RFC 8216bis §4.4.5.3).
        if r.kind == .part, r.status == 200 || r.status == 206, !r.local, let ttfb = r.ttfbMs, r.durationMs - ttfb >= 1 {
            throughput.add(bytes: r.bytes, seconds: (r.durationMs - ttfb) / 1000)
        }
        // A progressive file's pieces time the network as segments do.
        if r.kind == .file, r.status == 200 || r.status == 206, !r.local {
            throughput.add(bytes: r.bytes, seconds: r.durationMs / 1000)
        }
        return arrived
    }

    /// A key the Loader fetched or failed: kept, a new URI counted.
    mutating func key(_ k: KeyEvent) {
        if !keys.contains(where: { $0.uri == k.uri }) { totals.keys += 1 }
        keys.append(k)
        if keys.count > SessionState.keyLimit { keys.removeFirst(keys.count - SessionState.keyLimit) }
    }

    /// A variant switch made.
    mutating func switched() { totals.switches += 1 }

    /// The player was given the stream again: nothing delivered to it yet.
    mutating func streamGiven() { delivered = [:] }

    /// A segment measured at `bitsPerSecond`.
    mutating func peak(_ bitsPerSecond: Int) {
        if bitsPerSecond > observedPeakBitsPerSecond ?? 0 { observedPeakBitsPerSecond = bitsPerSecond }
    }
}

/// The ledger's state as the Session's readers know it.
extension SessionState {
    public var requests: [RequestEvent] { ledger.requests }
    public var requestTotals: RequestTotals { ledger.totals }
    public var keys: [KeyEvent] { ledger.keys }
    public var inFlight: [Int: InFlight] { ledger.inFlight }
    public var lastSegmentAt: [Int: Double] { ledger.lastSegmentAt }
    public var delivered: [Int: Double] { ledger.delivered }
    public var throughput: ThroughputEstimator { ledger.throughput }
    public var observedPeakBitsPerSecond: Int? { ledger.observedPeakBitsPerSecond }
}
