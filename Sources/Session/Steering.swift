import HLS

/// The steering client's state: where and when its next reload goes (docs/STEERING.md).
public struct SteeringClient: Sendable, Equatable {
    /// The next reload's URL: the playlist's SERVER-URI (maybe relative to the stream's URL), then the manifest's RELOAD-URI.
    public var url: String?
    /// The last manifest's TTL.
    public var ttl = SteeringReload.defaultTTL
    /// Session time of the next reload; nil when none is planned (no server, steering stopped, or a reload in flight).
    public var due: Double?
    /// 410: no more reloads in this session.
    public var stopped = false
    /// What the last reload said, in one line.
    public var last: String?

    public init() {}
}

extension SessionState {
    /// How long a failed pathway is penalised: the steering manifest's TTL; redundant streams without a steering server
    /// have none, and are retested every 30 s (DECISIONS.md, content steering).
    public var pathwayPenalty: Double { steering.url == nil ? 30 : steering.ttl }

    /// The pathway of `rung`.
    public func pathway(of rung: Int) -> String { ladder.rungs[safe: rung]?.variant.pathwayID ?? PathwayIDs.defaultID }

    /// The ladder's variants as a multivariant playlist (for the pathway lookups).
    var ladderVariants: MultivariantPlaylist {
        var m = MultivariantPlaylist()
        m.variants = ladder.rungs.map(\.variant)
        return m
    }

    /// Steering and pathways from the multivariant playlist: kept when it lists several pathways or names a steering server;
    /// the first reload is due at once.
    mutating func openSteering(_ m: MultivariantPlaylist, at t: Double) {
        let p = Pathways(m)
        guard p.known.count > 1 || m.contentSteering != nil else { return }
        pathways = p
        if let server = m.contentSteering?.serverURI {
            steering.url = server
            steering.due = t
        }
    }

    /// The rungs `allowed` keeps on the pathway in use (all of them when it has none).
    func onPathway(_ allowed: [Int]) -> [Int] {
        guard let p = pathways else { return allowed }
        let mine = allowed.filter { pathway(of: $0) == p.current }
        return mine.isEmpty ? allowed : mine
    }

    /// The rung that stands for the loaded one on the pathway in use, when the pathway changed since it was loaded.
    public var pathwayTarget: Int? {
        guard let p = pathways, let cur = loadedRung, pathway(of: cur) != p.current, !playerLoading else { return nil }
        return PathwayIDs.equivalent(of: cur, on: p.current, in: ladderVariants)
    }

    /// The move `pathwayTarget` asks for, taken: a rung pinned on the old pathway is pinned on the new one too (the same
    /// rung), so the pin does not pull the player back.
    mutating func takePathwayMove() -> Int? {
        guard let to = pathwayTarget, let p = pathways else { return nil }
        if case .pinned(let r) = mode, pathway(of: r) != p.current,
            let same = PathwayIDs.equivalent(of: r, on: p.current, in: ladderVariants)
        {
            selection.repin(same)
        }
        return to
    }

    /// The steering reload due at `t`, if one is: its URL, the pathway in use and the throughput measured (bits per second).
    /// It is then in flight: no other is due until its answer comes (`.steered`).
    mutating func steeringReloadDue(at t: Double) -> (url: String, pathway: String, throughput: Int?)? {
        guard let due = steering.due, t >= due, let url = steering.url, !steering.stopped, let p = pathways else { return nil }
        steering.due = nil
        return (url, p.current, throughput.estimate.map { Int($0) })
    }

    /// A steering reload's answer: a manifest is taken (its priority may change the pathway), 410 stops steering, anything
    /// else keeps the last manifest and waits (429's Retry-After, else the TTL).
    mutating func steered(_ a: SteeringAnswer, at t: Double) -> [SessionFact] {
        var facts: [SessionFact] = []
        let outcome: String
        switch a {
        case .manifest(var m):
            steering.ttl = m.ttl
            if let r = m.reloadURI { steering.url = r }
            steering.due = t + m.ttl
            // A clone is a pathway once its variants are in the ladder (`ladderGrown`, before this answer); one whose base
            // pathway the playlist does not list has none.
            let playable = m.clones.filter { c in ladder.rungs.contains { pathway(of: $0.index) == c.id } }
            let unplayable = m.clones.filter { c in !playable.contains(c) }
            m.clones = playable
            outcome =
                "priority \(m.priority.joined(separator: " > ")), TTL \(fixed(m.ttl, 0)) s"
                + (playable.isEmpty ? "" : "; clones " + playable.map { "\($0.id) (of \($0.baseID))" }.joined(separator: ", "))
                + (unplayable.isEmpty
                    ? "" : "; clones " + unplayable.map { "\($0.id) (no pathway \($0.baseID))" }.joined(separator: ", ") + " not applied")
            if var p = pathways {
                let change = p.apply(m, at: t)
                pathways = p
                if let change { facts.append(pathwayChanged(change, detail: "the steering manifest prefers it", at: t)) }
            }
        case .status(let status, let retryAfter):
            switch SteeringReload.next(status: status, retryAfter: retryAfter, ttl: steering.ttl) {
            case .stop:
                steering.stopped = true
                steering.due = nil
                outcome = "HTTP 410: steering stopped for this session; the last priority stays"
            case .retry(let after):
                steering.due = t + after
                outcome = "HTTP \(status): the last manifest stays; next reload in \(fixed(after, 0)) s"
            case .manifest:
                steering.due = t + steering.ttl
                outcome = "HTTP \(status)"
            }
        case .invalid(let e):
            steering.due = t + steering.ttl
            outcome = "\(e.description); the last manifest stays"
        case .unreachable(let why):
            steering.due = t + steering.ttl
            outcome = "steering server unreachable (\(why)); the last manifest stays"
        }
        steering.last = outcome
        if case .manifest = a {
            note(.info, "steering: \(outcome)", t)
        } else {
            note(.warn, "steering: \(outcome)", t)
        }
        facts.insert(.steering(outcome: outcome, priority: pathways?.priority ?? [], next: steering.due), at: 0)
        return facts
    }

    /// Rung `failed` failed a request (`cause`): its pathway is penalised (`pathwayPenalty`), which may change the pathway.
    mutating func pathwayFailed(rung failed: Int, cause: String, at t: Double) -> [SessionFact] {
        guard var p = pathways else { return [] }
        let name = pathway(of: failed)
        let change = p.failed(name, cause: cause, for: pathwayPenalty, at: t)
        pathways = p
        guard let change else { return [] }
        return [pathwayChanged(change, detail: "\(name) failed (\(cause)): retested in \(fixed(pathwayPenalty, 0)) s", at: t)]
    }

    /// The penalised pathway to retest at `t`, as the rung whose playlist to read on it; the pathway stays penalised for
    /// another period unless the read answers (`.pathwayAnswered`), so a retest that fails or never returns is not repeated
    /// before then.
    mutating func pathwayRetest(at t: Double) -> Int? {
        guard var p = pathways, let name = p.retestDue(at: t), let cur = loadedRung,
            let rung = PathwayIDs.equivalent(of: cur, on: name, in: ladderVariants)
        else { return nil }
        _ = p.failed(name, cause: p.penalties[name]?.cause ?? "retest", for: pathwayPenalty, at: t)
        pathways = p
        return rung
    }

    /// A retest read `rung`'s playlist: its pathway's penalty is lifted, and traffic goes back to it when it is preferred.
    mutating func pathwayAnswered(rung: Int, at t: Double) -> [SessionFact] {
        guard var p = pathways else { return [] }
        let change = p.answered(pathway(of: rung), at: t)
        pathways = p
        return change.map { [pathwayChanged($0, detail: "\($0.to) answers again", at: t)] } ?? []
    }

    /// A person's pathway choice: `pin` pins one (nil: the manifest's choice again); `next` pins the next pathway after the
    /// one pinned, and after the last goes back to the manifest's choice. The switch follows (`pathwayTarget`).
    mutating func choosePathway(_ action: Action, at t: Double) -> [SessionFact] {
        guard var p = pathways else {
            note(.warn, "pathway: this stream has one pathway and no steering server", t)
            return []
        }
        let wanted: String?
        switch action {
        case .pinPathway(let name):
            if let name, !p.known.contains(name) {
                note(.warn, "pathway: no pathway \(name) (this stream has \(p.known.joined(separator: ", ")))", t)
                return []
            }
            wanted = name
        case .nextPathway:
            let i = p.pinned.flatMap { p.known.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            wanted = p.known[safe: i]
        default: return []
        }
        let change = p.pin(wanted, at: t)
        pathways = p
        note(.info, "pathway: " + (wanted.map { "pinned to \($0)" } ?? "the steering manifest's choice again (\(p.current))"), t)
        return change.map { [pathwayChanged($0, detail: wanted.map { "pinned by hand: \($0)" } ?? "unpinned", at: t)] } ?? []
    }

    mutating func pathwayChanged(_ c: Pathways.Change, detail: String, at t: Double) -> SessionFact {
        note(c.cause == .failure ? .warn : .info, "pathway \(c.from) → \(c.to) (\(c.cause.rawValue)): \(detail)", t)
        return .pathway(c, detail: detail)
    }
}
