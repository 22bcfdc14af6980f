import HLS

/// The switches carried out (a feature sub-state, docs/ARCHITECTURE.md; DECISIONS.md, rung switching): the rung the player
/// was given and whether spliced, a switch waiting for its boundary, the switches made and which rung served each segment.
/// Which rung to play is `RungSelection`'s; how a switch is carried out is the Session's (`SessionState.planSwitch`). Its
/// state changes only through its transitions.
public struct Switches: Sendable, Equatable {
    /// The rung the player was last given.
    public private(set) var loadedRung: Int?
    /// True when the player was given a spliced playlist (the Loader picks each segment's rung).
    public private(set) var spliced = false
    /// A switch waiting for the playhead to reach its boundary: the rung to reload, and from which segment.
    public private(set) var planned: PlannedReload?
    /// The newest switches (`limit`).
    public private(set) var made: [VariantSwitch] = []
    /// The rung that served each segment the player fetched, by MSN (the newest `SessionState.segmentMemory`).
    public private(set) var segmentRung: [Int: Int] = [:]

    /// The switches kept: enough to scroll back through, bounded for sessions of days.
    public static let limit = 500

    public init() {}

    /// The player is given a spliced playlist (`on`) or a rung's own.
    mutating func splice(_ on: Bool) { spliced = on }

    /// A reload waits for its boundary (nil: none waits any more).
    mutating func plan(_ reload: PlannedReload?) { planned = reload }

    /// A switch was made: the player plays its rung.
    mutating func switched(_ s: VariantSwitch) {
        made.append(s)
        if made.count > Self.limit { made.removeFirst(made.count - Self.limit) }
        loadedRung = s.to
    }

    /// Segment `msn` was served by `rung`.
    mutating func served(msn: Int, by rung: Int?) {
        if let rung { segmentRung[msn] = rung }
        SessionState.trim(&segmentRung, newest: msn)
    }
}

extension SessionState {
    /// The rung the player was last given.
    public var loadedRung: Int? { switching.loadedRung }
    /// True when the player was given a spliced playlist (the Loader picks each segment's rung).
    public var spliced: Bool { switching.spliced }
    /// A switch waiting for the playhead to reach its boundary.
    public var plannedReload: PlannedReload? { switching.planned }
    /// The newest switches (`Switches.limit`).
    public var switches: [VariantSwitch] { switching.made }
    /// The rung that served each segment the player fetched, by MSN.
    public var segmentRung: [Int: Int] { switching.segmentRung }
}
