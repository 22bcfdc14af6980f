import HLS

/// What the switch watcher decided at one look at the playhead; the pane carries it out (DECISIONS.md, rung switching; GAP).
public enum WatchDecision: Sendable, Equatable {
    /// A switch planned for the next boundary: reload `rung` from segment `msn`.
    case reloadForSwitch(rung: Int, msn: Int)
    /// A VOD switch whose boundary (`boundary`) the playhead passed between two looks: reload `rung` from the playhead's
    /// segment `msn` and seek to the playhead.
    case reloadForSwitchInPlace(rung: Int, msn: Int, boundary: Int)
    /// An fMP4 stream's timestamps restart at `msn` (FFmpeg 5.1 stalls there for good): reload the playing rung from it.
    case crossDiscontinuity(msn: Int)
    /// A GAP run no allowed rung has media for: reload the playing rung from the first segment after it.
    case crossGap(GapCrossing)
}

/// A switch waiting for the playhead to reach a boundary (`SessionState.plannedReload`).
public struct PlannedReload: Sendable, Equatable {
    /// The rung to reload.
    public var rung: Int
    /// The segment the switch was announced from (`VariantSwitch.atMSN`); nil when the playhead was unknown at the plan.
    public var boundary: Int?
}

extension SessionState {
    /// How close (seconds of media) the playhead must be to its segment's end for a boundary action: one 20 ms look plus margin.
    public static let boundaryReach = 0.035

    /// The watcher's decision at raw media time `t` (`atEnd`: the player stopped at the end of what it was given). A look can
    /// come late on a loaded machine: every rule holds for any point at or after its boundary. Each discontinuity and GAP run is
    /// crossed once; a planned reload is carried out once. Pure: the pane reads the player and executes what this returns.
    public mutating func watch(at t: Double, atEnd end: Bool) -> WatchDecision? {
        guard let (p, seg, gap) = watchPoint(at: t) else { return nil }
        let nearEnd = seg.map { $0 - p.offset <= Self.boundaryReach } ?? false
        if let planned = plannedReload {
            // The player plays on past the boundary: a look that comes after it — late on a loaded machine, or after the
            // player's own jump at a timestamp reset there — carries the switch out at the playhead rather than at the next
            // boundary, which a loaded machine can miss again (DECISIONS.md, rung switching). VOD and live alike: the seek is
            // in mpv's fresh cache, never FFmpeg's.
            if let b = planned.boundary, p.msn >= b {
                switching.plan(nil)
                return .reloadForSwitchInPlace(rung: planned.rung, msn: p.msn, boundary: b)
            }
            if nearEnd {
                switching.plan(nil)
                return .reloadForSwitch(rung: planned.rung, msn: p.msn + 1)
            }
        }
        if let next = fmp4DiscontinuityAfter(p), nearEnd || end, cross(-next) {
            return .crossDiscontinuity(msn: next)
        }
        if let g = gap, g.startsIn <= Self.boundaryReach || end, cross(g.first) {
            return .crossGap(g)
        }
        return nil
    }
}
