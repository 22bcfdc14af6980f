import HLS

/// The pathways of a multivariant playlist and which one to use: the steering manifest's priority, a penalty box for the
/// pathways that failed (each retested once its penalty ends, never hammered and never dropped for good), and a pin.
/// Redundant variants without steering (the same variants listed again on another host) are pathways too
/// (`PathwayIDs.namingRedundantCopies`). The Session's policy (docs/STEERING.md); pure: time comes with each call.
public struct Pathways: Sendable, Equatable {
    /// Pathway IDs in the order the multivariant playlist first names them, clones after.
    public private(set) var known: [String]
    /// The manifest's priority; before any manifest, the playlist's own order with its PATHWAY-ID first.
    public private(set) var priority: [String]
    /// A pathway chosen by hand: used while it is healthy, whatever the manifest prefers.
    public private(set) var pinned: String?
    /// The pathway in use.
    public private(set) var current: String
    public private(set) var penalties: [String: Penalty] = [:]

    public struct Penalty: Sendable, Equatable {
        /// When the pathway may be tried again.
        public var until: Double
        public var cause: String
    }

    /// Why the pathway in use changed.
    public enum Cause: String, Sendable, Equatable {
        case manifest, failure, manual, recovered
    }

    public struct Change: Sendable, Equatable {
        public var from: String
        public var to: String
        public var cause: Cause

        public init(from: String, to: String, cause: Cause) {
            self.from = from
            self.to = to
            self.cause = cause
        }
    }

    /// The pathways `m` lists; steering starts on its EXT-X-CONTENT-STEERING PATHWAY-ID when it names one, else on the first.
    public init(_ m: MultivariantPlaylist) {
        var ids: [String] = []
        for v in m.variants where !ids.contains(v.pathwayID ?? PathwayIDs.defaultID) { ids.append(v.pathwayID ?? PathwayIDs.defaultID) }
        if ids.isEmpty { ids = [PathwayIDs.defaultID] }
        known = ids
        let first = m.contentSteering?.pathwayID.flatMap { ids.contains($0) ? $0 : nil } ?? ids[0]
        priority = [first] + ids.filter { $0 != first }
        current = first
    }

    /// Adds the pathways `clones` make (a clone of an unknown pathway, or with an ID already known, is ignored).
    public mutating func add(clones: [PathwayClone]) {
        for c in clones where known.contains(c.baseID) && !known.contains(c.id) { known.append(c.id) }
    }

    /// True while `p` waits out its penalty at `now`.
    public func isPenalised(_ p: String, at now: Double) -> Bool { (penalties[p]?.until ?? -1) > now }

    /// The pathway to use at `now`: the pinned one while healthy, else the first of the priority that is known and not
    /// penalised; when every listed one is penalised, the one whose penalty ends first (something must be tried).
    public func best(at now: Double) -> String {
        if let pinned, known.contains(pinned), !isPenalised(pinned, at: now) { return pinned }
        let listed = priority.filter { known.contains($0) }
        if let p = listed.first(where: { !isPenalised($0, at: now) }) { return p }
        let candidates = listed.isEmpty ? known : listed
        return candidates.min { (penalties[$0]?.until ?? 0) < (penalties[$1]?.until ?? 0) } ?? current
    }

    /// A new manifest: its clones added, its priority taken; the change of pathway it makes, if any.
    public mutating func apply(_ m: SteeringManifest, at now: Double) -> Change? {
        add(clones: m.clones)
        priority = m.priority
        return move(to: best(at: now), cause: .manifest)
    }

    /// A request on `p` failed: `p` is penalised for `seconds` (the manifest's TTL, so it is retested once per TTL), and the
    /// change of pathway that makes, if any.
    public mutating func failed(_ p: String, cause: String, for seconds: Double, at now: Double) -> Change? {
        penalties[p] = Penalty(until: now + seconds, cause: cause)
        return move(to: best(at: now), cause: .failure)
    }

    /// A request on `p` answered: its penalty, if any, is lifted, and the change back to it if it is preferred.
    public mutating func answered(_ p: String, at now: Double) -> Change? {
        guard penalties.removeValue(forKey: p) != nil else { return nil }
        return move(to: best(at: now), cause: .recovered)
    }

    /// Pins `p` (nil: unpinned); the change that makes, if any.
    public mutating func pin(_ p: String?, at now: Double) -> Change? {
        pinned = p
        return move(to: best(at: now), cause: .manual)
    }

    /// The penalised pathway whose retest is due at `now` and that is preferred to the current one: the caller sends one
    /// request to it (a playlist read) and reports the outcome with `answered` or `failed`.
    public func retestDue(at now: Double) -> String? {
        let listed = priority.filter { known.contains($0) }
        guard let here = listed.firstIndex(of: current) else { return nil }
        return listed[..<here].first { p in penalties[p].map { $0.until <= now } ?? false }
    }

    private mutating func move(to p: String, cause: Cause) -> Change? {
        guard p != current else { return nil }
        let change = Change(from: current, to: p, cause: cause)
        current = p
        return change
    }
}

/// How the steering client reads the answers to its reloads (docs/STEERING.md). Pure.
public enum SteeringReload {
    /// What to do after a reload answered `status`.
    public enum Next: Sendable, Equatable {
        /// Read the body as a manifest, reload after its TTL.
        case manifest
        /// 410: steering is over for this session; the last priority stays.
        case stop
        /// Keep the last manifest and try again after this many seconds (429's Retry-After, else the TTL).
        case retry(after: Double)
    }

    public static func next(status: Int, retryAfter: String?, ttl: Double) -> Next {
        switch status {
        case 200: return .manifest
        case 410: return .stop
        case 429:
            if let s = retryAfter.flatMap({ Double(String($0.filter { $0 != " " && $0 != "\t" })) }), s >= 0 { return .retry(after: s) }
            return .retry(after: ttl)
        default: return .retry(after: ttl)
        }
    }

    /// The TTL before any manifest was read, and after one failed to parse with none before it.
    public static let defaultTTL = 300.0
}
