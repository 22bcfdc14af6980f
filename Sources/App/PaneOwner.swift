import LoaderCore
import LoaderEvents
import Foundation
import HLS
import Loader
import NIOConcurrencyHelpers
import Player
import Session
import TUI

/// Everything that changes a pane, in the order it happened: the libraries' events, the user's actions, the watcher's looks,
/// the answers of work the owner started, and the questions of the screen, the monitor and sync.
enum PaneInput: Sendable {
    case loader(LoaderEvent)
    case mpv(MPVEvent)
    /// Open the stream; the continuation (nil: nobody waits) is resumed when it has opened or failed.
    case open(CheckedContinuation<Void, Never>?)
    case fetched(OpenedStream)
    case openFailed(String)
    /// The run may wait no longer for the stream to open (`Pane.stopOpening`).
    case stopOpening(String)
    case prewarmed(MediaPlaylist?)
    /// Sample the player (nil: nobody waits for the state).
    case sample(CheckedContinuation<SessionState, Never>?)
    case perform(Action)
    case say(LogLevel, String)
    /// The watcher's look (every 20 ms); answered when done, so looks never pile up.
    case watch(CheckedContinuation<Void, Never>)
    case refreshed(rung: Int, MediaPlaylist, RefreshPurpose)
    /// A subtitle read came back (docs/SUBTITLES.md).
    case subtitleRead(SubtitleRead, url: String, Result<SubtitleAnswer, SubtitleReadFailure>)
    case steered(SteeringAnswer)
    case timer(PaneTimer)
    case clock(CheckedContinuation<PaneClock, Never>)
    case speed(Double)
    case hold(Double)
    /// Sync: wait (paused) while another pane rebuffers, or play on.
    case syncWait(Bool)
    /// Sync: move to a moment read at an instant (`Pane.realign`).
    case realign(DateTime, ContinuousClock.Instant, CheckedContinuation<Bool, Never>)
}

/// The steps of an effect that takes time; each comes back as an input when it is due.
enum PaneTimer: Sendable {
    /// The demuxer has carried out an aimed seek: the aim is reset.
    case resetDemuxerOffset
    case endHold
    /// A look the Session asked for (`PaneEffect.after`).
    case session(SessionTimer)
}

/// The pane's one serial owner: it alone holds the pane's state and calls its player; it applies each input, asks the
/// Session what follows and carries out the effects (docs/ARCHITECTURE.md, the pane). It lives inside the pane's loop task.
final class PaneOwner {
    /// What the owner works with, handed over by the pane.
    struct Parts: Sendable {
        let index: Int
        let config: PaneConfig
        let started: ContinuousClock.Instant
        let loader: LoaderServer
        let mpv: MPV
        let audio: AudioOutputChoice
        let tasks: OwnedTasks
        let inputs: AsyncStream<PaneInput>.Continuation
        let published: NIOLockedValueBox<SessionState>
        let output: @Sendable (PaneReport) -> Void
        let picture: NIOLockedValueBox<PictureShared>
    }

    let parts: Parts
    var mpv: MPV { parts.mpv }
    var loader: LoaderServer { parts.loader }
    var state: SessionState
    var fetched: OpenedStream?
    var isLive = false
    var logFilter = MPVLogFilter()
    /// True while hlstui holds the player paused to move it inside a freshly loaded rung (not a pause of the user's).
    var holding = false
    /// The instant of the readings a sync move being planned was computed from (`Pane.realign`), for its effects.
    var moveReadAt: ContinuousClock.Instant?
    /// True while sync keeps the player paused for another pane that rebuffers.
    var syncWaiting = false
    /// The read-ahead in effect (a hold lengthens it) and the cache caps last given to the player.
    var readaheadSeconds: Double?
    var budgetApplied: CacheBudget?
    /// An opening under way, and who waits for it (nil: nobody, the screen's thread started it).
    struct Opening { var waiter: CheckedContinuation<Void, Never>? }
    var opening: Opening?
    var lastPublished = ContinuousClock.now
    var publishedMilestone: [Int?] = []
    /// When the picture was last sampled for frozen and black detection (`PictureWatch`).
    var lastFrame: ContinuousClock.Instant?

    init(_ parts: Parts, state: SessionState) {
        self.parts = parts
        self.state = state
    }

    var t: Double { Pane.seconds(ContinuousClock.now - parts.started) }

    /// Applies inputs until the pane closes; what was sent before the close is still applied, and every question answered.
    func run(_ stream: AsyncStream<PaneInput>) async {
        for await input in stream {
            handle(input)
            if ContinuousClock.now - lastPublished >= .milliseconds(25) || milestone != publishedMilestone { publish() }
        }
        opening?.waiter?.resume()
        opening = nil
        publish()
    }

    /// Makes the state readable outside the owner. At most every 25 ms (a copy shares the state's storage, so the next change
    /// copies what it changes), and whenever somebody waits for it.
    func publish() {
        parts.published.withLockedValue { $0 = state }
        lastPublished = .now
        publishedMilestone = milestone
    }

    /// What is published as soon as it changes: started, ended, failed, the rung loaded.
    var milestone: [Int?] {
        // The cue shown too: the screen draws it with the frame (docs/SUBTITLES.md).
        let cue = state.subtitles?.shown.first.map { Int($0.start * 1000) }
        return [state.started ? 1 : 0, state.ended ? 1 : 0, state.error == nil ? 0 : 1, state.loadedRung, cue]
    }

    func report(_ o: PaneOutput) { parts.output(PaneReport(pane: parts.index, t: t, output: o, state: state)) }

    /// Applies an event now and reports what followed.
    func apply(_ e: SessionEvent) {
        for f in state.reduce(.event(e), at: t).facts { report(.fact(f)) }
    }

    func say(_ level: LogLevel, _ text: String) {
        apply(.log(level: level, text: text))
        report(.log(level: level, text: text))
    }

    func fail(_ message: String, cause: String) { apply(.failed(message: message, cause: cause)) }

    /// Starts `body` as a task the pane owns.
    func spawn(_ body: @escaping @Sendable () async -> Void) { parts.tasks.spawn(body) }

    /// Sends `timer` back to the owner after `ms` milliseconds.
    func after(_ ms: Int, _ timer: PaneTimer) {
        let inputs = parts.inputs
        spawn {
            try? await Task.sleep(for: .milliseconds(ms))
            if !Task.isCancelled { inputs.yield(.timer(timer)) }
        }
    }

    func handle(_ input: PaneInput) {
        switch input {
        case .loader(let e): loaderEvent(e)
        case .mpv(let e): mpvEvent(e)
        case .open(let k):
            opening = Opening(waiter: k)
            startOpening()
        // Answers for an opening given up (`stopOpening`) come to nothing.
        case .fetched(let f): if opening != nil { opened(f) }
        case .openFailed(let why):
            guard opening != nil else { return }
            fail("cannot open the stream: \(why)", cause: "origin")
            finishOpening()
        case .stopOpening(let why):
            guard opening != nil else { return }
            let awaited =
                fetched == nil
                ? "the playlist \(parts.config.url) had not arrived"
                : "rung \(state.targetRung ?? 0)'s media playlist had not arrived"
            fail("\(why) before the stream opened: \(awaited)", cause: "open")
            finishOpening()
        case .prewarmed(let media): if opening != nil { firstLoad(media) }
        case .sample(let k):
            sample()
            if let k {
                publish()
                k.resume(returning: state)
            }
        case .perform(let action): perform(action)
        case .say(let level, let text): say(level, text)
        case .watch(let k):
            watch()
            k.resume()
        case .refreshed(let rung, let m, .liveEdge): apply(.liveEdge(rung: rung, playlist: m))
        case .refreshed(let rung, let m, .recovery): carry(state.reduce(.recovered(rung: rung, playlist: m), at: t))
        case .refreshed(let rung, _, .retest): apply(.pathwayAnswered(rung: rung))
        case .refreshed(let rung, let m, .edgeStart):
            apply(.liveEdge(rung: rung, playlist: m))
            if !startAtEdge(rung: rung, media: m) { say(.warn, "low latency: the playlist offers no start behind its edge") }
        case .subtitleRead(let read, let url, let result): apply(.subtitleRead(read, url: url, result: result))
        case .steered(let answer):
            if case .manifest(let m) = answer { addClones(m.clones) }
            apply(.steered(answer))
        case .timer(let timer): fire(timer)
        case .clock(let k): k.resume(returning: clock())
        case .speed(let s):
            apply(.speedGiven)
            run([.speed(s)])
        case .hold(let seconds): carry(state.reduce(.hold(seconds: seconds), at: t))
        case .syncWait(let on):
            guard on != syncWaiting else { return }
            syncWaiting = on
            // Reading on while it waits, as a hold does (as long as the longest hold).
            readahead(parts.config.player.readahead + (on ? SyncController().maxHold : 0))
            if on || !state.userPaused { run([.pause(on)]) }
        case .realign(let date, let readAt, let k):
            let plan = state.reduce(.realign(to: date), at: t)
            guard !plan.refused else { return k.resume(returning: false) }
            moveReadAt = readAt
            carry(plan)
            moveReadAt = nil
            k.resume(returning: true)
        }
    }

    func loaderEvent(_ e: LoaderEvent) {
        apply(.loader(e))
        report(.loader(e))
        if case .request = e, state.followsCMSD { carry(state.reduce(.serverCap(look()), at: t)) }
        // A stream that states no BANDWIDTH: the budget follows the segments' measured peak.
        if case .request(let r) = e, r.kind == .segment { budget() }
        if case .failover(let msn, let failed, let by?, let cause) = e {
            // The rung on screen changes for this segment: a switch with its own reason.
            report(.switched(VariantSwitch(t: t, from: failed, to: by, reason: .failover, mechanism: .splice, atMSN: msn, detail: cause)))
        }
        if case .gapFilled(let msn, let gapRung, let by) = e {
            // The rung on screen changes for this segment: a switch with its own reason (RFC 8216bis §4.4.4.7).
            report(.switched(VariantSwitch(t: t, from: gapRung, to: by, reason: .gap, mechanism: .splice, atMSN: msn)))
        }
    }

    func mpvEvent(_ e: MPVEvent) {
        switch e {
        case .playbackRestart:
            let first = !state.started
            apply(.playbackStarted)
            if first, let note = parts.audio.fallbackNote(current: mpv.get(.currentAO)) { say(.info, note) }
        case .endFile(let reason, let error):
            apply(.fileEnded(reason: reason == .eof ? .eof : reason == .error ? .error : .other, error: error))
        case .log(let level, let prefix, let text):
            let lines = logFilter.take(
                level: level, prefix: prefix, text: text, spliced: state.spliced, probingSampleAES: !state.started && state.usesSampleAES,
                anyPlayer: prefix.hasPrefix("ffmpeg") && MPV.openHandles > 1)
            for line in lines { say(line.level, line.text) }
        case .property:
            // A state flag changed: sample now so stalls and pauses are timed to the event, not the next tick.
            let before = state.state
            sample()
            if state.state != before { report(.sampled) }
        default: break
        }
    }

    // MARK: opening

    func startOpening() {
        let loader = self.loader, inputs = parts.inputs, url = parts.config.url
        spawn {
            do throws(UpstreamError) {
                inputs.yield(.fetched(try await loader.fetchTop(url)))
            } catch {
                // The user typed the URL: lead with the cause so it fits the status line.
                var why = error.description
                for prefix in [url + ": ", url + " "] where why.hasPrefix(prefix) { why = String(why.dropFirst(prefix.count)) }
                inputs.yield(.openFailed(why))
            }
        }
    }

    func opened(_ f: OpenedStream) {
        fetched = f
        // The subtitle playlist is read beside the rung's (docs/SUBTITLES.md): the plan's effects.
        carry(state.reduce(.event(.opened(url: f.url, playlist: f.playlist, diagnostics: f.diagnostics, file: f.file != nil)), at: t))
        budget()
        report(.ladder)
        if let blocking = f.diagnostics.first(where: { $0.severity == .error }), f.playlist.multivariant == nil, f.playlist.media == nil {
            fail("the playlist cannot be read: \(blocking)", cause: "playlist")
            return finishOpening()
        }
        // Read the rung's playlist (and fetch its keys) before the player asks: it says whether the stream is live.
        let loader = self.loader, inputs = parts.inputs, rung = state.targetRung ?? 0
        spawn { inputs.yield(.prewarmed(await loader.prewarmVariant(f, rung: rung))) }
    }

    func firstLoad(_ media: MediaPlaylist?) {
        guard let f = fetched else { return finishOpening() }
        let target = state.targetRung ?? 0
        isLive = media?.isLive ?? false
        // MPEG-TS ladders are spliced: the Loader chooses each segment's rung (docs/PLATFORM.md); fMP4 needs a reload per switch.
        let splice = f.playlist.multivariant != nil && (media.map(SwitchPlanner.isTS) ?? false)
        apply(.spliceChosen(splice))
        if isLive, let media, startAtEdge(rung: target, media: media) {
            let s = VariantSwitch(t: t, from: nil, to: target, reason: .start, mechanism: splice ? .loadSpliced : .load)
            apply(.switched(s))
            report(.switched(s))
        } else if load(rung: target, startMSN: nil, prewarmed: true) {
            let s = VariantSwitch(t: t, from: nil, to: target, reason: .start, mechanism: splice ? .loadSpliced : .load)
            apply(.switched(s))
            report(.switched(s))
        }
        startWatcher()
        finishOpening()
    }

    /// LL-HLS: the player starts PART-HOLD-BACK behind the last part of `media`, just read, not three segments back
    /// (DECISIONS.md, LL-HLS); false when the playlist offers no parts to the player or no such start.
    @discardableResult
    func startAtEdge(rung: Int, media: MediaPlaylist) -> Bool {
        guard LoaderServer.givesParts(media, options: loader.options), let start = SessionState.lowLatencyStart(media) else { return false }
        say(
            .info,
            "low latency: starting \(fixed(start.holdBack, 1)) s (PART-HOLD-BACK) behind the last part, in msn \(start.msn); parts reach the player as they are published"
        )
        // A timestamp reset listed after the start is kept from the player until the seek has landed: with it in the cache
        // first, mpv's cache never holds a target before it (docs/PLATFORM.md).
        let reset = media.withSegmentInProgress.segments.first { $0.mediaSequence > start.msn && $0.discontinuity }?.mediaSequence
        // The playlist the start is planned on was read just now, by the Loader: the player's read of it is answered from that
        // read (`LoaderServer.reusable`), not read again (docs/PROXY.md).
        reloadInPlace(
            rung: rung, msn: start.msn, to: .position(msn: start.msn, offset: start.offset, readAt: t), holdFrom: reset,
            prewarmed: true)
        apply(.lowLatencyStarted(holdBack: start.holdBack))
        return true
    }

    func finishOpening() {
        publish()
        opening?.waiter?.resume()
        opening = nil
    }

    /// Every 20 ms: one look of the watcher (`SessionState.watchStep`).
    func startWatcher() {
        let inputs = parts.inputs
        spawn {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                await withCheckedContinuation { k in
                    if case .terminated = inputs.yield(.watch(k)) { k.resume() }
                }
            }
        }
    }

    // MARK: reading the player

    /// The player's `time-pos` now; nil while it loads (it reads 0 then).
    func look() -> PlayerLook {
        guard !state.playerLoading else { return PlayerLook(time: nil) }
        return PlayerLook(time: mpv.get(.timePos), atEnd: mpv.get(.eofReached) ?? false, paused: mpv.get(.pause) ?? false)
    }

    /// Reads the player's properties and applies them; an automatic switch may follow.
    func sample() {
        var s = PlayerSample()
        if state.playerLoading {
            // Between loadfile and the restart the old position stands (time-pos reads 0 then).
            s.loading = true
            s.timePos = state.sample.timePos
            s.audioPts = state.sample.audioPts
        } else {
            s.timePos = mpv.get(.timePos)
            s.audioPts = mpv.get(.audioPts)
        }
        s.wall = DateTime(seconds: Date().timeIntervalSince1970)
        s.paused = mpv.get(.pause) ?? false
        s.held = holding
        s.pausedForCache = mpv.get(.pausedForCache) ?? false
        s.coreIdle = mpv.get(.coreIdle) ?? true
        s.eof = mpv.get(.eofReached) ?? false
        if (s.restarting || s.held) && state.started {
            // While mpv restarts its playback the picture stands where it was, and time-pos may read anything (docs/PLATFORM.md).
            // So while hlstui holds it paused for a seek to land in a freshly spliced rung: time-pos may read the key frame
            // before the target for a moment, a frame never shown (measured under load: 1.8 s back, then the target 50 ms later).
            s.timePos = state.sample.timePos
            s.audioPts = state.sample.audioPts
        }
        s.width = mpv.get(.videoWidth)
        s.height = mpv.get(.videoHeight)
        s.audioLanguage = mpv.get(.audioTrackLanguage)
        s.audioChannels = mpv.get(.audioChannelCount)
        s.droppedFrames = (mpv.get(.frameDropCount) ?? 0) + (mpv.get(.decoderFrameDropCount) ?? 0)
        s.speed = mpv.get(.speed) ?? 1
        if let cache = mpv.get(.demuxerCacheState) {
            s.seekableRanges = cache.seekableRanges.map { TimeRange(start: $0.start, end: $0.end) }
            s.cacheEnd = cache.cacheEnd
            s.underrun = cache.underrun
        }
        apply(.sample(s))
        reportToLoader()
        samplePicture(decoding: s.width != nil)
        carry(state.reduce(.sampled(look()), at: t))
    }

    /// A steering manifest's clones (docs/STEERING.md): their variants and renditions are added to the stream the player is
    /// given, the Loader's routes and the ladder, so a clone is a pathway like the playlist's own.
    func addClones(_ clones: [PathwayClone]) {
        guard var f = fetched, case .multivariant(let m) = f.playlist.body else { return }
        let grown = clones.reduce(m) { $1.expand($0, base: f.url) }
        guard grown.variants.count > m.variants.count else { return }
        f.playlist.body = .multivariant(grown)
        fetched = f
        loader.addRungs(grown, base: f.url)
        apply(.ladderGrown(grown))
        report(.ladder)
    }

    /// Twice a second while video is decoded (at `--picture-fps` while the screen shows the picture): the frame on screen,
    /// reduced to its luma grid for frozen and black detection, and scaled down for the screen when it is shown.
    func samplePicture(decoding: Bool) {
        guard decoding, parts.config.player.decodeVideo, !state.playerLoading else { return }
        let (wanted, detailed) = parts.picture.withLockedValue { ($0.wanted, $0.detailed) }
        let every = wanted ? min(500, Int(1000 / max(0.5, parts.config.player.pictureFPS))) : 500
        let now = ContinuousClock.now
        if let l = lastFrame, now - l < .milliseconds(every) { return }
        lastFrame = now
        guard let f = mpv.videoFrame(), f.format == "bgr0" else { return }
        if wanted {
            // Cells need 160×90 at most (two pixels a cell); a terminal drawing pixels gets three times that.
            let (mw, mh) = detailed ? (480, 270) : (160, 90)
            let image = PictureImage.of(bgr0: f.bytes, width: f.width, height: f.height, stride: f.stride, maxWidth: mw, maxHeight: mh)
            parts.picture.withLockedValue { $0.image = image }
        }
        if let g = LumaGrid.of(bgr0: f.bytes, width: f.width, height: f.height, stride: f.stride) { apply(.frame(g)) }
    }

    /// The wall-clock moment at the playhead now (see `PaneClock`; the Session reads it, `SessionState.moment`).
    func clock() -> PaneClock {
        let look = ClockLook(
            paused: mpv.get(.pause) ?? false, pausedForCache: mpv.get(.pausedForCache) ?? false,
            eofReached: mpv.get(.eofReached) ?? false, coreIdle: mpv.get(.coreIdle) ?? false,
            audioPts: mpv.get(.audioPts), timePos: mpv.get(.timePos))
        // The moment of the reading: the other pane's is read later, and the difference is taken out (a loaded machine can
        // put tens of milliseconds between two property reads).
        let at = ContinuousClock.now
        let m = state.moment(look)
        return PaneClock(pdt: m.pdt, playing: m.playing, hasPDT: m.hasPDT, at: at, window: m.window, stalled: m.stalled)
    }

    // MARK: decisions

    func perform(_ action: Action) { carry(state.reduce(.action(action, look()), at: t)) }

    /// One look of the watcher.
    func watch() { carry(state.reduce(.watch(look()), at: t)) }

    /// Carries out a plan: its effects, then the switch it records (completed by where the Loader's route takes effect), the
    /// facts it reports and the lines it says.
    func carry(_ plan: PanePlan) {
        let routedAt = run(plan.effects)
        if var sw = plan.record {
            if sw.mechanism == .splice { sw.atMSN = routedAt }
            apply(.switched(sw))
            report(.switched(sw))
        }
        for f in plan.facts { report(.fact(f)) }
        for line in plan.said { say(line.level, line.text) }
    }
}

extension PaneOwner {
    /// With `--cmcd`: what the Loader's CMCD reports of the player from now on (docs/CMCD.md), as measured at this sample.
    func reportToLoader() {
        guard loader.options.cmcd != nil else { return }
        let top = state.caps.allowed(state.ladder).compactMap { state.ladder.rungs[safe: $0]?.bandwidth }.max()
        let stopped = state.sample.paused || state.currentStall != nil
        loader.playerStatus(
            CMCDPlayerStatus(
                bufferAhead: state.bufferedAhead, throughput: state.throughput.estimate.map { Int($0) },
                rate: stopped ? 0 : state.sample.speed,
                topBitrate: top, urgent: !state.started || state.playerLoading || state.currentStall != nil, stalls: state.stallCount,
                live: state.playingMedia?.isLive))
    }
}
