import LoaderEvents
import Foundation
import HLS
import Loader
import NIOConcurrencyHelpers
import Player
import Session

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
        /// How the owner's own work and timers come back to it.
        let back: OwnerInputs<PaneInput>
        let published: NIOLockedValueBox<SessionState>
        let output: @Sendable (PaneReport) -> Void
        let picture: NIOLockedValueBox<PictureShared>
    }

    let parts: Parts
    var mpv: MPV { parts.mpv }
    var loader: LoaderServer { parts.loader }
    var state: SessionState
    var fetched: OpenedStream?
    /// The interstitial asset the player is given next or holds (docs/EVENTS.md, "Interstitials played").
    var asset: OpenedStream?
    /// `_HLS_primary_id`: this playback session's identifier, as an interstitial's list is asked for (RFC 8216bis Appendix D).
    let primaryID = UUID().uuidString
    var isLive = false
    var logFilter = MPVLogFilter()
    /// The cache caps last given to the player.
    var budgetApplied: CacheBudget?
    /// An opening under way, and who waits for it (nil: nobody, the screen's thread started it).
    struct Opening { var waiter: CheckedContinuation<Void, Never>? }
    var opening: Opening?
    var lastPublished = ContinuousClock.now
    var publishedMilestone: [Int?] = []
    var pictureSampler: PictureSampler
    var back: OwnerInputs<PaneInput> { parts.back }

    init(_ parts: Parts, state: SessionState) {
        self.parts = parts
        self.state = state
        pictureSampler = PictureSampler(player: parts.config.player, shared: parts.picture)
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

    /// Applies an event now and carries out what followed (an interstitial's next asset after the player's end, say).
    func apply(_ e: SessionEvent) {
        carry(state.reduce(.event(e), at: t))
    }

    /// A fact as the screen and the monitor take it: a segment served from another rung is a switch there.
    func report(_ f: SessionFact) {
        if case .servedFrom(let sw) = f { report(.switched(sw)) } else { report(.fact(f)) }
    }

    func say(_ level: LogLevel, _ text: String) {
        apply(.log(level: level, text: text))
        report(.log(level: level, text: text))
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
            apply(.openFailed(error: why))
            finishOpening()
        case .stopOpening(let why):
            guard opening != nil else { return }
            apply(.openGivenUp(why: why))
            finishOpening()
        case .prewarmed(let media): if opening != nil { firstLoad(media) }
        case .sample(let k):
            sample()
            if let k {
                publish()
                k.resume(returning: state)
            }
        case .perform(let action, let moment): perform(action, at: moment)
        case .say(let level, let text): say(level, text)
        case .watch(let k):
            watch()
            k.resume()
        case .refreshed(let rung, let m, let purpose):
            carry(state.reduce(.refreshed(rung: rung, m, purpose, partsGiven: LoaderServer.givesParts(m, options: loader.options)), at: t))
        case .subtitleRead(let read, let url, let result): apply(.subtitleRead(read, url: url, result: result))
        case .steered(let answer):
            if case .manifest(let m) = answer { addClones(m.clones) }
            apply(.steered(answer))
        case .timer(let timer): fire(timer)
        case .clock(let k): k.resume(returning: clock())
        case .speed(let s): carry(state.reduce(.syncSpeed(s), at: t))
        case .hold(let seconds): carry(state.reduce(.hold(seconds: seconds), at: t))
        case .syncWait(let on): carry(state.reduce(.syncWait(on), at: t))
        case .assetFetched(let f):
            asset = f
            carry(state.reduce(.interstitial(.assetOpened(f.playlist)), at: t))
        case .interstitial(let i): carry(state.reduce(.interstitial(i), at: t))
        case .realign(let date, let readAt, let k):
            let plan = state.reduce(.realign(to: date, readAt: Pane.seconds(readAt - parts.started)), at: t)
            guard !plan.refused else { return k.resume(returning: false) }
            carry(plan)
            k.resume(returning: true)
        }
    }

    func loaderEvent(_ e: LoaderEvent) {
        // The Loader's event goes out after the facts it led to, and a segment served from another rung after it.
        let facts = state.reduce(.event(.loader(e)), at: t).facts
        for f in facts { if case .servedFrom = f {} else { report(f) } }
        report(.loader(e))
        for case .servedFrom(let sw) in facts { report(.switched(sw)) }
        if case .request = e, state.followsCMSD { carry(state.reduce(.serverCap(look()), at: t)) }
        // A stream that states no BANDWIDTH: the budget follows the segments' measured peak.
        if case .request(let r) = e, r.kind == .segment { budget() }
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
        let url = parts.config.url
        back.ask { [loader] in
            do throws(UpstreamError) { return .fetched(try await loader.fetchTop(url)) } catch { return .openFailed(error.description) }
        }
    }

    func opened(_ f: OpenedStream) {
        fetched = f
        // The subtitle playlist is read beside the rung's (docs/SUBTITLES.md): the plan's effects.
        carry(state.reduce(.event(.opened(url: f.url, playlist: f.playlist, diagnostics: f.diagnostics, file: f.file != nil)), at: t))
        budget()
        report(.ladder)
        // Read the rung's playlist (and fetch its keys) before the player asks: it says whether the stream is live.
        let rung = state.targetRung ?? 0
        back.ask { [loader] in .prewarmed(await loader.prewarmVariant(f, rung: rung)) }
    }

    func firstLoad(_ media: MediaPlaylist?) {
        guard let f = fetched else { return finishOpening() }
        isLive = media?.isLive ?? false
        let partsGiven = media.map { LoaderServer.givesParts($0, options: loader.options) } ?? false
        carry(state.reduce(.firstLoad(media: media, multivariant: f.playlist.multivariant != nil, partsGiven: partsGiven), at: t))
        // One look of the watcher every 20 ms (`SessionInput.watch`).
        back.every(20) { .watch($0) }
        finishOpening()
    }

    func finishOpening() {
        publish()
        opening?.waiter?.resume()
        opening = nil
    }

    // MARK: reading the player

    /// Reads the player's properties and applies them; an automatic switch may follow.
    func sample() {
        let s = mpv.sample(loading: state.playerLoading, held: state.playerHold.held)
        apply(.sample(s))
        if loader.options.cmcd != nil { loader.playerStatus(state.cmcdStatus) }
        if let grid = pictureSampler.take(from: mpv, decoding: s.width != nil && !state.playerLoading) { apply(.frame(grid)) }
        carry(state.reduce(.sampled(look()), at: t))
    }

    func look() -> PlayerLook { mpv.look(loading: state.playerLoading, captions: state.captionsOn) }

    /// A steering manifest's clones (docs/STEERING.md): their variants and renditions are added to the stream the player is
    /// given, the Loader's routes and the ladder, so a clone is a pathway like the playlist's own.
    func addClones(_ clones: [PathwayClone]) {
        guard let (f, grown) = fetched?.adding(clones) else { return }
        fetched = f
        loader.addRungs(grown, base: f.url)
        apply(.ladderGrown(grown))
        report(.ladder)
    }

    /// The wall-clock moment at the playhead now (see `PaneClock`; the Session reads it, `SessionState.moment`).
    func clock() -> PaneClock {
        // The moment of the reading: the other pane's is read later, and the difference is taken out (a loaded machine can
        // put tens of milliseconds between two property reads).
        let (look, at) = mpv.clockLook()
        let m = state.moment(look)
        var c = PaneClock(pdt: m.pdt, playing: m.playing, hasPDT: m.hasPDT, at: at, window: m.window, stalled: m.stalled)
        c.continuous = m.continuous
        return c
    }

    // MARK: decisions

    /// A key or a command; a script's or a replay's is decided at the playhead it was recorded with (`SessionInput.action`).
    func perform(_ action: Action, at moment: StreamPoint? = nil) {
        carry(state.reduce(.action(action, look(), recordedAt: moment), at: t))
    }

    /// One look of the watcher.
    func watch() { carry(state.reduce(.watch(look()), at: t)) }

    /// Carries out a plan: its effects, then the switch it records (completed by where the Loader's route takes effect), the
    /// facts it reports and the lines it says.
    func carry(_ plan: PanePlan) {
        let ran = run(plan.effects)
        // A switch whose load the player refused did not happen (the pane has failed).
        if var sw = plan.record, !ran.refused {
            if sw.mechanism == .splice { sw.atMSN = ran.routedAt }
            apply(.switched(sw))
            report(.switched(sw))
        }
        for f in plan.facts { report(f) }
        for line in plan.said { say(line.level, line.text) }
    }
}
