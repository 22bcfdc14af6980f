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
    /// mpv's `ao`; nil lets mpv choose.
    public var audioOutput: String?
    public var mute = false
    /// Seconds mpv reads ahead (a player-like buffer, so the bar tells the truth; DESIGN §3).
    public var readahead = 10.0
    public init() {}

    /// The libmpv options that make FFmpeg 5.1 behave (DESIGN §3), in order.
    public var mpvOptions: [(String, String)] {
        var o: [(String, String)] = [
            ("demuxer", "lavf"), ("rebase-start-time", "no"), ("cache", "yes"),
            ("demuxer-readahead-secs", String(readahead)), ("cache-secs", String(readahead)), ("demuxer-max-bytes", "150MiB"),
("keep-open", "yes"), ("idle", "yes"), ("sub-auto", "no"),
            ("hr-seek", "yes"), ("input-terminal", "no"),
        ]
        let display = ProcessInfo.processInfo.environment["DISPLAY"] != nil || ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil
        if video == .none || (video == .auto && !display) { o.append(("vo", "null")) }
        if let ao = audioOutput { o.append(("ao", ao)) }
        if mute { o.append(("mute", "yes")) }
        return o
    }
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

/// A reload waiting for the playhead to reach the end of its segment.
struct PendingReload: Sendable {
    var rung: Int
}

/// What a pane reports to its owner (the dashboard or the monitor), as it happens.
public enum PaneOutput: Sendable {
    case loader(LoaderEvent)
    case fact(SessionFact)
    case switched(VariantSwitch)
    case ladder
    case log(level: String, text: String)
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
    let pending = NIOLockedValueBox<PendingReload?>(nil)
    let isLive = NIOLockedValueBox(false)
    let logFilter = NIOLockedValueBox(MPVLogFilter())
    /// True from a `loadfile` until mpv restarts playback: `time-pos` then reads 0 and is not a position.
    let loading = NIOLockedValueBox(false)
    /// The GAP runs already crossed (by first MSN), so each is crossed once.
    let crossed = NIOLockedValueBox<Set<Int>>([])
    let started: ContinuousClock.Instant
    let output: @Sendable (Pane, PaneOutput) -> Void
    private var tasks: [Task<Void, Never>] = []

    /// Seconds since the session started (monotonic).
    public var t: Double { Pane.seconds(ContinuousClock.now - started) }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    /// Starts the Loader and the player; `open()` then loads the stream.
    public init(index: Int, config: PaneConfig, started: ContinuousClock.Instant, output: @escaping @Sendable (Pane, PaneOutput) -> Void) throws {
        self.index = index
        self.config = config
        self.started = started
        self.output = output
        loader = try LoaderServer.start(options: config.loader)
        do {
            mpv = try MPV(options: config.player.mpvOptions, logLevel: "warn")
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
        for (i, name) in ["pause", "paused-for-cache", "eof-reached", "core-idle"].enumerated() { try? mpv.observe(name, .flag, id: UInt64(i + 1)) }
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
        tasks.append(Task { [weak self] in
            for await e in loaderEvents {
                guard let self else { return }
                self.apply(.loader(e))
                self.output(self, .loader(e))
                if case .gapFilled(let msn, let gapRung, let by) = e {
                    // The rung on screen changes for this segment: a switch with its own reason (WWDC17 GAP failover).
                    self.output(self, .switched(VariantSwitch(t: self.t, from: gapRung, to: by, reason: "gap", mechanism: "splice", atMSN: msn)))
                }
            }
        })
        let mpvEvents = mpv.events
        tasks.append(Task { [weak self] in
            for await e in mpvEvents {
                guard let self else { return }
                switch e {
                case .playbackRestart:
                    self.loading.withLockedValue { $0 = false }
                    self.apply(.playbackStarted)
                case .endFile(let reason, let error):
                    self.apply(.fileEnded(reason: reason, error: error))
                case .log(let level, let prefix, let text):
                    let spliced = self.state.withLockedValue { $0.spliced }
                    for line in self.logFilter.withLockedValue({ $0.take(level: level, prefix: prefix, text: text, spliced: spliced) }) {
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
        })
    }

    /// Reads the stream's top playlist, chooses the rung and gives the player its virtual playlist.
    public func open() async {
        do {
            let f = try await loader.fetchTop(config.url)
            fetched.withLockedValue { $0 = f }
            apply(.opened(url: f.url, playlist: f.playlist, diagnostics: f.diagnostics))
            output(self, .ladder)
            if let blocking = f.diagnostics.first(where: { $0.severity == .error }), f.playlist.multivariant == nil, f.playlist.media == nil {
                fail("the playlist cannot be read: \(blocking)", cause: "playlist")
                return
            }
            let target = state.withLockedValue { $0.targetRung } ?? 0
            // Read the rung's playlist (and fetch its keys) before the player asks: it says whether the stream is live.
            let media = await loader.prewarmVariant(f, rung: target)
            // WebVTT renditions need FFmpeg's strict=experimental; on live streams FFmpeg 5.1 then blocks on the subtitle playlist (measured), so VOD only.
            isLive.withLockedValue { $0 = media?.isLive ?? false }
            if media?.isLive == true, f.playlist.multivariant?.renditions.contains(where: { $0.type == "SUBTITLES" }) == true {
                apply(.log(level: "info", text: "subtitles off: FFmpeg 5.1 stalls on live WebVTT renditions"))
            }
            // MPEG-TS ladders are spliced: the Loader chooses each segment's rung (DESIGN §3); fMP4 needs a reload per switch.
            let splice = f.playlist.multivariant != nil && (media.map(SwitchPlanner.isTS) ?? false)
            state.withLockedValue { $0.spliced = splice }
            if load(rung: target, startMSN: nil, prewarmed: true) {
                let s = VariantSwitch(t: t, from: nil, to: target, reason: "start", mechanism: splice ? "load (spliced)" : "load")
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
            loading.withLockedValue { $0 = true }
            // VOD: WebVTT renditions need strict=experimental (on live it blocks FFmpeg 5.1). Live: a reload starts at the first
            // segment of the playlist the Loader serves (live_start_index=0), not three from its end, so the playhead keeps its PDT.
            let live = isLive.withLockedValue { $0 }
            try? mpv.set("demuxer-lavf-o", live ? "live_start_index=\(startMSN == nil ? -3 : 0)" : "strict=experimental")
            try mpv.command(["loadfile", presented.playerURL, "replace"])
            return true
        } catch {
            fail("the player refused the stream: \(error.description)", cause: "mpv")
            return false
        }
    }

    /// The splice route that plays `rung`, with the rungs that may fill its GAPs; nil when the stream is not spliced.
    func spliceRoute(_ rung: Int) -> SpliceRoute? {
        state.withLockedValue { s in
            s.spliced ? SpliceRoute(rung: rung, fill: SwitchPlanner.fill(for: rung, ladder: s.ladder, allowed: s.caps.allowed(s.ladder))) : nil
        }
    }

    /// Makes `rung` play, by the mechanism its container, the ladder and the mode allow (DESIGN §3), and reports the switch.
    func switchTo(_ rung: Int, reason: String, detail: String? = nil, manual: Bool) {
        let s = snapshot
        guard let from = s.loadedRung, from != rung, let a = s.ladder.rungs[safe: rung], let b = s.ladder.rungs[safe: from] else { return }
        let live = s.playingMedia?.isLive ?? false
        let mech = SwitchPlanner.mechanism(spliced: s.spliced, compatible: SwitchPlanner.compatible(b, a), live: live,
                                           mode: manual ? s.manualSwitch : config.autoSwitch)
        let here = fresh().map(\.msn) ?? s.playhead?.msn
        var atMSN: Int?
        pending.withLockedValue { $0 = nil }
        switch mech {
        case .splice:
            atMSN = spliceRoute(rung).flatMap { loader.route($0) }
        case .spliceSeek:
            if let r = spliceRoute(rung) { loader.route(r) }
            // FFmpeg re-reads the segment under the playhead, now from the new rung: the seek must bypass mpv's cache, so the
            // cache is made unseekable for this one seek (left so, mpv would report no buffered ranges and lose the back buffer).
            // The demuxer thread picks the option up on its next cycle, so the seek waits a little, and is repeated when no segment
            // of the new rung was asked for (it was served from the cache after all).
            try? mpv.set("demuxer-seekable-cache", "no")
            let mpv = self.mpv
            let since = t
            Task { [weak self] in
                for attempt in 0..<4 {
                    try? await Task.sleep(for: .milliseconds(attempt == 0 ? 10 : 30))
                    guard let self else { return }
                    if attempt > 0 && self.state.withLockedValue({ ($0.lastSegmentAt[rung] ?? -1) >= since }) { break }
                    try? mpv.command(["seek", "0", "relative+exact"])
                }
                try? await Task.sleep(for: .milliseconds(300))
                try? mpv.set("demuxer-seekable-cache", "auto")
            }
            atMSN = here
        case .spliceReload:
            if let r = spliceRoute(rung) { loader.route(r) }
            pending.withLockedValue { $0 = PendingReload(rung: rung) }
            atMSN = here.map { $0 + 1 }
        case .reloadBoundary:
            prewarm(rung)
            pending.withLockedValue { $0 = PendingReload(rung: rung) }
            atMSN = here.map { $0 + 1 }
        case .reloadSeek:
            atMSN = here
            prewarm(rung)
            reloadInPlace(rung)
        }
        let sw = VariantSwitch(t: t, from: from, to: rung, reason: reason, mechanism: mech.rawValue, atMSN: atMSN, detail: detail)
        apply(.switched(sw))
        output(self, .switched(sw))
    }

    /// Reads `rung`'s media playlist now, so the session knows its segments before the player asks.
    func prewarm(_ rung: Int) {
        guard let f = fetched.withLockedValue({ $0 }) else { return }
        let loader = self.loader
        Task { _ = await loader.prewarmVariant(f, rung: rung) }
    }

    /// The playhead now (a fresh `time-pos`, not the last sample).
    func fresh() -> StreamPoint? {
        guard !loading.withLockedValue({ $0 }), let t = mpv.get("time-pos", .double).double else { return snapshot.playhead }
        return state.withLockedValue { $0.locate(t) }
    }

    /// Immediate switch without a splice (VOD fMP4): reload at the current segment paused, seek inside the fresh cache to where
    /// the playhead was (a cache seek, so FFmpeg 5.1 never seeks fMP4), then play.
    func reloadInPlace(_ rung: Int) {
        guard let target = mpv.get("time-pos", .double).double, let p = state.withLockedValue({ $0.locate(target) }) else {
            pending.withLockedValue { $0 = PendingReload(rung: rung) }
            return
        }
        let wasPaused = mpv.get("pause", .flag).flag ?? false
        try? mpv.set("pause", "yes")
        guard load(rung: rung, startMSN: p.msn) else { return }
        let mpv = self.mpv
        Task { [weak self] in
            let deadline = ContinuousClock.now + .seconds(5)
            var sought = false
            while ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
                if !sought {
                    guard case .node(let cache) = mpv.get("demuxer-cache-state", .node) else { continue }
                    let inside = (cache["seekable-ranges"].arrayValue ?? []).contains { r in
                        (r["start"].doubleValue ?? .infinity) <= target && target + 0.05 <= (r["end"].doubleValue ?? -1)
                    }
                    guard inside else { continue }
                    try? mpv.command(["seek", String(target), "absolute+exact"])
                    sought = true
                } else if let now = mpv.get("time-pos", .double).double, abs(now - target) < 0.1 {
                    break
                }
            }
            if !wasPaused { try? mpv.set("pause", "no") }
            if !sought { self?.apply(.log(level: "warn", text: "reload+seek: the new rung's cache never held the playhead; playing from its segment start")) }
        }
    }

    /// Every 20 ms: carries out a reload waiting for its segment boundary, and crosses GAP runs no rung can fill.
    func startWatcher() {
        tasks.append(Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                guard let self else { return }
                self.watch()
            }
        })
    }

    func watch() {
        guard !loading.withLockedValue({ $0 }), let t = mpv.get("time-pos", .double).double else { return }
        let (p, seg, gap) = state.withLockedValue { s -> (StreamPoint?, Double?, GapCrossing?) in
            guard let p = s.locate(t) else { return (nil, nil, nil) }
            let m = s.loadedRung.flatMap { s.media[$0] } ?? s.playingMedia
            return (p, m.flatMap { $0.segments[safe: p.msn - $0.mediaSequence]?.duration }, s.gapToCross(at: p))
        }
        guard let p else { return }
        if let r = pending.withLockedValue({ $0 }), let d = seg, d - p.offset <= 0.035 {
            pending.withLockedValue { $0 = nil }
            load(rung: r.rung, startMSN: p.msn + 1)
            apply(.log(level: "info", text: "reloaded at the boundary of msn \(p.msn + 1)"))
            return
        }
        // FFmpeg 5.1 stalls for good where an fMP4 stream's timestamps restart (a discontinuity): a fresh load there does not.
        if let next = state.withLockedValue({ $0.fmp4DiscontinuityAfter(p) }), let d = seg, d - p.offset <= 0.035 || atEnd(),
           crossed.withLockedValue({ $0.insert(-next).inserted }) {
            reloadAtBreak(startMSN: next)
            apply(.log(level: "info", text: "fMP4 discontinuity at msn \(next): reloaded there (FFmpeg 5.1 stalls on fMP4 timestamp resets)"))
            return
        }
        // A GAP no allowed rung has media for: the player's playlist ends before it (so FFmpeg never sees the hole that would
        // freeze video and desync audio, DESIGN §3); at that boundary the playlist is reloaded from the first segment after the run.
        if let g = gap, g.startsIn <= 0.035 || atEnd(), crossed.withLockedValue({ $0.insert(g.first).inserted }) {
            let rung = snapshot.loadedRung ?? 0
            reloadAtBreak(startMSN: g.after)
            let text = "crossed GAP msn \(g.first)–\(g.after - 1) (\(fixed(g.duration, 1)) s, no rung has media): reloaded at msn \(g.after)"
            apply(.log(level: "info", text: text))
            output(self, .fact(.gap(rung: rung, msn: g.first, pdt: snapshot.playingMedia?.segments.first { $0.mediaSequence == g.first }?.effectiveProgramDateTime,
                                    duration: g.duration, action: "crossed: reloaded at msn \(g.after)")))
        }
    }

    /// Reads the player's properties now and applies them (the monitor samples every pane in the same tick).
    @discardableResult
    public func sample() -> PlayerSample {
        var s = PlayerSample()
        if loading.withLockedValue({ $0 }) {
            // Between loadfile and the restart the old position stands (time-pos reads 0 then).
            s.timePos = snapshot.sample.timePos
            s.audioPts = snapshot.sample.audioPts
        } else {
            s.timePos = mpv.get("time-pos", .double).double
            s.audioPts = mpv.get("audio-pts", .double).double
        }
        s.paused = mpv.get("pause", .flag).flag ?? false
        s.pausedForCache = mpv.get("paused-for-cache", .flag).flag ?? false
        s.coreIdle = mpv.get("core-idle", .flag).flag ?? true
        s.eof = mpv.get("eof-reached", .flag).flag ?? false
        s.width = mpv.get("video-params/w", .int).double.map { Int($0) }
        s.height = mpv.get("video-params/h", .int).double.map { Int($0) }
        s.droppedFrames = Int((mpv.get("frame-drop-count", .int).double ?? 0) + (mpv.get("decoder-frame-drop-count", .int).double ?? 0))
        s.speed = mpv.get("speed", .double).double ?? 1
        if case .node(let cache) = mpv.get("demuxer-cache-state", .node) {
            s.seekableRanges = (cache["seekable-ranges"].arrayValue ?? []).compactMap { r in
                guard let a = r["start"].doubleValue, let b = r["end"].doubleValue else { return nil }
                return TimeRange(start: a, end: b)
            }
            s.cacheEnd = cache["cache-end"].doubleValue
            s.underrun = cache["underrun"].boolValue ?? false
        }
        apply(.sample(s))
        if let d = state.withLockedValue({ $0.abrDecision(config: config.abr) }) {
            switchTo(d.rung, reason: "abr", detail: d.reason, manual: false)
        }
        return s
    }

    /// Carries out an action on this pane.
    public func perform(_ action: Action) {
        switch action {
        case .togglePause: try? mpv.command(["cycle", "pause"])
        case .seekRelative(let d): seek(by: d)
        case .seekTo(let pos):
            let cur = state.withLockedValue { $0.position }
            seek(by: pos - (cur ?? 0))
        case .quit, .toggleSync: break
        default:
            if let reason = state.withLockedValue({ $0.select(action) }) { reconsider(reason: reason) }
        }
    }

    /// The wall-clock moment at the playhead now (fresh `audio-pts`, else `time-pos`, through the media clock), whether the
    /// playhead advances, and whether the stream carries PDT at all (nil until its playlist is known).
    public func clockNow() -> (pdt: DateTime?, playing: Bool, hasPDT: Bool?) {
        let s = snapshot
        let media = s.loadedRung.flatMap { s.media[$0] } ?? s.playingMedia
        let hasPDT = media.map { $0.segments.contains { $0.effectiveProgramDateTime != nil } }
        guard !loading.withLockedValue({ $0 }), s.started, s.error == nil else { return (nil, false, hasPDT) }
        let paused = (mpv.get("pause", .flag).flag ?? false) || (mpv.get("paused-for-cache", .flag).flag ?? false)
        guard let raw = mpv.get("audio-pts", .double).double ?? mpv.get("time-pos", .double).double,
              let p = s.locate(raw), let m = media else { return (nil, !paused, hasPDT) }
        return (MediaClock.programDateTime(p, in: m), !paused, hasPDT)
    }

    /// Plays at `speed` (the sync controller's correction); audio keeps its pitch (mpv's scaletempo).
    public func setSpeed(_ speed: Double) { try? mpv.set("speed", String(speed)) }

    /// Holds the picture for `seconds` (paused), so the other pane reaches the same moment.
    public func hold(seconds: Double) {
        try? mpv.set("pause", "yes")
        let mpv = self.mpv
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            try? mpv.set("pause", "no")
        }
        apply(.log(level: "info", text: "sync: holding for \(fixed(seconds, 3)) s"))
    }

    /// Reloads at the segment holding wall-clock moment `date` (the other pane is that far behind); false when no segment does.
    @discardableResult
    public func realign(to date: DateTime) -> Bool {
        let s = snapshot
        guard let m = s.loadedRung.flatMap({ s.media[$0] }) ?? s.playingMedia, let t = Timeline.playlistTime(at: date, in: m),
              let i = Timeline.segmentIndex(at: t, in: m) else { return false }
        let msn = m.segments[i].mediaSequence
        load(rung: s.loadedRung ?? 0, startMSN: msn)
        apply(.log(level: "info", text: "sync: reloaded at msn \(msn) to meet the other pane at \(date)"))
        return true
    }

    /// True when the player stopped at the end of what it was given (the Loader ended its playlist before a break).
    func atEnd() -> Bool { mpv.get("eof-reached", .flag).flag ?? false }

    /// Reloads the rung loaded from `startMSN` after a break (GAP run, fMP4 discontinuity); playing on if the end had paused it.
    func reloadAtBreak(startMSN: Int) {
        let pausedByEnd = atEnd() && (mpv.get("pause", .flag).flag ?? false)
        load(rung: snapshot.loadedRung ?? 0, startMSN: startMSN)
        if pausedByEnd { try? mpv.set("pause", "no") }
    }

    /// After a selection action: updates the splice's GAP fill for the new caps and switches to the rung the controllers want.
    func reconsider(reason: String) {
        let (target, loaded) = state.withLockedValue { s in (s.targetRung, s.loadedRung) }
        guard let target, fetched.withLockedValue({ $0?.playlist.multivariant != nil }) else { return }
        if target == loaded {
            if let r = spliceRoute(target) { loader.route(r) }
            return
        }
        switchTo(target, reason: reason, manual: true)
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
        let fmp4 = m.segments.contains { $0.map != nil }
        guard let i = Timeline.segmentIndex(at: target, in: m) else { return }
        var msn = m.segments[i].mediaSequence
        // The player's playlist ends before a GAP no rung fills: beyond one, only a reload reaches the target.
        let here = s.playhead?.msn ?? msn
        let acrossGap = (min(here, msn)...max(here, msn)).contains { s.isUnfillableGap($0) }
        if buffered || (!fmp4 && !acrossGap) {
            try? mpv.command(["seek", String(d), "relative+exact"])
            return
        }
        while s.isUnfillableGap(msn) { msn += 1 }
        pending.withLockedValue { $0 = nil }
        load(rung: s.loadedRung ?? 0, startMSN: msn)
        apply(.log(level: "info", text: "seek: reloaded at msn \(msn)"))
    }

    /// Stops the player and the Loader.
    public func close() {
        mpv.close()
        loader.stop()
        for t in tasks { t.cancel() }
    }
}
