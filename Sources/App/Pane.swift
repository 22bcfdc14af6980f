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
    public init(url: String) { self.url = url }
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
            }
        })
        let mpvEvents = mpv.events
        tasks.append(Task { [weak self] in
            for await e in mpvEvents {
                guard let self else { return }
                switch e {
                case .playbackRestart: self.apply(.playbackStarted)
                case .endFile(let reason, let error):
                    self.apply(.fileEnded(reason: reason, error: error))
                case .log(let level, let prefix, let text):
                    self.apply(.log(level: level, text: "mpv \(prefix): \(text)"))
                    self.output(self, .log(level: level, text: "mpv \(prefix): \(text)"))
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
            if media?.isLive == false { try? mpv.set("demuxer-lavf-o", "strict=experimental") } else if f.playlist.multivariant?.renditions.contains(where: { $0.type == "SUBTITLES" }) == true {
                apply(.log(level: "info", text: "subtitles off: FFmpeg 5.1 stalls on live WebVTT renditions"))
            }
            load(rung: target, reason: "start", startMSN: nil, prewarmed: true)
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

    /// Gives the player `rung`, starting at segment `startMSN` when given (a reload: no demuxer seek, so fMP4 works too).
    func load(rung: Int, reason: String, startMSN: Int?, prewarmed: Bool = false) {
        guard let f = fetched.withLockedValue({ $0 }) else { return }
        let single = f.playlist.multivariant == nil
        let presented = loader.present(f, variants: single ? nil : [rung], startMSN: startMSN, prewarmVariants: !prewarmed)
        let from = state.withLockedValue { $0.loadedRung }
        do {
            try mpv.command(["loadfile", presented.playerURL, "replace"])
            if from == rung {
                apply(.log(level: "info", text: "reloaded rung \(rung) at msn \(startMSN.map(String.init) ?? "-") (\(reason))"))
                return
            }
            let s = VariantSwitch(t: t, from: from, to: rung, reason: reason, mechanism: from == nil ? "load" : "reload")
            apply(.switched(s))
            output(self, .switched(s))
        } catch {
            fail("the player refused the stream: \(error.description)", cause: "mpv")
        }
    }

    /// Reads the player's properties now and applies them (the monitor samples every pane in the same tick).
    @discardableResult
    public func sample() -> PlayerSample {
        var s = PlayerSample()
        s.timePos = mpv.get("time-pos", .double).double
        s.audioPts = mpv.get("audio-pts", .double).double
        s.paused = mpv.get("pause", .flag).flag ?? false
        s.pausedForCache = mpv.get("paused-for-cache", .flag).flag ?? false
        s.coreIdle = mpv.get("core-idle", .flag).flag ?? true
        s.eof = mpv.get("eof-reached", .flag).flag ?? false
        s.width = mpv.get("width", .int).double.map { Int($0) }
        s.height = mpv.get("height", .int).double.map { Int($0) }
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
        case .quit: break
        default:
            if let reason = state.withLockedValue({ $0.select(action) }) { reconsider(reason: reason) }
        }
    }

    /// Loads the rung the controllers want when it is not the one loaded, at the segment under the playhead.
    func reconsider(reason: String) {
        let (target, loaded, msn, live) = state.withLockedValue { s in (s.targetRung, s.loadedRung, s.playhead?.msn, s.playingMedia?.isLive ?? false) }
        guard let target, target != loaded, fetched.withLockedValue({ $0?.playlist.multivariant != nil }) else { return }
        load(rung: target, reason: reason, startMSN: live ? nil : msn)
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
        if buffered || !fmp4 {
            try? mpv.command(["seek", String(d), "relative+exact"])
            return
        }
        guard let i = Timeline.segmentIndex(at: target, in: m) else { return }
        load(rung: s.loadedRung ?? 0, reason: "seek", startMSN: m.segments[i].mediaSequence)
    }

    /// Stops the player and the Loader.
    public func close() {
        mpv.close()
        loader.stop()
        for t in tasks { t.cancel() }
    }
}
