/// Which sources (rungs) answered badly and when each may be tried again: a penalty box with doubling backoff, so a failed
/// source is neither hammered nor dropped for good; pure (time comes with each call).
public struct SourceHealth: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var failures: Int
        var until: Double
        var cause: String
        var since: Double
    }

    private var entries: [Int: Entry] = [:]
    /// The first wait after a failure, and the longest.
    public var base = 1.0
    public var cap = 30.0

    public init() {}

    /// Records a failure of `source` at `now`; returns the seconds it stays in the box.
    @discardableResult
    public mutating func failed(_ source: Int, cause: String, at now: Double) -> Double {
        var e = entries[source] ?? Entry(failures: 0, until: now, cause: cause, since: now)
        e.failures += 1
        e.cause = cause
        let wait = min(cap, base * Double(1 << min(e.failures - 1, 16)))
        e.until = now + wait
        entries[source] = e
        return wait
    }

    /// Records a success of `source`; returns how long it had been failing when it was in the box (its recovery), else nil.
    @discardableResult
    public mutating func answered(_ source: Int, at now: Double) -> (down: Double, cause: String)? {
        guard let e = entries.removeValue(forKey: source) else { return nil }
        return (now - e.since, e.cause)
    }

    /// True while `source` waits out its backoff.
    public func isDown(_ source: Int, at now: Double) -> Bool { (entries[source]?.until ?? -1) > now }

    /// Why `source` is in the box, if it is.
    public func cause(_ source: Int) -> String? { entries[source]?.cause }

    /// `candidates` in order, those in the box moved to the end (still tried when nothing else answers).
    public func order(_ candidates: [Int], at now: Double) -> [Int] {
        candidates.filter { !isDown($0, at: now) } + candidates.filter { isDown($0, at: now) }
    }
}

/// A VOD segment every source failed, held back from the player and retried with a doubling wait (0.5 s up to 4 s) until the
/// budget is spent; a VOD's segment never leaves its playlist, so waiting loses nothing (DECISIONS.md, origin failures).
public struct SegmentHold: Sendable {
    public let since: Double
    public let budget: Double
    public var attempts = 0

    public init(since: Double, budget: Double) {
        self.since = since
        self.budget = budget
    }

    /// Failures worth waiting out: the origin is overloaded or unreachable for now (5xx, 408, 429; the Loader's own 502 for a
    /// transport failure), not a resource that is missing or refused (4xx).
    public static func passing(_ status: Int) -> Bool { status >= 500 || status == 408 || status == 429 }

    /// The wait before the next attempt at `now`, or nil when the budget is spent.
    public mutating func next(at now: Double) -> Double? {
        let wait = min(4, 0.5 * Double(1 << min(attempts, 3)))
        guard now + wait - since <= budget else { return nil }
        attempts += 1
        return wait
    }
}
