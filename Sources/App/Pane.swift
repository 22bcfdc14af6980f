import Foundation
import HLS
import Loader
import NIOConcurrencyHelpers
import Player
import Session

/// How the player shows and sounds.
public struct PlayerOptions: Sendable {
    public enum Video: String, Sendable { case auto, window, none }
    public var video: Video = .auto
    /// mpv's `ao` as the user asked; nil lets hlstui choose from what the machine has (`AudioOutputChoice`).
    public var audioOutput: String?
    /// Muted: no audio device is opened at all.
    public var mute = false
    /// Seconds mpv reads ahead (a player-like buffer, so the bar tells the truth; docs/PLATFORM.md).
    public var readahead = 10.0
    public init() {}

    /// The libmpv options that make FFmpeg 5.1 behave (docs/PLATFORM.md), in order.
    public func mpvOptions(audio: AudioOutputChoice) -> [(String, String)] {
        var o: [(String, String)] = [
            ("demuxer", "lavf"), ("rebase-start-time", "no"), ("cache", "yes"),
            ("demuxer-readahead-secs", String(readahead)), ("cache-secs", String(readahead)), ("demuxer-max-bytes", "150MiB"),
            ("keep-open", "yes"), ("idle", "yes"), ("sub-auto", "no"),
            ("hr-seek", "yes"), ("input-terminal", "no"),
        ]
        let display = ProcessInfo.processInfo.environment["DISPLAY"] != nil || ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil
        if video == .none || (video == .auto && !display) { o.append(("vo", "null")) }
        o.append(("ao", audio.ao))
        if mute { o.append(("mute", "yes")) }
        return o
    }

    /// The audio output for this machine.
    public func chooseAudio() -> AudioOutputChoice { AudioOutputChoice.choose(requested: audioOutput, mute: mute, facts: .read()) }
}

/// One pane's configuration.
public struct PaneConfig: Sendable {
    public var url: String
    public var loader = LoaderOptions()
    public var player = PlayerOptions()
    public var caps = Caps()
    public var mode: SelectionMode = .automatic
    /// How switches a person asks for (keys, commands, cap changes) take effect.
    public var manualSwitch: SwitchMode = .immediate
    /// How switches hlstui decides (ABR) take effect.
    public var autoSwitch: SwitchMode = .smooth
    public var abr = AbrConfig()
    public init(url: String) { self.url = url }
}

/// What a pane reports to its owner (the dashboard or the monitor), as it happens.
public enum PaneOutput: Sendable {
    case loader(LoaderEvent)
    case fact(SessionFact)
    case switched(VariantSwitch)
    case ladder
    case log(level: LogLevel, text: String)
    /// The player was sampled because a state flag changed (pause, waiting for data, end of file), between ticks.
    case sampled
}

/// One pane: the Loader, a libmpv handle and the Session state between them; the only place the three meet.
public final class Pane: @unchecked Sendable {
    public let index: Int
    public let config: PaneConfig
    let loader: LoaderServer
    let mpv: MPV
    let state: NIOLockedValueBox<SessionState>
    let fetched = NIOLockedValueBox<OpenedStream?>(nil)
    /// Session time each rung's media playlist was last read (by the player or by hlstui).
    let playlistSeen = NIOLockedValueBox<[Int: Double]>([:])
    let isLive = NIOLockedValueBox(false)
    let logFilter = NIOLockedValueBox(MPVLogFilter())
    /// True from a `loadfile` until mpv restarts playback: `time-pos` then reads 0 and is not a position.
    let loading = NIOLockedValueBox(false)
    /// True while hlstui holds the player paused to move it inside a freshly loaded rung (not a pause of the user's).
    let holding = NIOLockedValueBox(false)
    /// Session time of the last attempt to reload a player its origin stopped.
    let recovery = NIOLockedValueBox<Double?>(nil)
    let started: ContinuousClock.Instant
    let output: @Sendable (Pane, PaneOutput) -> Void
    let audio: AudioOutputChoice
    /// Every task the pane starts; cancelled before the player closes.
    let tasks = OwnedTasks()

    /// Seconds since the session started (monotonic).
    public var t: Double { Pane.seconds(ContinuousClock.now - started) }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    /// Starts the Loader and the player; `open()` then loads the stream.
    public init(index: Int, config: PaneConfig, started: ContinuousClock.Instant, output: @escaping @Sendable (Pane, PaneOutput) -> Void)
        throws
    {
        self.index = index
        self.config = config
        self.started = started
        self.output = output
        loader = try LoaderServer.start(options: config.loader)
        audio = config.player.chooseAudio()
        do {
            mpv = try MPV(options: config.player.mpvOptions(audio: audio), logLevel: "warn")
        } catch {
            loader.stop()
            throw error
        }
        var s = SessionState(url: config.url)
        s.caps = config.caps
        s.mode = config.mode
        s.manualSwitch = config.manualSwitch
        s.insecureTLS = config.loader.upstream.tls.insecure
        state = NIOLockedValueBox(s)
        for (i, p) in [MPVProperty<Bool>.pause, .pausedForCache, .eofReached, .coreIdle].enumerated() {
            try? mpv.observe(p, id: UInt64(i + 1))
        }
        if let note = audio.note { say(.info, note) }
        consume()
    }

    /// A snapshot of the session state.
    public var snapshot: SessionState { state.withLockedValue { $0 } }

    /// Applies an event now and forwards what followed.
    func apply(_ e: SessionEvent) {
        let now = t
        let facts = state.withLockedValue { $0.apply(e, at: now) }
        for f in facts { output(self, .fact(f)) }
    }

    private func consume() {
        let loaderEvents = loader.events
        tasks.spawn { [weak self] in
            for await e in loaderEvents {
                guard let self else { return }
                self.apply(.loader(e))
                self.output(self, .loader(e))
                if case .playlist(let p) = e, let r = p.rung { self.playlistSeen.withLockedValue { $0[r] = self.t } }
                if case .failover(let msn, let failed, let by?, let cause) = e {
                    // The rung on screen changes for this segment: a switch with its own reason.
                    self.output(
                        self,
                        .switched(
                            VariantSwitch(t: self.t, from: failed, to: by, reason: .failover, mechanism: .splice, atMSN: msn, detail: cause)
                        ))
                }
                if case .gapFilled(let msn, let gapRung, let by) = e {
                    // The rung on screen changes for this segment: a switch with its own reason (RFC 8216bis §4.4.4.7).
                    self.output(
                        self, .switched(VariantSwitch(t: self.t, from: gapRung, to: by, reason: .gap, mechanism: .splice, atMSN: msn)))
                }
            }
        }
        let mpvEvents = mpv.events
        tasks.spawn { [weak self] in
            for await e in mpvEvents {
                guard let self else { return }
                switch e {
                case .playbackRestart:
                    self.loading.withLockedValue { $0 = false }
                    let first = !self.snapshot.started
                    self.apply(.playbackStarted)
                    if first, let note = self.audio.fallbackNote(current: self.mpv.get(.currentAO)) { self.say(.info, note) }
                case .endFile(let reason, let error):
                    self.apply(.fileEnded(reason: reason == .eof ? .eof : reason == .error ? .error : .other, error: error))
                case .log(let level, let prefix, let text):
                    let (spliced, probing) = self.state.withLockedValue { ($0.spliced, !$0.started && $0.usesSampleAES) }
                    for line in self.logFilter.withLockedValue({
                        $0.take(level: level, prefix: prefix, text: text, spliced: spliced, probingSampleAES: probing)
                    }) {
                        self.apply(.log(level: line.level, text: line.text))
                        self.output(self, .log(level: line.level, text: line.text))
                    }
                case .property:
                    // A state flag changed: sample now so stalls and pauses are timed to the event, not the next tick.
                    let before = self.snapshot.state
                    self.sample()
                    if self.snapshot.state != before { self.output(self, .sampled) }
                default: break
                }
            }
        }
    }

    /// Reads the stream's top playlist, chooses the rung and gives the player its virtual playlist.
    public func open() async {
        do {
            let f = try await loader.fetchTop(config.url)
            fetched.withLockedValue { $0 = f }
            apply(.opened(url: f.url, playlist: f.playlist, diagnostics: f.diagnostics))
            output(self, .ladder)
            if let blocking = f.diagnostics.first(where: { $0.severity == .error }), f.playlist.multivariant == nil, f.playlist.media == nil
            {
                fail("the playlist cannot be read: \(blocking)", cause: "playlist")
                return
            }
            let target = state.withLockedValue { $0.targetRung } ?? 0
            // Read the rung's playlist (and fetch its keys) before the player asks: it says whether the stream is live.
            let media = await loader.prewarmVariant(f, rung: target)
            // WebVTT renditions need FFmpeg's strict=experimental; on live streams FFmpeg 5.1 then blocks on the subtitle playlist (measured), so VOD only.
            isLive.withLockedValue { $0 = media?.isLive ?? false }
            if media?.isLive == true, f.playlist.multivariant?.renditions.contains(where: { $0.type == "SUBTITLES" }) == true {
                apply(.log(level: .info, text: "subtitles off: FFmpeg 5.1 stalls on live WebVTT renditions"))
            }
            // MPEG-TS ladders are spliced: the Loader chooses each segment's rung (docs/PLATFORM.md); fMP4 needs a reload per switch.
            let splice = f.playlist.multivariant != nil && (media.map(SwitchPlanner.isTS) ?? false)
            apply(.spliceChosen(splice))
            if load(rung: target, startMSN: nil, prewarmed: true) {
                let s = VariantSwitch(t: t, from: nil, to: target, reason: .start, mechanism: splice ? .loadSpliced : .load)
                apply(.switched(s))
                output(self, .switched(s))
            }
            startWatcher()
        } catch {
            // The user typed the URL: lead with the cause so it fits the status line.
            var why = error.description
            for prefix in [config.url + ": ", config.url + " "] where why.hasPrefix(prefix) { why = String(why.dropFirst(prefix.count)) }
            fail("cannot open the stream: \(why)", cause: "origin")
        }
    }

    /// A line in the message log (and the monitor's `log` events at their level).
    func say(_ level: LogLevel, _ text: String) {
        apply(.log(level: level, text: text))
        output(self, .log(level: level, text: text))
    }

    func fail(_ message: String, cause: String) {
        apply(.failed(message: message, cause: cause))
    }

    /// Gives the player `rung` (spliced or alone), starting at segment `startMSN` when given (a reload: no demuxer seek, so fMP4 works too).
    @discardableResult
    func load(rung: Int, startMSN: Int?, prewarmed: Bool = false) -> Bool {
        guard let f = fetched.withLockedValue({ $0 }) else { return false }
        let single = f.playlist.multivariant == nil
        let route = spliceRoute(rung)
        let presented = loader.present(f, variants: single ? nil : [rung], startMSN: startMSN, prewarmVariants: !prewarmed, splice: route)
        do {
            let wasLoading = loading.withLockedValue { $0 }
            let from = wasLoading ? nil : mpv.get(.timePos).map { ($0, DateTime(seconds: Date().timeIntervalSince1970)) }
            loading.withLockedValue { $0 = true }
            apply(.streamGiven(startMSN: startMSN, from: from))
            // VOD: WebVTT renditions need strict=experimental (on live it blocks FFmpeg 5.1). Live: a reload starts at the first
            // segment of the playlist the Loader serves (live_start_index=0), not three from its end, so the playhead keeps its PDT.
            let live = isLive.withLockedValue { $0 }
            try? mpv.set(.demuxerLavfOptions(live ? "live_start_index=\(startMSN == nil ? -3 : 0)" : "strict=experimental"))
            try mpv.command(.loadfile(presented.playerURL))
            return true
        } catch {
            fail("the player refused the stream: \(error.description)", cause: "mpv")
            return false
        }
    }

    /// Reads the player's properties now and applies them (the monitor samples every pane in the same tick).
    @discardableResult
    public func sample() -> PlayerSample {
        var s = PlayerSample()
        if loading.withLockedValue({ $0 }) {
            // Between loadfile and the restart the old position stands (time-pos reads 0 then).
            s.loading = true
            s.timePos = snapshot.sample.timePos
            s.audioPts = snapshot.sample.audioPts
        } else {
            s.timePos = mpv.get(.timePos)
            s.audioPts = mpv.get(.audioPts)
        }
        s.wall = DateTime(seconds: Date().timeIntervalSince1970)
        // Read on both sides of `pause`: the hold is set before the pause and cleared after the unpause, so a pause read while
        // hlstui held the player always sees the hold.
        let heldBefore = holding.withLockedValue { $0 }
        s.paused = mpv.get(.pause) ?? false
        s.held = heldBefore || holding.withLockedValue { $0 }
        s.pausedForCache = mpv.get(.pausedForCache) ?? false
        s.coreIdle = mpv.get(.coreIdle) ?? true
        s.eof = mpv.get(.eofReached) ?? false
        s.width = mpv.get(.videoWidth)
        s.height = mpv.get(.videoHeight)
        s.droppedFrames = (mpv.get(.frameDropCount) ?? 0) + (mpv.get(.decoderFrameDropCount) ?? 0)
        s.speed = mpv.get(.speed) ?? 1
        if let cache = mpv.get(.demuxerCacheState) {
            s.seekableRanges = cache.seekableRanges.map { TimeRange(start: $0.start, end: $0.end) }
            s.cacheEnd = cache.cacheEnd
            s.underrun = cache.underrun
        }
        apply(.sample(s))
        if let d = state.withLockedValue({ $0.abrDecision(config: config.abr) }) {
            switchTo(d.rung, reason: .abr, detail: d.reason, manual: false)
        }
        return s
    }

    /// Carries out an action on this pane.
    public func perform(_ action: Action) {
        switch action {
        case .togglePause: try? mpv.command(.cyclePause)
        case .seekRelative(let d): seek(by: d)
        case .seekTo(let pos):
            let cur = state.withLockedValue { $0.position }
            seek(by: pos - (cur ?? 0))
        case .quit, .toggleSync: break
        default:
            if let reason = state.withLockedValue({ $0.select(action) }) { reconsider(reason: reason) }
        }
    }

    /// Seeks by `delta` seconds within the VOD duration or the live window: inside the buffer with mpv (exact); outside it,
    /// TS with mpv, fMP4 by reloading a playlist that starts at the target segment (FFmpeg 5.1 ends fMP4 playback on a demuxer seek).
    func seek(by delta: Double) {
        let s = snapshot
        guard let pos = s.position, let m = s.playingMedia else { return }
        let window = m.totalDuration
        let target = min(max(0, pos + delta), max(0, window - 0.5))
        let d = target - pos
        let buffered = s.bufferedRanges.contains { $0.start - 0.01 <= target && target <= $0.end }
        let fmp4 = m.isFragmentedMP4
        guard let i = Timeline.segmentIndex(at: target, in: m) else { return }
        var msn = m.segments[i].mediaSequence
        // The player's playlist ends before a GAP no rung fills: beyond one, only a reload reaches the target.
        let here = s.playhead?.msn ?? msn
        let acrossGap = (min(here, msn)...max(here, msn)).contains { s.isUnfillableGap($0) }
        apply(.seekAsked)
        if buffered {
            try? mpv.command(.seekRelative(d))
            return
        }
        // TS: a demuxer seek aimed where FFmpeg 5.1 lands exactly (see `demuxerSeek`), or a reload at the target's segment
        // when it is the first the player has.
        if !fmp4 && !acrossGap, demuxerSeek(relative: d, into: StreamPoint(msn: msn, offset: target - Timeline.startTimes(m)[i])) { return }
        while s.isUnfillableGap(msn) { msn += 1 }
        apply(.reloadPlanned(rung: nil))
        load(rung: s.loadedRung ?? 0, startMSN: msn)
        apply(.log(level: .info, text: "seek: reloaded at msn \(msn)"))
    }

    /// Stops the pane's tasks, then the player and the Loader (a task still running finds the player closed: its calls do nothing).
    public func close() {
        tasks.cancelAll()
        mpv.close()
        loader.stop()
    }
}
