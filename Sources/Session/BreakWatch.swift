import HLS

/// What the playhead did at a break the stream announces (docs/EVENTS.md).
public enum BreakFact: Sendable, Equatable {
    /// The playhead entered the break.
    case entered(CueBreak)
    /// It left it after `seconds` of session time inside.
    case left(CueBreak, seconds: Double)
}

/// The breaks the playing rung's playlist announces (`Cues.breaks`) and its other date ranges (`Cues.dateRanges`),
/// followed against the playhead: each entered and left once. One is kept by its key across reloads; a break joined inside
/// (a live window past its CUE-OUT) is the break already known at its MSN.
public struct BreakWatch: Sendable, Equatable {
    public struct Tracked: Sendable, Equatable {
        public var cue: CueBreak
        /// Session time the playhead entered it (nil: not inside).
        public var enteredAt: Double?
        /// Entered and left: never reported again.
        public var done = false
        /// Passed without the playhead inside: it ended before where playback started, or the playhead jumped over it.
        public var missed = false
        /// The playhead was seen before it (a point is reached only by playback that comes to it).
        public var before = false
        /// Armed again by a seek back before it (`rearm`): not missed while the player's looks still show the playhead past it,
        /// reached once a look has seen it before.
        public var rearmed = false
        /// A date range that takes no time of the primary (an interstitial, RFC 8216bis Appendix D): reached, not entered.
        public var isPoint: Bool { cue.closed && cue.actual == 0 }
    }

    public private(set) var tracked: [Tracked] = []
    /// The newest kept; older ones the playhead is done with are let go.
    static let limit = 64

    /// The breaks followed (not the other date ranges).
    public var breaks: [Tracked] { tracked.filter(\.cue.isBreak) }

    public init() {}

    /// A playlist of the rung playing: its breaks added, or updated where already known.
    public mutating func update(_ m: MediaPlaylist) {
        for b in Cues.breaks(in: m) + Cues.dateRanges(in: m) {
            if let i = tracked.firstIndex(where: { $0.cue.key == b.key || Self.sameJoined($0.cue, b) }) {
                // What a later playlist says of its end; where it starts stays as first seen.
                let (key, start, startMSN, startDate) = (
                    tracked[i].cue.key, tracked[i].cue.start, tracked[i].cue.startMSN, tracked[i].cue.startDate
                )
                var merged = b
                if key != b.key {
                    merged.startMSN = startMSN
                    merged.start = start
                    merged.startDate = startDate
                }
                merged.planned = b.planned ?? tracked[i].cue.planned
                if !b.closed && tracked[i].cue.closed { continue }
                tracked[i].cue = merged
            } else {
                tracked.append(Tracked(cue: b))
            }
        }
        if tracked.count > Self.limit {
            let drop = tracked.indices.filter { tracked[$0].done }.prefix(tracked.count - Self.limit)
            for i in drop.reversed() { tracked.remove(at: i) }
        }
    }

    /// A seek went back before the points (date ranges) `ids`: each is reached again once the playhead comes to it.
    public mutating func rearm(_ ids: Set<String>) {
        for i in tracked.indices where tracked[i].isPoint {
            guard case .dateRange(let id) = tracked[i].cue.source, ids.contains(id) else { continue }
            tracked[i].done = false
            tracked[i].missed = false
            tracked[i].before = false
            tracked[i].rearmed = true
        }
    }

    /// A CUE-OUT break joined inside (no CUE-OUT in this playlist) that one already known covers.
    static func sameJoined(_ known: CueBreak, _ b: CueBreak) -> Bool {
        guard b.joined, case .cueOut = known.source, case .cueOut = b.source else { return false }
        return b.startMSN > known.startMSN && known.endMSN.map { b.startMSN < $0 } ?? true
    }

    /// Where the playhead is now (`p`, and its PDT when the stream has one), at session time `t`: what it left, then what it
    /// entered (one ends where the next begins).
    public mutating func step(at p: StreamPoint, pdt: DateTime?, t: Double) -> [BreakFact] {
        var facts: [BreakFact] = []
        var entered: [BreakFact] = []
        for i in tracked.indices where !tracked[i].done {
            if tracked[i].isPoint {
                // Reached by the playhead coming to it: entered and left at once; already behind at the first look: missed.
                guard case .dateRange = tracked[i].cue.source, let start = tracked[i].cue.startDate, let at = pdt else { continue }
                if at.seconds(since: start) < 0 {
                    tracked[i].before = true
                } else if tracked[i].rearmed && !tracked[i].before {
                    continue
                } else {
                    tracked[i].done = true
                    tracked[i].missed = !tracked[i].before
                    if tracked[i].before { entered += [.entered(tracked[i].cue), .left(tracked[i].cue, seconds: 0)] }
                }
                continue
            }
            let inside = Self.contains(tracked[i].cue, p, pdt)
            if inside, tracked[i].enteredAt == nil {
                tracked[i].enteredAt = t
                entered.append(.entered(tracked[i].cue))
            } else if !inside, let since = tracked[i].enteredAt, Self.past(tracked[i].cue, p, pdt) {
                tracked[i].done = true
                tracked[i].enteredAt = nil
                facts.append(.left(tracked[i].cue, seconds: t - since))
            } else if !inside, tracked[i].enteredAt == nil, Self.past(tracked[i].cue, p, pdt) {
                tracked[i].done = true
                tracked[i].missed = true
            }
        }
        return facts + entered
    }

    /// The playhead is inside `b`: a date range by PDT (RFC 8216bis §4.4.5.1) when there is one, else by segment.
    static func contains(_ b: CueBreak, _ p: StreamPoint, _ pdt: DateTime?) -> Bool {
        if case .dateRange = b.source, let start = b.startDate, let at = pdt {
            guard at.seconds(since: start) >= 0 else { return false }
            return end(b).map { at.seconds(since: start) < $0 } ?? true
        }
        return p.msn >= b.startMSN && b.endMSN.map { p.msn < $0 } ?? true
    }

    /// The playhead is past `b`'s end (not back before its start, as a seek back is).
    static func past(_ b: CueBreak, _ p: StreamPoint, _ pdt: DateTime?) -> Bool {
        if case .dateRange = b.source, let start = b.startDate, let at = pdt {
            return end(b).map { at.seconds(since: start) >= $0 } ?? false
        }
        return b.endMSN.map { p.msn >= $0 } ?? false
    }

    /// Seconds from a date range's start to its end, once the playlist gives one.
    static func end(_ b: CueBreak) -> Double? { b.closed ? b.actual : nil }
}
