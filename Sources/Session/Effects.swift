import CMCD
import HLS

/// What a pane does to its player and its Loader. The Session decides them (pure functions of the state, the time and what
/// the player was read to say); the pane's owner carries them out in order (docs/ARCHITECTURE.md, the pane).
public enum PaneEffect: Sendable, Equatable {
    /// Give the player `rung`'s playlist from segment `startMSN` (nil: where a player starts on its own): a load or a reload.
    /// `prewarmed`: the rung's playlist was just read, and is not read again before the player asks.
    case load(rung: Int, startMSN: Int?, prewarmed: Bool = false)
    /// Route the splice: the Loader serves `rung`'s segments and fills its GAPs from `fill`, best first.
    case route(rung: Int, fill: [Int])
    /// Read `rung`'s media playlist now, so the session knows its segments before the player asks.
    case prewarm(rung: Int)
    /// Read `rung`'s media playlist now; the answer comes back to the Session (`liveEdge`, or `recovered(rung:with:at:)`).
    case refresh(rung: Int, purpose: RefreshPurpose)
    /// A seek by `by` seconds that the player carries out inside its cache.
    case seekInCache(by: Double)
    /// A seek by `by` seconds that the demuxer carries out, aimed `aimBack` seconds early (`demuxerSeekOffset`).
    case seekDemuxer(by: Double, aimBack: Double)
    /// Pause (true) or play (false): the user's pause, or playing on after a reload the end of the player's playlist paused.
    case pause(Bool)
    /// Play at `speed` (sync's correction; audio keeps its pitch).
    case speed(Double)
    /// Read part of the subtitle rendition shown, for hlstui itself (docs/SUBTITLES.md); the answer comes back as
    /// `SessionEvent.subtitleRead`.
    case readSubtitles(SubtitleRead)
    /// Have the player decode the CEA-608 captions in the video and show them (its `sub-text` read into each look), or stop
    /// (docs/SUBTITLES.md, "Closed captions").
    case closedCaptions(Bool)
    /// Content steering: read the steering manifest at `url` (resolved against the stream's) for `pathway`, with the
    /// throughput measured (docs/STEERING.md); the answer comes back as `SessionEvent.steered`.
    case reloadSteering(url: String, pathway: String, throughput: Int?)
    /// A reload+seek (`ReloadSeek`): seek to raw media time `to`, the demuxer aimed `aimBack` seconds early when given.
    case seekAbsolute(to: Double, aimBack: Double?)
    /// Send `timer` back to the Session after `ms` milliseconds, with the player read then.
    case after(ms: Int, SessionTimer)
    /// hlstui holds the player paused for a seek to land (`byHLSTUI` false: the user had paused it already).
    case holdStill(byHLSTUI: Bool)
    /// Whether seeks go to mpv's cache: false sends the next one to the demuxer; nil is libmpv's default (docs/PLATFORM.md).
    case seekableCache(Bool?)
    /// The Loader keeps segment `from` and those after it from the player for up to `seconds`, until a seek is done
    /// (`releaseSegments`).
    case holdSegments(from: Int, seconds: Double)
    /// The segments the Loader kept from the player until a seek was done go to it.
    case releaseSegments
    /// Read `seconds` ahead of the playhead (within the pane's memory budget).
    case readahead(Double)
    /// A reload+seek is over: the player is no longer held, and plays unless the user paused (`play` false).
    case letGo(play: Bool)
    /// An interstitial's X-ASSET-LIST (`uri` as the playlist writes it), read through the Loader as a player asks it, with
    /// `_HLS_start_offset` when given; the answer comes back as `InterstitialInput.listAnswered` (docs/EVENTS.md).
    case fetchAssetList(id: String, uri: String, startOffset: Double?)
    /// Read an interstitial asset's playlist (`uri` as the playlist or the list writes it); the answer comes back as
    /// `InterstitialInput.assetOpened` or `.assetFailed`.
    case openAsset(uri: String)
    /// Give the player the asset just opened: its variant `variant` (nil: its media playlist, or all of it).
    case loadAsset(variant: Int?)
}

/// Why hlstui reads a playlist the player did not ask for.
public enum RefreshPurpose: Sendable, Equatable {
    /// The live edge and the latency stay current while FFmpeg does not reload.
    case liveEdge
    /// The origin stopped the player: once it answers, the player is reloaded.
    case recovery
    /// A penalised pathway retested: its answer lifts the penalty.
    case retest
    /// LL-HLS: the playhead fell too far behind; the player starts again PART-HOLD-BACK behind this answer's edge.
    case edgeStart
    /// Live: an interstitial is over, and the primary resumes at the live moment of this answer (its playlist was not read
    /// while the asset played).
    case resume
}

/// What the player was read to say, just before a decision.
public struct PlayerLook: Sendable, Equatable {
    /// `time-pos` now; nil while the player loads (it reads 0 then).
    public var time: Double?
    /// The player stopped at the end of what it was given.
    public var atEnd = false
    public var paused = false
    /// The captions the player shows now (its `sub-text`) while it is told to decode them; nil otherwise.
    public var captions: String?
    public init(time: Double?, atEnd: Bool = false, paused: Bool = false, captions: String? = nil) {
        self.time = time
        self.atEnd = atEnd
        self.paused = paused
        self.captions = captions
    }
}

/// A decision: the effects to carry out, then the switch to record (its `atMSN` completed by the splice route when the
/// Loader alone knows where the route takes effect), the facts to report and the lines to say (message log and monitor).
public struct PanePlan: Sendable {
    public var effects: [PaneEffect] = []
    public var record: VariantSwitch?
    public var facts: [SessionFact] = []
    public var said: [(level: LogLevel, text: String)] = []
    /// Nothing could be planned for what was asked (a sync move to a moment the stream cannot reach).
    public var refused = false
    public init() {}
}

extension SessionState {
    /// The splice route that plays `rung`, with the rungs that may fill its GAPs; nil when the stream is not spliced.
    public func route(_ rung: Int) -> PaneEffect? {
        spliced ? .route(rung: rung, fill: SwitchPlanner.fill(for: rung, ladder: ladder, allowed: caps.allowed(ladder))) : nil
    }

    /// The playhead at raw media time `time` read just now (nil while the player loads: the last sample's playhead then).
    public func freshPoint(_ time: Double?) -> StreamPoint? {
        if let time { return locate(time) }
        return playhead
    }

    /// How far before the target a demuxer seek must aim so FFmpeg 5.1 lands at or before it: the middle of the segment before
    /// the target's. FFmpeg's HLS demuxer seeks to where the playlist says a segment starts, counted from the first timestamp it
    /// read, and drops packets until a video key frame whose *decoding* time is at or after that; when that first timestamp is
    /// later than a key frame's decoding time (B-frames delay presentation, and packagers that write audio first put a later
    /// audio timestamp first), the key frame is dropped and playback lands on the next segment. Aimed one segment back it
    /// lands on that segment's key frame or the target's, both at or before the target (DECISIONS.md, switches never skip).
    /// Nil when the target's segment is the first of the player's playlist.
    public func demuxerSeekOffset(into p: StreamPoint) -> Double? {
        let first = givenStart ?? playingMedia?.segments.first?.mediaSequence ?? p.msn
        guard p.msn > first,
            let previous = seen[p.msn - 1]?.duration ?? playingMedia?.segments.first(where: { $0.mediaSequence == p.msn - 1 })?.duration
        else { return nil }
        return max(0, p.offset) + previous / 2
    }

    /// A switch to `rung` by the mechanism its container, the ladder and `mode` allow (docs/PLATFORM.md); nil when there is
    /// nothing to switch. `look.time` is the playhead read just now.
    mutating func planSwitch(
        to rung: Int, reason: SwitchReason, detail: String? = nil, mode: SwitchMode, look: PlayerLook, at t: Double
    ) -> PanePlan? {
        guard let from = loadedRung, from != rung, let a = ladder.rungs[safe: rung], let b = ladder.rungs[safe: from] else { return nil }
        let live = playingMedia?.isLive ?? false
        var detail = detail
        var mech = SwitchPlanner.mechanism(
            spliced: spliced, compatible: SwitchPlanner.compatible(b, a, renditions: ladder.renditions), live: live, mode: mode)
        // LL-HLS given part by part (DECISIONS.md, LL-HLS): the player reads the segment in progress and asks for the next
        // only once it completes, so a splice takes effect at the next boundary as the reload would, without the restart a
        // reload costs — a stall at PART-HOLD-BACK 1 s, where the player holds a second.
        if mech == .spliceReload, catchUp != nil {
            mech = .splice
            detail = [detail, "low latency: the next segment the player asks for is the new rung's"].compactMap { $0 }.joined(
                separator: "; ")
        }
        let fresh = freshPoint(look.time)
        let here = fresh?.msn ?? playhead?.msn
        var plan = PanePlan()
        var atMSN: Int?
        switching.plan(nil)
        /// Reload at the playhead's segment and seek in the fresh cache; at the next boundary when the playhead is unknown.
        func inPlace() {
            if let time = look.time, let p = locate(time) {
                plan.effects += planReload(rung: rung, msn: p.msn, to: .raw(time), at: t)
            } else {
                switching.plan(PlannedReload(rung: rung, boundary: nil))
            }
        }
        switch mech {
        case .splice:
            // Where the route takes effect is the Loader's to say: the pane completes `atMSN`.
            plan.effects += [route(rung)].compactMap { $0 }
        case .spliceSeek:
            plan.effects += [route(rung)].compactMap { $0 }
            if let h = here, let p = fresh, p.msn == h, demuxerSeekOffset(into: p) != nil {
                atMSN = h
                // The cache made unseekable for one seek sends it to the demuxer; the re-read is checked (`rereadStep`).
                plan.effects += [.seekableCache(false), .after(ms: 10, .reread(rung: rung, msn: h, attempt: 0))]
            } else {
                // FFmpeg cannot re-read the player's first segment exactly: the new rung is loaded at that segment instead and the
                // player moved inside its fresh cache (a cache seek, exact whoever packaged the stream), as on fMP4.
                mech = .reloadSeek
                detail = [
                    detail,
                    "the segment under the playhead is the player's first, which FFmpeg 5.1 cannot re-read exactly: reloaded there and sought in the cache",
                ]
                .compactMap { $0 }.joined(separator: "; ")
                atMSN = here
                inPlace()
            }
        case .spliceReload:
            plan.effects += [route(rung)].compactMap { $0 }
            atMSN = here.map { $0 + 1 }
            switching.plan(PlannedReload(rung: rung, boundary: atMSN))
        case .reloadBoundary:
            plan.effects.append(.prewarm(rung: rung))
            atMSN = here.map { $0 + 1 }
            switching.plan(PlannedReload(rung: rung, boundary: atMSN))
        case .reloadSeek:
            atMSN = here
            plan.effects.append(.prewarm(rung: rung))
            inPlace()
        case .load, .loadSpliced:
            // Not a switch: the planner only plans switches between rungs (the first load is the pane's opening).
            return nil
        }
        plan.record = VariantSwitch(t: t, from: from, to: rung, reason: reason, mechanism: mech, atMSN: atMSN, detail: detail)
        return plan
    }

    /// A selection action (pin, automatic, caps, switch mode): the splice's GAP fill follows the new caps, and a switch to the
    /// rung the controllers want now.
    mutating func planSelection(_ action: Action, mode: SwitchMode? = nil, look: PlayerLook, at t: Double) -> PanePlan {
        guard let reason = select(action), let target = targetRung, !ladder.single, !ladder.rungs.isEmpty else { return PanePlan() }
        if target == loadedRung {
            var plan = PanePlan()
            plan.effects += [route(target)].compactMap { $0 }
            return plan
        }
        return planSwitch(to: target, reason: reason, mode: mode ?? manualSwitch, look: look, at: t) ?? PanePlan()
    }

    /// One look of the watcher (every 20 ms): the live window kept current, a player its origin stopped retried, a planned
    /// boundary reload carried out, an fMP4 discontinuity or an unfillable GAP run crossed (DECISIONS.md, rung switching; GAP).
    mutating func watchStep(look: PlayerLook, at now: Double) -> PanePlan {
        var plan = PanePlan()
        // Live: when the playing rung's playlist has not been read for a target duration and a half (FFmpeg reloads only when it
        // needs a segment, and never a playlist the Loader ended before a break), hlstui reads it, so the live edge stays current.
        if let rung = loadedRung, let target = playingMedia.flatMap({ $0.isLive ? $0.targetDuration : nil }),
            liveEdges.refreshDue(rung, target: target, at: now)
        {
            plan.effects.append(.refresh(rung: rung, purpose: .liveEdge))
        }
        // A player stopped at the end of what it had because its origin failed is retried once a second while the stall lasts.
        if started, !ended, error == nil, let stall = currentStall, eofSince != nil, let rung = loadedRung,
            liveEdges.recoveryDue(at: now)
        {
            if now - stall.start >= 1 { plan.effects.append(.refresh(rung: rung, purpose: .recovery)) }
        }
        // LL-HLS: a playhead that fell behind PART-HOLD-BACK (a stall, a timestamp reset's restart) plays a little faster
        // until it is back (DECISIONS.md, LL-HLS).
        if catchUp != nil, !playerLoading, started, !ended, !userPaused, currentStall == nil, let latency = edgeDistance,
            let step = catchUp?.step(latency: latency, at: now)
        {
            let behind = "low latency: \(fixed(latency, 1)) s behind the edge, PART-HOLD-BACK \(fixed(catchUp?.target ?? 0, 1)) s"
            switch step {
            case .speed(let speed):
                plan.effects.append(.speed(speed))
                if speed != 1 { note(.info, "\(behind): playing at \(fixed(speed, 2))× until back", now) }
            case .toEdge:
                plan.effects.append(.refresh(rung: loadedRung ?? 0, purpose: .edgeStart))
                note(.warn, "\(behind): starting again at the edge", now)
            }
        }
        // A seek asked for before the first frame, now that the playhead is known.
        if let target = pendingSeek, started, !playerLoading, look.time != nil, let pos = position {
            pendingSeek = nil
            plan.effects += planSeek(by: target - pos, at: now)
        }
        // The subtitles: the reads due, and the cue at the playhead as the player shows it now (docs/SUBTITLES.md).
        plan.effects += subtitleReads(at: now) + captionsWanted()
        plan.facts +=
            followSubtitles(time: look.time, captions: look.captions, at: now) + checkSubtitleTiming(at: now)
            + followMetadata(time: look.time, at: now)
        guard !playerLoading, let time = look.time, let decision = watch(at: time, atEnd: look.atEnd) else { return plan }
        let rung = loadedRung ?? 0
        switch decision {
        case .reloadForSwitch(let to, let msn):
            // The player's playlist ends at this boundary: a player that got there first is paused at its end (`keep-open`),
            // and the new rung's file would load paused and stay so.
            plan.effects += reloadAtBreak(rung: to, msn: msn)
            note(.info, "reloaded at the boundary of msn \(msn)", now)
        case .reloadForSwitchInPlace(let to, let msn, let boundary):
            // The player is paused, given the new rung from the playhead's segment and sought in the fresh cache to where it
            // stood: the switch lands where it was announced plus the look's lateness, not a segment or more later.
            plan.effects += planReload(rung: to, msn: msn, to: .raw(time), at: now)
            plan.said.append(
                (
                    .info,
                    "the playhead passed the boundary of msn \(boundary) before the watcher looked: reloaded at msn \(msn) and sought to the playhead"
                ))
        case .crossDiscontinuity(let msn):
            // FFmpeg 5.1 stalls for good where an fMP4 stream's timestamps restart: a fresh load there does not.
            plan.effects += reloadAtBreak(rung: rung, msn: msn)
            note(.info, "fMP4 discontinuity at msn \(msn): reloaded there (FFmpeg 5.1 stalls on fMP4 timestamp resets)", now)
        case .crossGap(let g):
            // The player's playlist ends before the run (so FFmpeg never sees the hole that would freeze video and desync audio,
            // docs/PLATFORM.md); at that boundary the playlist is reloaded from the first segment after the run.
            plan.effects += reloadAtBreak(rung: rung, msn: g.after)
            note(
                .info,
                "crossed GAP msn \(g.first)–\(g.after - 1) (\(fixed(g.duration, 1)) s, no rung has media): reloaded at msn \(g.after)", now)
            let pdt = playingMedia?.segments.first { $0.mediaSequence == g.first }?.effectiveProgramDateTime
            plan.facts.append(.gap(rung: rung, msn: g.first, pdt: pdt, duration: g.duration, action: "crossed: reloaded at msn \(g.after)"))
        }
        return plan
    }

    /// Reloads `rung` from `msn` at a boundary (a switch, a GAP run, an fMP4 discontinuity) and plays on unless the user paused: mpv pauses at
    /// the end of what it was given (`keep-open`) a moment after it reports that end, so the look cannot be asked whether it did.
    func reloadAtBreak(rung: Int, msn: Int) -> [PaneEffect] {
        [.load(rung: rung, startMSN: msn)] + playOn
    }

    /// Play, unless the user paused.
    var playOn: [PaneEffect] { userPaused ? [] : [.pause(false)] }

    /// The user's pause key: pause, or play again.
    mutating func planTogglePause() -> [PaneEffect] {
        if playback.togglePause() { catchUp?.userMoved() }
        return [.pause(userPaused)]
    }

    /// The origin of a stopped player answers again with `fresh`, `rung`'s playlist: the player is reloaded live at the
    /// playhead's moment, or the live edge if that moment left the window; VOD where it stopped. Nothing when the stall ended
    /// meanwhile or a load is under way.
    mutating func recovered(rung: Int, with fresh: MediaPlaylist, at t: Double) -> PanePlan {
        var plan = PanePlan()
        let (msn, how) = resumePoint(in: fresh)
        guard let stall = currentStall, !playerLoading else { return plan }
        liveEdges.seen(rung, fresh, at: now)
        plan.effects = [.load(rung: rung, startMSN: msn)] + playOn
        let why = stall.cause ?? "no cause seen"
        plan.said.append((.info, "the origin answers again after \(fixed(t - stall.start, 1)) s stalled (\(why)): reloaded \(how)"))
        return plan
    }

}

extension SessionState {
    /// An answer's CMSD-Dynamic: its lowest `mb` caps the ladder, one without `mb` lifts the cap (each says what holds now).
    /// Answers without CMSD-Dynamic change nothing, but a cap no answer has repeated for `RungSelection.serverCapLife` seconds is lifted: the
    /// server stopped saying it.
    mutating func followServer(_ cmsd: CMSD?, at t: Double) {
        if let said = selection.follow(cmsd, at: t) { note(.info, said, t) }
    }

    /// After the server's cap moved: the switch to the rung the controllers want now (reason `cmsd`), or the splice's GAP fill
    /// for the new caps; empty when nothing moved.
    mutating func planServerCap(mode: SwitchMode, look: PlayerLook, at t: Double) -> PanePlan {
        guard selection.takeServerCapMove() else { return PanePlan() }
        guard let target = targetRung, !ladder.single, !ladder.rungs.isEmpty else { return PanePlan() }
        if target == loadedRung {
            var plan = PanePlan()
            plan.effects += [route(target)].compactMap { $0 }
            return plan
        }
        let detail = caps.serverMaxBitrate.map { "CMSD mb \(Rung.rate($0))bps" } ?? "CMSD cap lifted"
        return planSwitch(to: target, reason: .cmsd, detail: detail, mode: mode, look: look, at: t) ?? PanePlan()
    }
}
