import CMCD
import HLS
import LoaderEvents

/// What a pane's command line sets before it opens (`SessionState.init(url:settings:)`).
public struct SessionSettings: Sendable {
    public var caps = Caps()
    /// `--cmsd-cap` (docs/CMCD.md).
    public var followsCMSD = false
    public var mode: SelectionMode = .automatic
    public var manualSwitch: SwitchMode = .immediate
    /// How automatic switches (ABR, pathway moves, the server's cap) take effect, and the ABR's settings.
    public var autoSwitch: SwitchMode = .smooth
    public var abr = AbrConfig()
    /// `--audio`, `--subs` (docs/RENDITIONS.md, docs/SUBTITLES.md).
    public var audio: String?
    public var subtitles: String?
    /// `--insecure`: said on screen, never silent.
    public var insecureTLS = false
    /// The player decodes no video (`SessionState.forgetsBeforeReload`).
    public var forgetsBeforeReload = false
    /// The rules that time the playlists' versions — `playlist-stale` and the variants' drift (docs/VALIDATION.md). Off in a
    /// replay: its playlists are the recording's versions, answered when the replay asks, not when the origin made them.
    public var judgesVersions = true
    /// Seconds the player reads ahead when nothing lengthens it (`--readahead`, `PlayerHold`).
    public var readahead = 10.0
    public init() {}
}

/// One pane's state: playlists, requests, keys, player, caps and selection; changed only by `apply` (no I/O, no clock).
public struct SessionState: Sendable {
    public internal(set) var url: String
    public internal(set) var now: Double = 0
    public internal(set) var ladder = Ladder()
    public internal(set) var openDiagnostics: [Diagnostic] = []
    /// Latest media playlist of each rung.
    public internal(set) var media: [Int: MediaPlaylist] = [:]
    /// Latest media playlist of each alternate rendition ("TYPE group/name").
    public internal(set) var renditionMedia: [String: MediaPlaylist] = [:]
    public internal(set) var clock = MediaClock()
    public internal(set) var log: [LogLine] = []
    /// The Loader's requests and keys, what is in flight and delivered, the throughput (`Session/Requests.swift`).
    public internal(set) var ledger = RequestLedger()
    public internal(set) var sample = PlayerSample()
    /// Where the player stands: loading, started, paused by the user, ended or failed (`Session/Playback.swift`).
    public internal(set) var playback = Playback()
    /// The latest non-fatal problem, in one sentence.
    public internal(set) var problem: String?
    /// The first problem hlstui itself saw (a playlist error, an origin failure, a key failure): the likely cause of what follows.
    public internal(set) var cause: String?
    /// Stalls and what opens them (`StallWatch`, its state its own).
    public internal(set) var stallWatch = StallWatch()
    /// Automatic or pinned, the caps, how switches take effect (`Session/RungSelection.swift`).
    public internal(set) var selection = RungSelection()
    /// The stream's pathways when it has several or a steering server (docs/STEERING.md); nil otherwise.
    public internal(set) var pathways: Pathways?
    /// The steering client: where and when its next reload goes.
    public internal(set) var steering = SteeringClient()
    /// hlstui's own pauses and the read-ahead in effect (`Session/PlayerHold.swift`).
    public internal(set) var playerHold = PlayerHold()
    /// The rung the player was given, a switch waiting for its boundary, the switches made (`Session/Switches.swift`).
    public internal(set) var switching = Switches()
    /// The audio rendition chosen and the one that plays (`Session/Audio.swift`, `AudioChoice`).
    public internal(set) var audio = AudioChoice()
    /// The timed metadata the stream carries, and what the playhead reached (docs/EVENTS.md).
    public internal(set) var metadata = TimedMetadataTrack()
    /// The caption data of the segments read, for a caption channel hlstui decodes itself (docs/SUBTITLES.md).
    public internal(set) var closedCaptions = CaptionTrack()
    /// A seek asked for before the player's first frame: the playlist position it goes to, once the playhead is known.
    public internal(set) var pendingSeek: Double?
    /// The subtitles asked for and shown, and the captions in the video (`Session/SubtitleShowing.swift`).
    public internal(set) var subs = SubtitleShowing()
    /// The last failure the Loader saw (an origin answer, a transport error), with its time: a stall's cause.
    public internal(set) var lastFailure: (t: Double, text: String)?
    /// Each variant segment seen in a playlist, by MSN: its duration and PDT. A player far behind the live edge plays segments
    /// that have left every playlist's window; these keep measuring them.
    public internal(set) var seen: [Int: SegmentFacts] = [:]
    /// Forward jumps past content never shown (`Session/Skips.swift`).
    public internal(set) var skipWatch = SkipWatch()
    /// The breaks the playing rung announces, followed against the playhead (docs/EVENTS.md).
    public internal(set) var breaks = BreakWatch()
    /// The rules the stream is held to while it plays: what was found and said (`Session/StreamChecks.swift`).
    public internal(set) var checks = StreamChecks()
    /// The figures the history plots draw, a value a second over the last minutes.
    public internal(set) var history = History()
    /// The player decodes no video, so the playhead is timed by segments the Loader reads along: a reload forgets the
    /// timestamps measured before its first segment.
    public internal(set) var forgetsBeforeReload = false
    public internal(set) var insecureTLS = false
    /// LL-HLS reloads with delivery directives: the latest, and what delta updates saved in all.
    public internal(set) var lowLatency = LowLatencyReloads()
    /// LL-HLS: keeps the playhead at PART-HOLD-BACK from the edge while the session owns the speed.
    public internal(set) var catchUp: LatencyCatchUp?
    /// Frozen and black picture detection over the frames sampled.
    public internal(set) var picture = PictureWatch()
    var gapsReported: Set<GapMark> = []
    /// The GAP runs (first MSN) and fMP4 discontinuities (negated MSN) already crossed, so each is crossed once.
    var crossed: Set<Int> = []
    /// Each live rung's newest segment and when its playlist was read (`Session/LiveEdges.swift`).
    public internal(set) var liveEdges = LiveEdges()
    /// LL-HLS: starts behind the edge whose seek never landed in a row (one more start at the edge is tried, then it plays).
    var edgeStartMisses = 0
    /// The interstitial in play and those played (`Session/InterstitialPlay.swift`).
    public internal(set) var interstitials = InterstitialPlay()

    /// Whether any playlist or key of the stream uses METHOD=SAMPLE-AES (FFmpeg decrypts those samples itself).
    public var usesSampleAES: Bool {
        keys.contains { $0.method == .sampleAES }
            || (Array(media.values) + Array(renditionMedia.values)).contains { m in
                m.segments.contains { s in s.keys.contains { $0.method == .sampleAES } }
            }
    }

    /// What one pane keeps of its history: enough to scroll back through, bounded for sessions of days.
    public static let requestLimit = 2000
    public static let logLimit = 500
    public static let keyLimit = 500
    public static let switchLimit = Switches.limit
    public static let stallLimit = StallWatch.limit
    public static let violationLimit = 200
    /// Segments kept in the per-MSN tables (`segmentRung`, the GAPs reported, the breaks crossed) behind the newest one.
    public static let segmentMemory = 512

    public init(url: String) { self.url = url }

    /// A pane's state as its command line sets it up: the settings are the Session's from then on, changed only by its inputs.
    public init(url: String, settings: SessionSettings) {
        self.url = url
        selection = RungSelection(settings)
        insecureTLS = settings.insecureTLS
        forgetsBeforeReload = settings.forgetsBeforeReload
        checks = StreamChecks(judgesVersions: settings.judgesVersions)
        playerHold = PlayerHold(usual: settings.readahead)
        audio = AudioChoice(query: settings.audio)
        subs = SubtitleShowing(query: settings.subtitles)
    }

    /// Applies an event at session time `t` and returns what followed from it.
    @discardableResult
    mutating func apply(_ event: SessionEvent, at t: Double) -> [SessionFact] {
        now = max(now, t)
        switch event {
        case .opened(let url, let playlist, let diagnostics, let file):
            return opened(url: url, playlist: playlist, diagnostics: diagnostics, file: file, at: t)
        case .loader(let e): return loader(e, at: t)
        case .sample(let s): return sampled(s, at: t)
        case .frame(let g): return framed(g, at: t)
        case .liveEdge(let rung, let playlist):
            liveEdges.seen(rung, Timeline.carryingProgramDateTimes(playlist, from: media[rung]), at: now)
            return []
        case .streamGiven(let start, let from):
            streamGiven(start: start, from: from, at: t)
            return []
        case .audioGiven(let rung):
            // With the stream given, the subtitles follow the rung too (docs/SUBTITLES.md).
            let first = subs.given()
            return audioGiven(rung: rung, at: t) + followSubtitleChoice(rung: rung, reason: first ? .start : .variant, at: t)
        case .subtitleRead(let r, let url, let result): return subtitleRead(r, url: url, result: result, at: t)
        case .reloadPlanned(let rung, let boundary):
            switching.plan(rung.map { PlannedReload(rung: $0, boundary: boundary) })
            return []
        case .spliceChosen(let on):
            switching.splice(on)
            return []
        case .lowLatencyStarted(let holdBack):
            // A start again at the edge keeps when the last one was (at most one in ten seconds, `LatencyCatchUp`).
            catchUp = LatencyCatchUp(target: holdBack, restartedAt: catchUp?.restartedAt)
            lowLatency.holdBack = holdBack
            return []
        case .speedGiven:
            catchUp = nil
            return []
        case .playbackStarted:
            return playback.restarted(at: t) ? [.firstFrame(t)] : []
        case .fileEnded(let reason, let err): return fileEnded(reason, error: err, at: t)
        case .log(let level, let text):
            note(level, text, t)
            if level.isProblem { problem = text }
            return []
        case .steered(let a): return steered(a, at: t)
        case .ladderGrown(let m):
            ladder.grow(m)
            return []
        case .pathwayAnswered(let rung): return pathwayAnswered(rung: rung, at: t)
        case .switched(let s):
            switched(s, at: t)
            return []
        case .openFailed(let error):
            // The user typed the URL: the line leads with the cause so it fits the status line.
            var why = error
            for prefix in [url + ": ", url + " "] where why.hasPrefix(prefix) { why = String(why.dropFirst(prefix.count)) }
            return apply(.failed(message: "cannot open the stream: \(why)", cause: "origin"), at: t)
        case .openGivenUp(let why):
            let awaited =
                media.isEmpty && ladder.rungs.isEmpty
                ? "the playlist \(url) had not arrived" : "rung \(targetRung ?? 0)'s media playlist had not arrived"
            return apply(.failed(message: "\(why) before the stream opened: \(awaited)", cause: "open"), at: t)
        case .failed(let message, let cause):
            playback.failed(message)
            playerHold.failed()
            note(.error, "\(message) [\(cause)]", t)
            return [.failed(message: message, cause: cause)]
        }
    }

    /// The stream opened: its ladder (redundant copies named as pathways), its steering, its parse errors said, and the
    /// subtitles read from the start.
    private mutating func opened(url: String, playlist: Playlist, diagnostics: [Diagnostic], file: Bool, at t: Double) -> [SessionFact] {
        self.url = url
        ladder = Ladder(playlist)
        ladder.file = file
        openDiagnostics = diagnostics
        checks.opened(independentSegments: playlist.independentSegments)
        if case .media(let m) = playlist.body { media[0] = m }
        if case .multivariant(let m) = playlist.body {
            // Redundant copies of the ladder are pathways too, named by their hosts (docs/STEERING.md).
            let named = PathwayIDs.namingRedundantCopies(m)
            for i in ladder.rungs.indices { ladder.rungs[i].variant.pathwayID = named.variants[safe: i]?.pathwayID }
            openSteering(named, at: t)
        }
        for d in diagnostics where d.severity == .error {
            let text = "\(SessionState.shortName(url)) line \(d.line.map(String.init) ?? "?"): \(d.message) (\(d.rule))"
            note(.error, text, t)
            if problem == nil { problem = text }
            if cause == nil { cause = text }
        }
        // The subtitles are read from the start, beside the player's first reads (docs/SUBTITLES.md).
        guard !ladder.rungs.isEmpty else { return [] }
        _ = subs.given()
        return followSubtitleChoice(rung: targetRung ?? 0, reason: .start, at: t)
    }

    /// A frame sampled: frozen and black pictures followed, each change said.
    private mutating func framed(_ g: LumaGrid, at t: Double) -> [SessionFact] {
        let facts = picture.observe(g, at: t, playing: state == .playing)
        for f in facts {
            switch f {
            case .frozen(let since): note(.warn, "picture frozen since \(fixed(since, 1)) s", t)
            case .moving(let after): note(.info, "picture moves again after \(fixed(after, 1)) s frozen", t)
            case .black(let since): note(.warn, "picture black since \(fixed(since, 1)) s", t)
            case .shown(let after): note(.info, "picture back after \(fixed(after, 1)) s black", t)
            }
        }
        return facts.map { .picture($0) }
    }

    /// The player was given the stream again from `start` (a load, a reload): the playhead held where it was until it plays.
    private mutating func streamGiven(start: Int?, from: (time: Double, wall: DateTime)?, at t: Double) {
        // After an interstitial the player's time-pos was the asset's: it says nothing of where the primary was, which is where
        // it left for the interstitial (its last sample, held meanwhile) until the new stream plays.
        let left = interstitials.assetInPlayer ? playhead : nil
        let from = interstitials.assetInPlayer ? nil : from
        interstitials.primaryGiven()
        playback.given(start: start, at: t)
        ledger.streamGiven()
        // Where the playhead really was when the player stopped reading: the skip check measures the reload from there,
        // unless somebody asked the playhead to move (a seek, a sync move): then the check starts afresh where it lands.
        skipWatch.streamGiven(from: from.flatMap { f in locate(f.time).map { (f.wall, $0, f.time) } }, speed: sample.speed)
        // Until the new stream starts the picture is the old player's last frame, and its time-pos still reads in the old
        // stream's clock: the playhead stays where it was (a stale time read against the new stream's first segment
        // landed a loop — 20 s — away).
        if let f = from { playback.loading(from: locate(f.time)) } else if let left { playback.loading(from: left) }
        // Timed by segments the Loader reads along (no video decoded): the new player holds nothing before its first
        // segment, and a stream whose timestamps restart (a loop, a discontinuity) would otherwise place its first moments
        // in an older segment with the same timestamps until its own segment is measured (the read-along comes a moment
        // after the audio). A player that decodes video measures its own segments before it shows them, and a sample of
        // the old player still in flight must find the old segments.
        if let start, forgetsBeforeReload { clock.firstPTS = clock.firstPTS.filter { $0.key >= start } }
        // The new stream's playhead goes on from its first segment, whatever other segments share its timestamps.
        clock.anchor = start
    }

    /// The player ended its file: at the end, or failing (with the cause the session knows rather than mpv's word).
    private mutating func fileEnded(_ reason: FileEndReason, error err: String?, at t: Double) -> [SessionFact] {
        if let err, reason == .error {
            let why = cause ?? problem ?? err
            let message = "playback failed: \(why)"
            playback.failed(message)
            note(.error, "\(message) [mpv: \(err)]", t)
            return [.failed(message: message, cause: why)]
        }
        if reason == .eof, !ended {
            // A post-roll plays first (`reduce` begins it).
            if postRoll != nil { interstitials.post(true) } else { playback.reachedEnd() }
            return postRoll != nil ? [] : [.ended]
        }
        return []
    }

    /// A variant switch made: kept, counted and said.
    private mutating func switched(_ s: VariantSwitch, at t: Double) {
        switching.switched(s)
        ledger.switched()
        let rungs = ladder.rungs
        let name = { (i: Int?) in i.flatMap { rungs[safe: $0]?.name } ?? i.map { "rung \($0)" } ?? "-" }
        note(
            .info,
            "\(name(s.from)) → \(name(s.to)) (\(s.reason.rawValue), \(s.mechanism.rawValue)\(s.atMSN.map { " from msn \($0)" } ?? ""))\(s.detail.map { ": " + $0 } ?? "")",
            t)
    }

    /// The last two path components of a URL, with its query: enough to recognise it in one line.
    public static func shortName(_ url: String) -> String {
        let noScheme = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst(2)
        return noScheme.suffix(2).joined(separator: "/")
    }

    mutating func note(_ level: LogLevel, _ text: String, _ t: Double) {
        log.append(LogLine(t: t, level: level, text: text))
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
    }
}
