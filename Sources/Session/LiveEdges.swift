import HLS

/// Where each live rung's playlist ends and when it was read (a feature sub-state, docs/ARCHITECTURE.md): the newest
/// segment of each rung with the session time it first appeared and where it ends on the wall clock, the time each rung's
/// playlist was last read, and the last retry of a player its origin stopped. Its state changes only through its
/// transitions, each called by the Session's reducer.
public struct LiveEdges: Sendable {
    /// Each live rung's newest segment: its MSN, the session time it first appeared and the PDT where it ends.
    public private(set) var edges: [Int: LiveEdge] = [:]
    /// Session time each rung's media playlist was last read (by the player or by hlstui).
    public private(set) var readAt: [Int: Double] = [:]
    /// Session time of the last attempt to reload a player its origin stopped.
    public private(set) var lastRecoveryAttempt: Double?

    public init() {}

    /// `m`, `rung`'s live playlist, seen at `t`: its newest segment recorded the first time it is seen. A segment in progress
    /// moves the edge with each part it lists (RFC 8216bis §4.4.4.9), not only a new segment.
    mutating func seen(_ rung: Int, _ m: MediaPlaylist, at t: Double) {
        guard m.isLive, let last = m.segments.last else { return }
        let end = last.effectiveProgramDateTime?.adding(seconds: last.duration)
        if let e = edges[rung], e.msn > last.mediaSequence || (e.msn == last.mediaSequence && last.duration <= e.length) { return }
        edges[rung] = LiveEdge(msn: last.mediaSequence, at: t, end: end, length: last.duration)
    }

    /// `rung`'s playlist read at `t` (by the player or by hlstui).
    mutating func read(_ rung: Int, at t: Double) { readAt[rung] = t }

    /// Whether `rung`'s live playlist, of target duration `target`, has gone unread for a target duration and a half at `now`:
    /// then it is read (marked read now) so that the live edge stays current.
    mutating func refreshDue(_ rung: Int, target: Int, at now: Double) -> Bool {
        guard let last = readAt[rung], now - last > Double(target) + 0.5 else { return false }
        readAt[rung] = now
        return true
    }

    /// Whether a player its origin stopped may be retried at `now` (once a second); marked tried when it may.
    mutating func recoveryDue(at now: Double) -> Bool {
        guard now - (lastRecoveryAttempt ?? -10) >= 1 else { return false }
        lastRecoveryAttempt = now
        return true
    }

    /// Seconds at `now` since `rung`'s playlist last gained a segment (nil: not seen yet).
    func age(_ rung: Int, at now: Double) -> Double? { edges[rung].map { max(0, now - $0.at) } }
}

/// The live edges as the Session's readers know them.
extension SessionState {
    public var edgeSeen: [Int: LiveEdge] { liveEdges.edges }
    public var playlistReadAt: [Int: Double] { liveEdges.readAt }

    /// Seconds since rung `rung`'s live playlist last gained a segment (nil: not live, ended, or not read yet). Beyond three
    /// target durations the origin has stopped publishing (a live origin adds one about every target duration; the shipped
    /// alert rules, docs/METRICS.md, call it stuck past three).
    public func liveEdgeAge(rung: Int) -> Double? {
        guard let m = media[rung], m.isLive else { return nil }
        return liveEdges.age(rung, at: now)
    }
}
