import Session
import SessionFixtures

/// A reload+seek as the Session plans it (`SessionState.planReload`), written out: the player held, given `rung` from `msn`,
/// the Loader keeping segments from `holdFrom` on, and the first look 5 ms later.
func reloadSteps(
    rung: Int, msn: Int, to: ReloadSeek.Target, at t: Double, holdFrom: Int? = nil, readahead: (before: Double, during: Double)? = nil,
    prewarmed: Bool = false
) -> [PaneEffect] {
    var effects: [PaneEffect] = [.holdStill(byHLSTUI: true), .load(rung: rung, startMSN: msn, prewarmed: prewarmed)]
    if let holdFrom { effects.append(.holdSegments(from: holdFrom, seconds: 2)) }
    if let r = readahead { effects.append(.readahead(r.during)) }
    let step = ReloadSeek(
        to: to, rung: rung, wasPaused: false, heldFrom: holdFrom, readaheadBefore: readahead?.before, deadline: t + ReloadSeek.limit)
    return effects + [.after(ms: 5, .reloadSeek(step))]
}
