import HLS

/// What hlstui itself does to the player between a person's keys (a feature sub-state, docs/ARCHITECTURE.md): its own
/// pauses — to move the playhead inside a freshly loaded stream, sync's hold, sync's wait for another pane — and the read-ahead
/// in effect, which a hold or a far move lengthens. Its state changes only through its transitions; the plans that use them
/// are the Session's (`SessionState.planReload`, `planSyncWait`, the end of a hold).
public struct PlayerHold: Sendable, Equatable {
    /// The read-ahead the player is given when nothing lengthens it (`--readahead`).
    public let usual: Double
    /// The read-ahead in effect (the last `PaneEffect.readahead` given).
    public private(set) var readahead: Double
    /// hlstui holds the player paused (a pause the player reads is then not the user's).
    public private(set) var held = false
    /// Sync keeps the player paused while another pane rebuffers.
    public private(set) var syncWaiting = false

    public init(usual: Double = 10) {
        self.usual = usual
        readahead = usual
    }

    /// Notes what the owner is about to carry out: the read-ahead given, the player held or let go.
    mutating func given(_ effects: [PaneEffect]) {
        for e in effects {
            switch e {
            case .readahead(let s): readahead = s
            case .holdStill(let byHLSTUI): held = byHLSTUI
            case .letGo: held = false
            default: break
            }
        }
    }

    /// The player failed: nothing holds it any more.
    mutating func failed() { held = false }

    /// Sync waits for another pane (`on`) or plays on; false when that is already so.
    mutating func syncWait(_ on: Bool) -> Bool {
        guard on != syncWaiting else { return false }
        syncWaiting = on
        return true
    }
}

extension SessionState {
    /// Sync: pause for `seconds`, reading on meanwhile as far as the hold and the usual read-ahead (a live window slides on, and
    /// what is read now is not missed when it plays; DECISIONS.md, sync), then play (`SessionTimer.endHold`).
    func holdSteps(seconds: Double) -> [PaneEffect] {
        [.readahead(playerHold.usual + seconds), .pause(true), .after(ms: Int(seconds * 1000), .endHold)]
    }

    /// A hold is over: the player plays unless the user paused it, and reads ahead as usual again.
    func endHold() -> [PaneEffect] {
        (userPaused ? [] : [.pause(false)]) + [.readahead(playerHold.usual)]
    }

    /// Sync: wait (paused) while another pane rebuffers, reading on meanwhile as a hold does (as long as the longest hold), or
    /// play on — unless the user paused.
    mutating func planSyncWait(_ on: Bool) -> [PaneEffect] {
        guard playerHold.syncWait(on) else { return [] }
        let readahead = PaneEffect.readahead(playerHold.usual + (on ? SyncController().maxHold : 0))
        return on || !userPaused ? [readahead, .pause(on)] : [readahead]
    }

    /// A reload+seek (`ReloadSeek`): the player held paused (unless the user paused it), given `rung` from segment `msn`, and
    /// looked at 5 ms later, until the fresh cache holds the target. `holdFrom`: the Loader keeps the segments from it on from
    /// the player until the seek is done; the target then lies up to that segment's start past where the reload starts (two
    /// segments before it, DECISIONS.md, sync), and the player reads that far before the seek, past its read-ahead when
    /// segments are long. `prewarmed`: the rung's playlist was just read (a start at a live edge) and is not read again.
    /// `readahead`: the read-ahead in effect once the effects before these are carried out.
    func planReload(
        rung: Int, msn: Int, to target: ReloadSeek.Target, holdFrom: Int? = nil, prewarmed: Bool = false, readahead: Double? = nil,
        at t: Double
    ) -> [PaneEffect] {
        var effects: [PaneEffect] = [.holdStill(byHLSTUI: !userPaused), .load(rung: rung, startMSN: msn, prewarmed: prewarmed)]
        var step = ReloadSeek(to: target, rung: rung, wasPaused: userPaused, heldFrom: holdFrom, deadline: t + ReloadSeek.limit)
        if let holdFrom {
            effects.append(.holdSegments(from: holdFrom, seconds: 2))
            let usual = readahead ?? playerHold.readahead
            if let end = programDateTime(StreamPoint(msn: holdFrom, offset: 0)),
                let start = programDateTime(StreamPoint(msn: msn, offset: 0)), end.seconds(since: start) + 1 > usual
            {
                step.readaheadBefore = usual
                effects.append(.readahead(end.seconds(since: start) + 1))
            }
        }
        return effects + [.after(ms: 5, .reloadSeek(step))]
    }
}

extension [PaneEffect] {
    /// The reload+seek these effects start, if any (`SessionState.planReload`).
    public var reloadSeek: ReloadSeek? {
        for case .after(_, .reloadSeek(let step)) in self { return step }
        return nil
    }
}
