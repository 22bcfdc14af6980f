import HLS
import LoaderEvents

/// Everything that changes a pane's Session, as its owner gives it (docs/ARCHITECTURE.md, "where each decision lives"): one
/// entry point, `SessionState.reduce`, and one answer, a `PanePlan`. What the player was read to say comes with the inputs
/// that decide on it.
public enum SessionInput: Sendable {
    /// Something happened: the Loader, the player, the owner's own doings (`SessionEvent`). The plan holds its facts.
    case event(SessionEvent)
    /// A person's key or a script's command. `recordedAt`: the playhead a script's or a replay's command is decided at — a
    /// script's, the one the run saw when it gave it; a replay's, its recording's — not where the player is when the owner
    /// takes it (up to a monitor tick later, past a segment's end now and then): a replayed switch then takes the recorded
    /// mechanism and the player asks for the recorded segments (docs/REPLAY.md).
    case action(Action, PlayerLook, recordedAt: StreamPoint? = nil)
    /// One look of the watcher (every 20 ms): the live window, a stopped player retried, boundary reloads, GAPs and fMP4
    /// discontinuities crossed, low latency's catch-up, subtitles and timed metadata at the playhead.
    case watch(PlayerLook)
    /// The player was sampled (applied as `.event(.sample)` first): content steering's reload and retest, a pathway move, the
    /// ABR's switch.
    case sampled(PlayerLook)
    /// A request's answer was recorded and the server's CMSD cap may have moved (`--cmsd-cap`).
    case serverCap(PlayerLook)
    /// A playlist hlstui read for itself came back (`PaneEffect.refresh`): `rung`'s, read for `purpose`; `partsGiven`: the
    /// Loader gives the player its parts.
    case refreshed(rung: Int, MediaPlaylist, RefreshPurpose, partsGiven: Bool)
    /// The origin of a stopped player answers again with `playlist`, `rung`'s: the player is reloaded.
    case recovered(rung: Int, playlist: MediaPlaylist)
    /// Sync: pause for `seconds` while the other panes reach this one's moment.
    case hold(seconds: Double)
    /// Sync: move the playhead to the moment `date`, read at session time `readAt` (the plan is `refused` when the stream
    /// cannot get there).
    case realign(to: DateTime, readAt: Double)
    /// Sync: wait (paused) while another pane rebuffers, or play on.
    case syncWait(Bool)
    /// Sync's speed: the player plays at `speed`, and low latency's catch-up gives the speed up to it.
    case syncSpeed(Double)
    /// A look the Session asked for (`PaneEffect.after`), with the player read now.
    case timer(SessionTimer, SeekLook)
    /// The top playlist and the target rung's (`media`, nil when it could not be read) are read: the player is first given
    /// the stream. `multivariant`: the top playlist is one; `partsGiven`: the Loader gives the player `media`'s parts.
    case firstLoad(media: MediaPlaylist?, multivariant: Bool, partsGiven: Bool)
    /// LL-HLS: `rung`'s newest playlist, read to start again at its edge (`RefreshPurpose.edgeStart`).
    case edgeRead(rung: Int, media: MediaPlaylist, partsGiven: Bool)
    /// An interstitial's list or asset came back (`InterstitialInput`).
    case interstitial(InterstitialInput)
}

extension SessionState {
    /// Applies `input` at session time `t` and returns what the owner carries out: effects in order, the switch to record, the
    /// facts to report and the lines to say.
    public mutating func reduce(_ input: SessionInput, at t: Double) -> PanePlan {
        // An interstitial in play takes the player's inputs as its asset's (docs/EVENTS.md, "Interstitials played").
        if let plan = duringInterstitial(input, at: t) {
            playerHold.given(plan.effects)
            return plan
        }
        var plan = PanePlan()
        switch input {
        case .event(let e):
            plan.facts = apply(e, at: t)
            // The subtitle playlist is read beside the rung's from the start (docs/SUBTITLES.md).
            if case .opened = e { plan.effects = subtitleReads(at: t) }
            // The primary ended with a post-roll to play (`InterstitialPlay.postDue`).
            if interstitials.postDue, interstitials.run == nil {
                interstitials.post(false)
                if let post = postRoll {
                    let begun = beginInterstitial(post, resume: .end, when: "post", at: t)
                    plan.facts += begun.facts
                    plan.effects += begun.effects
                } else {
                    playback.reachedEnd()
                    plan.facts.append(.ended)
                }
            }
        case .interstitial(let i):
            plan = interstitial(i, at: t)
        case .action(let action, var look, let recordedAt):
            if look.time != nil, let m = recordedAt, let recorded = rawTime(at: m) { look.time = recorded }
            plan = perform(action, look: look, at: t)
        case .watch(let look):
            plan = watchStep(look: look, at: t)
        case .sampled(let look):
            plan = afterSample(look: look, at: t)
        case .serverCap(let look):
            if followsCMSD { plan = planServerCap(mode: autoSwitch, look: look, at: t) }
        case .refreshed(let rung, let m, .liveEdge, _): plan.facts = apply(.liveEdge(rung: rung, playlist: m), at: t)
        case .refreshed(let rung, let m, .recovery, _): plan = recovered(rung: rung, with: m, at: t)
        case .refreshed(let rung, _, .retest, _): plan.facts = apply(.pathwayAnswered(rung: rung), at: t)
        case .refreshed(let rung, let m, .resume, _):
            // The primary's playlist now, as the Loader reads it for the player, then the resumption at its live moment.
            let read = apply(.loader(.playlist(PlaylistEvent(url: url, rung: rung, rendition: nil, playlist: m, received: t))), at: t)
            plan = finishInterstitial(at: t)
            plan.facts = read + plan.facts
        case .refreshed(let rung, let m, .edgeStart, let partsGiven):
            plan = reduce(.edgeRead(rung: rung, media: m, partsGiven: partsGiven), at: t)
        case .recovered(let rung, let playlist):
            plan = recovered(rung: rung, with: playlist, at: t)
        case .hold(let seconds):
            plan.effects = planHold(seconds: seconds, at: t)
        case .realign(let date, let readAt):
            if let effects = planRealign(to: date, readAt: readAt, at: t) { plan.effects = effects } else { plan.refused = true }
        case .syncWait(let on):
            plan.effects = planSyncWait(on)
        case .syncSpeed(let speed):
            plan.facts = apply(.speedGiven, at: t)
            plan.effects = [.speed(speed)]
        case .timer(let timer, let look):
            plan = self.timer(timer, look: look, at: t)
        case .firstLoad(let media, let multivariant, let partsGiven):
            // A pre-roll plays before the primary's first frame (RFC 8216bis Appendix D, CUE=PRE).
            if let pre = preRoll(in: media) {
                plan = beginInterstitial(
                    pre, resume: .firstLoad(media: media, multivariant: multivariant, partsGiven: partsGiven), when: "pre", at: t)
            } else {
                plan = planFirstLoad(media: media, multivariant: multivariant, partsGiven: partsGiven, at: t)
            }
        case .edgeRead(let rung, let media, let partsGiven):
            plan.facts = apply(.liveEdge(rung: rung, playlist: media), at: t)
            if let edge = partsGiven ? planEdgeStart(rung: rung, media: media, at: t) : nil {
                plan = edge
            } else {
                plan.said = [(.warn, "low latency: the playlist offers no start behind its edge")]
            }
        }
        // hlstui's own pauses and the read-ahead in effect follow what the owner is given (`PlayerHold`).
        playerHold.given(plan.effects)
        return plan
    }

    /// A person's key or a script's command (the dashboard's and sync's own keys are not the pane's).
    mutating func perform(_ action: Action, look: PlayerLook, at t: Double) -> PanePlan {
        var plan = PanePlan()
        switch action {
        case .togglePause: plan.effects = planTogglePause()
        // A seek past an interstitial that restricts JUMP plays it first; one back before those played plays them again
        // (docs/EVENTS.md, "Interstitials played").
        case .seekRelative(let d):
            if let jump = planJump(by: d, at: t) {
                plan = jump
            } else {
                plan.effects = interstitialsSeek(by: d, at: t) + planSeek(by: d, at: t)
            }
        case .seekTo(let pos):
            if let p = position, started, let jump = planJump(by: pos - p, at: t) {
                plan = jump
            } else {
                if let p = position, started { _ = interstitialsSeek(by: pos - p, at: t) }
                plan.effects = planSeek(to: pos, at: t)
            }
        case .quit, .toggleSync, .syncReference: break
        case .pinPathway, .nextPathway: plan.facts = choosePathway(action, at: t)
        case .audio(let select): plan = planAudio(select, look: look, at: t)
        case .subtitles(let select): plan = planSubtitles(select, at: t)
        default: plan = planSelection(action, look: look, at: t)
        }
        return plan
    }

    /// After a sample: content steering's reload when due and a penalised pathway's retest (docs/STEERING.md), then a move to
    /// another pathway, else the ABR's switch.
    mutating func afterSample(look: PlayerLook, at t: Double) -> PanePlan {
        // The playhead reached an interstitial: the primary leaves for it, to resume at START-DATE plus the resumption offset
        // (VOD), or at the live moment (live).
        if let i = midRollDue(), let start = i.startDate {
            let live = playingMedia?.isLive ?? false
            return beginInterstitial(i, resume: live ? .live(playheadPDT ?? start, since: t) : .vod(start), when: "mid", at: t)
        }
        var effects: [PaneEffect] = []
        if let due = steeringReloadDue(at: t) {
            effects.append(.reloadSteering(url: due.url, pathway: due.pathway, throughput: due.throughput))
        }
        if let rung = pathwayRetest(at: t) { effects.append(.refresh(rung: rung, purpose: .retest)) }
        var plan = PanePlan()
        if let to = takePathwayMove(), let p = pathways,
            let switched = planSwitch(
                to: to, reason: .pathway, detail: "pathway \(pathway(of: loadedRung ?? to)) → \(p.current)", mode: autoSwitch,
                look: look, at: t)
        {
            plan = switched
        } else if let d = abrDecision(config: abr),
            let switched = planSwitch(to: d.rung, reason: .abr, detail: d.reason, mode: autoSwitch, look: look, at: t)
        {
            plan = switched
        }
        plan.effects = effects + plan.effects
        return plan
    }
}
