import CMCD
import HLS
import LoaderEvents

/// What libmpv reports about playback at one moment (raw values; time in `time-pos` scale).
public struct PlayerSample: Sendable, Equatable {
    public var timePos: Double?
    public var audioPts: Double?
    public var paused = false
    public var pausedForCache = false
    public var coreIdle = false
    public var eof = false
    public var width: Int?
    public var height: Int?
    /// The LANGUAGE of the audio track mpv plays (`current-tracks/audio/lang`, from the rendition it was given).
    public var audioLanguage: String?
    /// The channels of the audio mpv decodes (`audio-params/channel-count`).
    public var audioChannels: Int?
    /// mpv's `demuxer-cache-state/seekable-ranges`.
    public var seekableRanges: [TimeRange] = []
    public var cacheEnd: Double?
    public var underrun = false
    public var droppedFrames = 0
    public var speed = 1.0
    /// Between a `loadfile` hlstui gave and the player's restart: the picture stands still.
    public var loading = false
    /// hlstui held the player paused (moving it inside a freshly loaded rung): waiting for data, not the user's pause.
    public var held = false
    /// The wall clock when the sample was read (the pane reads it with the properties), for the glass-to-glass latency.
    public var wall: DateTime?
    public init() {}

    /// Not paused, not waiting, yet the core is idle: mpv restarts its playback (after a seek, or where it reset itself at a
    /// timestamp jump), and until it is done `time-pos` need not be the picture's: at a live TS loop's reset it read moments
    /// seconds away from it for up to half a second (docs/PLATFORM.md).
    public var restarting: Bool { coreIdle && !paused && !pausedForCache && !eof && !loading && !held }
}

/// What the player is doing, as the status line says it.
/// What a playlist said about one segment.
public struct SegmentFacts: Sendable, Equatable {
    public var duration: Double
    public var pdt: DateTime?
    /// EXT-X-DISCONTINUITY before it (RFC 8216bis §4.4.4.3).
    public var discontinuity = false
}

public enum PlaybackState: String, Sendable {
    /// `restarting`: mpv restarts its playback (after a seek, or where it reset itself at a timestamp jump: a TS discontinuity,
    /// a live loop); the picture stands for a few tenths of a second and what it held before the jump is dropped (a `skip`).
    case starting, playing, paused, buffering, restarting, ended, error
}

/// A stall: playback waited for data after it had started (seconds since session start).
public struct Stall: Sendable, Equatable {
    public var start: Double
    public var end: Double?
    /// What failed last before or during it (an origin answer, a transport error), when something did.
    public var cause: String?
    public init(start: Double, end: Double? = nil, cause: String? = nil) {
        self.start = start
        self.end = end
        self.cause = cause
    }
}

/// A change of the rung the player is given.
public struct VariantSwitch: Sendable, Equatable {
    public var t: Double
    public var from: Int?
    public var to: Int
    public var reason: SwitchReason
    public var mechanism: SwitchMechanism
    /// The first segment the new rung serves, when known (a splice takes effect after what the player already asked for).
    public var atMSN: Int?
    /// Why, in words (for ABR: the measurement that decided).
    public var detail: String?
    public init(t: Double, from: Int?, to: Int, reason: SwitchReason, mechanism: SwitchMechanism, atMSN: Int? = nil, detail: String? = nil)
    {
        self.detail = detail
        self.t = t
        self.from = from
        self.to = to
        self.reason = reason
        self.mechanism = mechanism
        self.atMSN = atMSN
    }
}

/// A segment download in progress.
public struct InFlight: Sendable, Equatable {
    public var rung: Int
    public var start: Double
}

/// One line of hlstui's log (mpv's messages, diagnostics, actions).
public struct LogLine: Sendable, Equatable {
    public var t: Double
    public var level: LogLevel
    public var text: String
}

/// Measured throughput from segment downloads: fast and slow moving averages weighted by download time, the lower one counts
/// (hls.js's EWMA bandwidth estimator: half-lives of 3 s and 9 s of downloading).
public struct ThroughputEstimator: Sendable, Equatable {
    /// An exponentially weighted average whose samples weigh as many seconds as they took.
    public struct Average: Sendable, Equatable {
        public var halfLife: Double
        var raw = 0.0
        var weight = 0.0
        init(halfLife: Double) { self.halfLife = halfLife }

        mutating func add(_ value: Double, weight w: Double) {
            let keep = pow2(-w / halfLife)
            raw = value * (1 - keep) + keep * raw
            weight += w
        }

        /// The average, corrected for the weight seen so far (nil before any sample).
        public var value: Double? {
            guard weight > 0 else { return nil }
            return raw / (1 - pow2(-weight / halfLife))
        }
    }

    public var fastAverage = Average(halfLife: 3)
    public var slowAverage = Average(halfLife: 9)
    public var samples = 0
    public init() {}

    public var fast: Double? { fastAverage.value }
    public var slow: Double? { slowAverage.value }

    /// Adds one download; tiny ones (under 16 KB or 1 ms) say more about latency than bandwidth and are skipped.
    public mutating func add(bytes: Int, seconds: Double) {
        guard bytes >= 16_384, seconds >= 0.001 else { return }
        let bps = Double(bytes) * 8 / seconds
        fastAverage.add(bps, weight: seconds)
        slowAverage.add(bps, weight: seconds)
        samples += 1
    }

    /// Bits per second, or nil before the first download.
    public var estimate: Double? {
        guard let f = fast, let s = slow else { return nil }
        return min(f, s)
    }
}

/// 2^x for the averages, without Foundation.
func pow2(_ x: Double) -> Double {
    // 2^x = e^(x ln 2); a series for e^y after range reduction to |y| < ln 2 / 2.
    let y0 = x * 0.6931471805599453
    let k = (y0 / 0.6931471805599453).rounded()
    let y = y0 - k * 0.6931471805599453
    var term = 1.0, sum = 1.0
    for n in 1...20 {
        term *= y / Double(n)
        sum += term
    }
    guard k.isFinite, abs(k) < 1000 else { return k > 0 ? .infinity : 0 }
    var scale = 1.0
    let twoK = k >= 0 ? 2.0 : 0.5
    for _ in 0..<Int(abs(k)) { scale *= twoK }
    return sum * scale
}

/// A forward jump of the playhead past content that was never shown, outside a seek the user asked for.
public struct Skip: Sendable, Equatable {
    /// Session time it was seen.
    public var t: Double
    /// Where the playhead left (raw media time and segment) and where it landed.
    public var fromTime: Double
    public var from: StreamPoint
    public var toTime: Double
    public var to: StreamPoint
    /// Seconds of content skipped: the distance moved beyond what playing for the elapsed time covers.
    public var seconds: Double
    public var cause: String
}

/// The last point the skip check measured from.
struct Progress: Sendable, Equatable {
    var wall: DateTime
    var point: StreamPoint
    var time: Double
    var advancing: Bool
    var speed: Double
}

/// What happened as a consequence of an event, for the JSON Lines stream and the log.
public enum SessionFact: Sendable, Equatable {
    case skipped(Skip)
    case stallStarted(Double)
    case stallEnded(Stall)
    case gap(rung: Int?, msn: Int, pdt: DateTime?, duration: Double, action: String)
    case ended
    case failed(message: String, cause: String)
    /// The picture froze, moved again, went black or came back (`PictureWatch`).
    case picture(PictureFact)
    /// The pathway in use changed (docs/STEERING.md).
    case pathway(Pathways.Change, detail: String)
    /// A steering reload came back: what it said, in one line, and when the next one goes (session time; nil: never).
    case steering(outcome: String, priority: [String], next: Double?)
    /// The playhead entered or left a break the stream announces (docs/EVENTS.md).
    case cue(BreakFact)
    /// A reload of a live playlist changed what the server may not change (RFC 8216bis §6.2.1; docs/VALIDATION.md).
    case violation(rung: Int?, rendition: String?, finding: ContinuityFinding)
    /// The player showed its first frame (its first playback restart), at this session time: the start as the player's own
    /// event times it, not a sample.
    case firstFrame(Double)
    /// The audio rendition given to the player changed (docs/RENDITIONS.md).
    case audio(AudioChange)
    /// The subtitle rendition shown changed, or was turned off (docs/SUBTITLES.md).
    case subtitleRendition(SubtitleChange)
    /// The cue shown at the playhead changed (docs/SUBTITLES.md).
    case subtitle(SubtitleShown)
}

/// What happened, as the Session consumes it; time arrives with each event (seconds since session start).
/// A live rung's newest segment as hlstui last saw it.
public struct LiveEdge: Sendable, Equatable {
    public var msn: Int
    /// Session time it first appeared.
    public var at: Double
    /// Where it ends on the wall clock (nil without PDT).
    public var end: DateTime?
    /// How long the newest segment is as listed (a segment in progress: its parts so far).
    public var length: Double = 0
}

public enum SessionEvent: Sendable {
    /// `file`: a progressive file the player reads whole, which `playlist` (one segment) stands for.
    case opened(url: String, playlist: Playlist, diagnostics: [Diagnostic], file: Bool = false)
    case loader(LoaderEvent)
    case sample(PlayerSample)
    case playbackStarted
    case fileEnded(reason: FileEndReason, error: String?)
    case log(level: LogLevel, text: String)
    /// A steering reload's answer (docs/STEERING.md).
    case steered(SteeringAnswer)
    /// The multivariant playlist with a steering manifest's clones added (their variants after the playlist's own).
    case ladderGrown(MultivariantPlaylist)
    /// A pathway's retest read the playlist of `rung` on it.
    case pathwayAnswered(rung: Int)
    case switched(VariantSwitch)
    case failed(message: String, cause: String)
    /// A live playlist hlstui read itself: it moves the live edge, not the window the player plays.
    case liveEdge(rung: Int, playlist: MediaPlaylist)
    /// hlstui gave the player a stream to open (a start, a reload, a seek by reload) starting at `startMSN` (nil: where the
    /// player chooses), when its playhead was at raw media time `from` (read with the wall clock at that moment): what it held
    /// before is gone.
    case streamGiven(startMSN: Int?, from: (time: Double, wall: DateTime)? = nil)
    /// The player was given `rung` with the audio rendition the choice picks in its group (`audioPick(rung:)`).
    case audioGiven(rung: Int)
    /// A subtitle read hlstui made came back (`PaneEffect.readSubtitles`): the text, or why not, and the URL read.
    case subtitleRead(SubtitleRead, url: String, result: Result<SubtitleAnswer, SubtitleReadFailure>)
    /// A switch to `rung` waits for the playhead to reach the start of segment `boundary` (nil: the end of the playhead's
    /// segment, whichever it is then); `rung` nil: none waits any more.
    case reloadPlanned(rung: Int?, boundary: Int? = nil)
    /// The player's stream is a splice (the Loader picks each segment's rung) or not.
    case spliceChosen(Bool)
    /// LL-HLS: the player was started `holdBack` seconds behind the last part and is given parts as published; the session
    /// keeps it there (`LatencyCatchUp`).
    case lowLatencyStarted(holdBack: Double)
    /// Something other than the session set the playback speed (the user, the sync controller): the catch-up stands down.
    case speedGiven
    /// The frame on screen, reduced to its luma grid (sampled a few times a second while video is decoded).
    case frame(LumaGrid)
}

/// One pane's state: playlists, requests, keys, player, caps and selection; changed only by `apply` (no I/O, no clock).
public struct SessionState: Sendable {
    public var url: String
    public var now: Double = 0
    public var ladder = Ladder()
    public var openDiagnostics: [Diagnostic] = []
    /// Latest media playlist of each rung.
    public var media: [Int: MediaPlaylist] = [:]
    /// Latest media playlist of each alternate rendition ("TYPE group/name").
    public var renditionMedia: [String: MediaPlaylist] = [:]
    public var clock = MediaClock()
    /// The rung that served each segment the player fetched, by MSN.
    public var segmentRung: [Int: Int] = [:]
    /// The newest requests (`requestLimit`) and keys (`keyLimit`); the totals cover the whole session.
    public var requests: [RequestEvent] = []
    public internal(set) var requestTotals = RequestTotals()
    public var keys: [KeyEvent] = []
    public var log: [LogLine] = []
    public var sample = PlayerSample()
    public var started = false
    /// Session time of the first frame (`SessionFact.firstFrame`); nil before it.
    public internal(set) var firstFrameAt: Double?
    public var ended = false
    /// Why playback failed, in one sentence.
    public var error: String?
    /// The latest non-fatal problem, in one sentence.
    public var problem: String?
    /// The first problem hlstui itself saw (a playlist error, an origin failure, a key failure): the likely cause of what follows.
    public var cause: String?
    /// The newest stalls (`stallLimit`); `earlierStalls` counts the ones trimmed, so the totals stay whole.
    public var stalls: [Stall] = []
    public internal(set) var earlierStalls = StallTotals()
    public var caps = Caps()
    /// `--cmsd-cap`: the server's maximum suggested bitrate (CMSD `mb`) caps the ladder (docs/CMCD.md).
    public var followsCMSD = false
    /// The server's cap moved since the pane last planned for it.
    var serverCapMoved = false
    /// When an answer last carried the server's cap.
    var serverCapSeen: Double?
    public var mode: SelectionMode = .automatic
    /// The stream's pathways when it has several or a steering server (docs/STEERING.md); nil otherwise.
    public internal(set) var pathways: Pathways?
    /// The steering client: where and when its next reload goes.
    public internal(set) var steering = SteeringClient()
    /// How switches a person asks for take effect (ABR switches are always smooth unless configured).
    public var manualSwitch: SwitchMode = .immediate
    /// The user's pause (space): the player's own pause property cannot tell it apart from the pause mpv sets at the end of
    /// what it was given (`keep-open`), so hlstui's reloads play on unless this is set.
    public var userPaused = false
    /// The rung the player was last given.
    public var loadedRung: Int?
    /// The audio rendition chosen (`--audio`, `A`, `audio` in a script; docs/RENDITIONS.md); nil: each group's DEFAULT.
    public internal(set) var audioChoice: AudioPreference?
    /// The audio rendition the player was last given; nil when its variant names no AUDIO group.
    public internal(set) var playingAudio: Rendition?
    /// A person's audio switch, until the stream that carries it out is given.
    var audioAsked: AudioChange?
    /// A seek asked for before the player's first frame: the playlist position it goes to, once the playhead is known.
    public internal(set) var pendingSeek: Double?
    /// The subtitles asked for (`--subs`, `S`, `subs` in a script; docs/SUBTITLES.md).
    public internal(set) var subtitleChoice = SubtitleChoice.automatic
    /// The subtitle rendition shown: what hlstui read of it and the cues at the playhead; nil when off.
    public internal(set) var subtitles: SubtitleTrack?
    /// The first stream was given: later changes of the subtitles are the variant's.
    var subtitleChoiceSeen = false
    /// The last failure the Loader saw (an origin answer, a transport error), with its time: a stall's cause.
    public var lastFailure: (t: Double, text: String)?
    /// Since when the player sits at the end of what it was given while the stream is not over.
    public var eofSince: Double?
    /// Segments of the variant the player received whole since it was last given a stream, by MSN: the session time each
    /// arrived. What it holds ahead of the playhead is measured from these, not from mpv's cache ranges alone.
    public var delivered: [Int: Double] = [:]
    /// Each variant segment seen in a playlist, by MSN: its duration and PDT. A player far behind the live edge plays segments
    /// that have left every playlist's window; these keep measuring them.
    public var seen: [Int: SegmentFacts] = [:]
    /// Since when the player has been opening a stream it was given (a reload) after playback had started.
    public var loadingSince: Double?
    /// The newest switches (`switchLimit`).
    public var switches: [VariantSwitch] = []
    /// Forward jumps past content never shown (the newest 100); the count and seconds cover all of them.
    public var skips: [Skip] = []
    public var skipCount = 0
    public internal(set) var skippedSeconds = 0.0
    var progress: Progress?
    /// The next stream given to the player moves the playhead because somebody asked (a seek by reload, a sync move): not a
    /// skip.
    var moveAsked = false
    /// The breaks the playing rung announces, followed against the playhead (docs/EVENTS.md).
    public internal(set) var breaks = BreakWatch()
    /// The last playlist read of each rung and rendition (its URL and body as read), for the reload rules.
    var lastRead: [String: (url: String, playlist: MediaPlaylist)] = [:]
    /// Violations said (rule and segment, per playlist): each once.
    var violationsSaid: Set<String> = []
    /// How many reloads broke a rule, by rule (docs/VALIDATION.md).
    public internal(set) var violationCount = 0
    /// Session time of the last stream given to the player, and the segment it starts at (nil: the playlist's choice).
    public var lastGiven: Double?
    public var givenStart: Int?
    public var throughput = ThroughputEstimator()
    /// The figures the history plots draw, a value a second over the last minutes.
    public var history = History()
    /// The player decodes no video, so the playhead is timed by segments the Loader reads along: a reload forgets the
    /// timestamps measured before its first segment.
    public var forgetsBeforeReload = false
    public var insecureTLS = false
    /// LL-HLS reloads with delivery directives: the latest, and what delta updates saved in all.
    public private(set) var lowLatency = LowLatencyReloads()
    /// LL-HLS: keeps the playhead at PART-HOLD-BACK from the edge while the session owns the speed.
    public internal(set) var catchUp: LatencyCatchUp?
    /// Frozen and black picture detection over the frames sampled.
    public internal(set) var picture = PictureWatch()
    /// Segment downloads in progress, by MSN: the rung and the session time they started.
    public var inFlight: [Int: InFlight] = [:]
    /// Session time of the latest segment request (started or finished) of each rung.
    public var lastSegmentAt: [Int: Double] = [:]
    /// True when the player was given a spliced playlist (the Loader picks each segment's rung).
    public var spliced = false
    var gapsReported: Set<GapMark> = []
    /// A switch waiting for the playhead to reach its boundary: the rung to reload, and from which segment.
    public internal(set) var plannedReload: PlannedReload?
    /// The GAP runs (first MSN) and fMP4 discontinuities (negated MSN) already crossed, so each is crossed once.
    var crossed: Set<Int> = []
    /// Each live rung's newest segment: its MSN, the session time it first appeared and the PDT where it ends.
    var edgeSeen: [Int: LiveEdge] = [:]
    /// True from the moment the player is given a stream until it restarts playback: `time-pos` then reads 0, not a position.
    public internal(set) var playerLoading = false
    /// Where the playhead was when the player was given the stream it is loading (nil when none was playing).
    var loadingPoint: StreamPoint?
    /// Session time each rung's media playlist was last read (by the player or by hlstui).
    var playlistReadAt: [Int: Double] = [:]
    /// Session time of the last attempt to reload a player its origin stopped.
    var lastRecoveryAttempt: Double?

    /// Seconds since rung `rung`'s live playlist last gained a segment (nil: not live, ended, or not read yet). Beyond three
    /// target durations the origin has stopped publishing (a live origin adds one about every target duration; the shipped alert
    /// rules, docs/METRICS.md, call it stuck past three).
    public func liveEdgeAge(rung: Int) -> Double? {
        guard let m = media[rung], m.isLive, let e = edgeSeen[rung] else { return nil }
        return max(0, now - e.at)
    }

    /// Records a live playlist's newest segment (and where it ends on the wall clock) the first time it is seen.
    mutating func noteEdge(_ rung: Int, _ m: MediaPlaylist) {
        // A segment in progress moves the edge with each part it lists (RFC 8216bis §4.4.4.9), not only a new segment.
        guard m.isLive, let last = m.segments.last else { return }
        let end = last.effectiveProgramDateTime?.adding(seconds: last.duration)
        if let seen = edgeSeen[rung], seen.msn > last.mediaSequence || (seen.msn == last.mediaSequence && last.duration <= seen.length) {
            return
        }
        edgeSeen[rung] = LiveEdge(msn: last.mediaSequence, at: now, end: end, length: last.duration)
    }

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
    public static let switchLimit = 500
    public static let stallLimit = 200
    /// Segments kept in the per-MSN tables (`segmentRung`, the GAPs reported, the breaks crossed) behind the newest one.
    public static let segmentMemory = 512

    public init(url: String) { self.url = url }

    /// Applies an event at session time `t` and returns what followed from it.
    @discardableResult
    public mutating func apply(_ event: SessionEvent, at t: Double) -> [SessionFact] {
        now = max(now, t)
        switch event {
        case .opened(let url, let playlist, let diagnostics, let file):
            self.url = url
            ladder = Ladder(playlist)
            ladder.file = file
            openDiagnostics = diagnostics
            if case .media(let m) = playlist.body { media[0] = m }
            if case .multivariant(let m) = playlist.body {
                // Redundant copies of the ladder are pathways too, named by their hosts (docs/STEERING.md).
                let named = Pathways.namingRedundantCopies(m)
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
            subtitleChoiceSeen = true
            return followSubtitleChoice(rung: targetRung ?? 0, reason: .start, at: t)
        case .loader(let e): return loader(e, at: t)
        case .sample(let s): return sampled(s, at: t)
        case .frame(let g):
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
        case .liveEdge(let rung, let playlist):
            noteEdge(rung, Timeline.carryingProgramDateTimes(playlist, from: media[rung]))
            return []
        case .streamGiven(let start, let from):
            playerLoading = true
            delivered = [:]
            lastGiven = t
            givenStart = start
            // Where the playhead really was when the player stopped reading: the skip check measures the reload from there,
            // unless somebody asked the playhead to move (a seek, a sync move): then the check starts afresh where it lands.
            if moveAsked {
                moveAsked = false
                progress = nil
            } else if let f = from, let point = locate(f.time) {
                progress = Progress(wall: f.wall, point: point, time: f.time, advancing: false, speed: sample.speed)
            }
            // Until the new stream starts the picture is the old player's last frame, and its time-pos still reads in the old
            // stream's clock: the playhead stays where it was (a stale time read against the new stream's first segment
            // landed a loop — 20 s — away).
            if let f = from { loadingPoint = locate(f.time) }
            // Timed by segments the Loader reads along (no video decoded): the new player holds nothing before its first
            // segment, and a stream whose timestamps restart (a loop, a discontinuity) would otherwise place its first moments
            // in an older segment with the same timestamps until its own segment is measured (the read-along comes a moment
            // after the audio). A player that decodes video measures its own segments before it shows them, and a sample of
            // the old player still in flight must find the old segments.
            if let start, forgetsBeforeReload { clock.firstPTS = clock.firstPTS.filter { $0.key >= start } }
            // The new stream's playhead goes on from its first segment, whatever other segments share its timestamps.
            clock.anchor = start
            return []
        case .audioGiven(let rung):
            // With the stream given, the subtitles follow the rung too (docs/SUBTITLES.md).
            let first = !subtitleChoiceSeen
            subtitleChoiceSeen = true
            return audioGiven(rung: rung, at: t) + followSubtitleChoice(rung: rung, reason: first ? .start : .variant, at: t)
        case .subtitleRead(let r, let url, let result): return subtitleRead(r, url: url, result: result, at: t)
        case .reloadPlanned(let rung, let boundary):
            plannedReload = rung.map { PlannedReload(rung: $0, boundary: boundary) }
            return []
        case .spliceChosen(let on):
            spliced = on
            return []
        case .lowLatencyStarted(let holdBack):
            // A start again at the edge keeps when the last one was (at most one in ten seconds, `LatencyCatchUp`).
            let restartedAt = catchUp?.restartedAt
            catchUp = LatencyCatchUp(target: holdBack)
            catchUp?.restartedAt = restartedAt
            return []
        case .speedGiven:
            catchUp = nil
            return []
        case .playbackStarted:
            let first = !started
            started = true
            playerLoading = false
            loadingPoint = nil
            guard first else { return [] }
            firstFrameAt = t
            return [.firstFrame(t)]
        case .fileEnded(let reason, let err):
            if let err, reason == .error {
                let why = cause ?? problem ?? err
                let message = "playback failed: \(why)"
                error = message
                note(.error, "\(message) [mpv: \(err)]", t)
                return [.failed(message: message, cause: why)]
            }
            if reason == .eof {
                ended = true
                return [.ended]
            }
            return []
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
            switches.append(s)
            requestTotals.switches += 1
            if switches.count > Self.switchLimit { switches.removeFirst(switches.count - Self.switchLimit) }
            loadedRung = s.to
            let rungs = ladder.rungs
            let name = { (i: Int?) in i.flatMap { rungs[safe: $0]?.name } ?? i.map { "rung \($0)" } ?? "-" }
            note(
                .info,
                "\(name(s.from)) → \(name(s.to)) (\(s.reason.rawValue), \(s.mechanism.rawValue)\(s.atMSN.map { " from msn \($0)" } ?? ""))\(s.detail.map { ": " + $0 } ?? "")",
                t)
            return []
        case .failed(let message, let cause):
            error = message
            note(.error, "\(message) [\(cause)]", t)
            return [.failed(message: message, cause: cause)]
        }
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

    mutating func loader(_ e: LoaderEvent, at t: Double) -> [SessionFact] {
        switch e {
        case .request(let r):
            requests.append(r)
            requestTotals.count += 1
            requestTotals.bytes += r.bytes
            if r.kind == .segment { requestTotals.segments += 1 }
            if r.kind == .part { lowLatency.part(r) }
            if followsCMSD { followServer(r.cmsd, at: t) }
            if requests.count > Self.requestLimit { requests.removeFirst(requests.count - Self.requestLimit) }
            // Only the variant's own segments time the playhead: renditions share MSNs but not always first PTS.
            if r.kind == .segment, let msn = r.msn { inFlight[msn] = nil }
            if r.kind == .segment, let rung = r.rung { lastSegmentAt[rung] = t }
            if r.kind == .segment, let msn = r.msn, r.rung != nil {
                if let pts = r.firstPTS { clock.firstPTS[msn] = pts; clock.trim() }
                if let rung = r.rung { segmentRung[msn] = rung }
                Self.trim(&segmentRung, newest: msn)
                // A segment served as its parts were published took the publishing's time, not the network's.
                if r.status == 200 || r.status == 206, !r.local, !r.paced { throughput.add(bytes: r.bytes, seconds: r.durationMs / 1000) }
                if (200..<300).contains(r.status), r.outcome == .ok {
                    delivered[msn] = t
                    if delivered.count > 64, let oldest = delivered.keys.min() { delivered[oldest] = nil }
                    notePeak(bytes: r.bytes, msn: msn)
                }
            }
            // A part times the network from its first byte on: a hinted one is held until it is published (RFC 8216bis §4.4.5.3).
            if r.kind == .part, r.status == 200 || r.status == 206, !r.local, let ttfb = r.ttfbMs, r.durationMs - ttfb >= 1 {
                throughput.add(bytes: r.bytes, seconds: (r.durationMs - ttfb) / 1000)
            }
            // A progressive file's pieces time the network as segments do.
            if r.kind == .file, r.status == 200 || r.status == 206, !r.local {
                throughput.add(bytes: r.bytes, seconds: r.durationMs / 1000)
            }
            if let err = r.failure {
                let text = "\(r.kind.rawValue) \(r.msn.map { "\($0) " } ?? "")\(SessionState.shortName(r.url)): \(err)"
                lastFailure = (t, text)
                problem = text
                if cause == nil { cause = text }
                note(.warn, text, t)
            }
            if r.outcome == .gap, let msn = r.msn, reportGap(rung: r.rung ?? -1, msn: msn) {
                let m = r.rung.flatMap { media[$0] } ?? playingMedia
                let seg = m.flatMap { $0.segments[safe: msn - $0.mediaSequence] }
                return [
                    .gap(
                        rung: r.rung, msn: msn, pdt: seg?.effectiveProgramDateTime, duration: seg?.duration ?? 0,
                        action: "answered locally, never requested")
                ]
            }
            // A rung's playlist or segment that failed upstream fails its pathway (docs/STEERING.md).
            if let err = r.failure, let rung = r.rung, !r.local, r.kind == .media || r.kind == .segment || r.kind == .initSection {
                return pathwayFailed(rung: rung, cause: err, at: t)
            }
            return []
        case .key(let k):
            if !keys.contains(where: { $0.uri == k.uri }) { requestTotals.keys += 1 }
            keys.append(k)
            if keys.count > Self.keyLimit { keys.removeFirst(keys.count - Self.keyLimit) }
            if let err = k.error {
                problem = "key: \(err)"
                if cause == nil { cause = problem }
            }
            if let repair = k.repair { note(.warn, "key \(k.fingerprint ?? "?") repaired: \(repair)", t) }
            return []
        case .diagnostic(let d):
            problem = d
            if cause == nil { cause = d }
            note(.warn, d, t)
            return []
        case .firstPTS(let rung, let msn, let seconds):
            if rung != nil {
                clock.firstPTS[msn] = seconds
                clock.trim()
                if let rung { segmentRung[msn] = rung }
                Self.trim(&segmentRung, newest: msn)
            }
            return []
        case .segmentStarted(let rung, let msn, _):
            if let rung {
                inFlight[msn] = InFlight(rung: rung, start: t)
                lastSegmentAt[rung] = t
            }
            if inFlight.count > 16, let oldest = inFlight.min(by: { $0.value.start < $1.value.start }) { inFlight[oldest.key] = nil }
            return []
        case .failover(let msn, let failed, let by, let cause):
            let rungs = ladder.rungs
            let name = { (r: Int) in rungs[safe: r]?.name ?? "rung \(r)" }
            if let by {
                note(.warn, "msn \(msn) of \(name(failed)) failed (\(cause)): served from \(name(by))", t)
            } else {
                note(.error, "msn \(msn) failed on every allowed rung (last: \(cause))", t)
            }
            lastFailure = (t, cause)
            return pathwayFailed(rung: failed, cause: cause, at: t)
        case .recovered(let rung, let down, let cause):
            let name = ladder.rungs[safe: rung]?.name ?? "rung \(rung)"
            note(.info, "\(name) answers again after \(fixed(down, 1)) s (it failed with \(cause)): used again", t)
            return []
        case .reload(let r):
            lowLatency.add(r)
            return []
        case .playerCMCD:
            // Another player's, through `hlstui proxy`: not this pane's.
            return []
        case .resume(let r):
            // A body that broke while the player read it: the player waits for the rest (a stall has this cause), and hears
            // how it ended (DECISIONS.md, "A body that breaks is resumed").
            switch r.phase {
            case .broken:
                lastFailure = (t, r.text)
                note(.warn, r.text, t)
            case .resumed:
                note(.info, r.text, t)
            case .gaveUp:
                lastFailure = (t, r.text)
                problem = r.text
                if cause == nil { cause = r.text }
                note(.warn, r.text, t)
            }
            return []
        case .gapFilled(let msn, let gapRung, let by):
            guard reportGap(rung: gapRung, msn: msn) else { return [] }
            let seg = media[gapRung].flatMap { $0.segments[safe: msn - $0.mediaSequence] }
            let name = ladder.rungs[safe: by]?.name ?? "rung \(by)"
            note(.info, "GAP msn \(msn) of rung \(gapRung): served from \(name)", t)
            return [
                .gap(
                    rung: gapRung, msn: msn, pdt: seg?.effectiveProgramDateTime, duration: seg?.duration ?? 0,
                    action: "served from rung \(by)")
            ]
        case .playlist(let p):
            let violations = continuity(p, at: t)
            // A live reload keeps the PDT the last one gave (a tag only after discontinuities slides out of the window).
            // LL-HLS: the segment in progress counts as far as its parts are published (the player is given it as they come).
            let playlist = Timeline.carryingProgramDateTimes(p.playlist.withSegmentInProgress, from: p.rung.flatMap { media[$0] })
            if let rung = p.rung { media[rung] = playlist } else if let r = p.rendition { renditionMedia[r] = p.playlist }
            if p.rung != nil { remember(playlist) }
            if let rung = p.rung { noteEdge(rung, playlist) }
            if let rung = p.rung { playlistReadAt[rung] = t }
            if let rung = p.rung, rung == (loadedRung ?? 0) { breaks.update(playlist) }
            // GAPs of the rung playing that no other rung fills: reported once, as soon as the playlist shows them.
            guard let rung = p.rung, rung == (loadedRung ?? 0) else { return violations }
            return violations
                + p.playlist.segments.filter {
                    $0.gap && isUnfillableGap($0.mediaSequence) && reportGap(rung: rung, msn: $0.mediaSequence)
                }
                .map {
                    .gap(
                        rung: rung, msn: $0.mediaSequence, pdt: $0.effectiveProgramDateTime, duration: $0.duration,
                        action: "no allowed rung has media: the player's playlist ends before it and hlstui reloads after it")
                }
        }
    }

    mutating func sampled(_ s: PlayerSample, at t: Double) -> [SessionFact] {
        sample = s
        // A sample of the old player still in flight during a load says nothing of where the new one goes on from, nor does one
        // read while mpv restarts at a timestamp reset (it reads moments far from the picture, docs/PLATFORM.md).
        if !playerLoading, !s.restarting, let time = s.timePos, let m = media[loadedRung ?? 0] ?? media.values.first {
            clock.follow(time, in: m)
        }
        if started { recordHistory(at: t) }
        var facts: [SessionFact] = []
        if let skip = checkSkip(s, at: t) { facts.append(.skipped(skip)) }
        if started, !playerLoading, !s.restarting, let p = playhead {
            for f in breaks.step(at: p, pdt: playheadPDT, t: t) {
                switch f {
                case .entered(let b):
                    note(.info, "entered break \(b.key)" + (b.planned.map { " (planned \(fixed($0, 1)) s)" } ?? ""), t)
                case .left(let b, let seconds): note(.info, "left break \(b.key) after \(fixed(seconds, 1)) s", t)
                }
                facts.append(.cue(f))
            }
        }
        // Stopped at the end of what it was given while the stream goes on (the player gave up on a failing origin, or waits on
        // a playlist that no longer grows) is a stall too, never a pause: after a second, so a reload at a break is not one.
        if s.eof && !ended && started { eofSince = eofSince ?? t } else { eofSince = nil }
        // A reload that takes more than a second (its first segment is slow or held) freezes the picture just the same.
        if s.loading && started && !ended { loadingSince = loadingSince ?? t } else { loadingSince = nil }
        let stuck = eofSince.map { t - $0 >= 1.0 } ?? false
        let reloading = loadingSince.map { t - $0 >= 1.0 } ?? false
        let waiting = s.pausedForCache || stuck || reloading
        if started, waiting, stalls.last.map({ $0.end != nil }) ?? true {
            let start = s.pausedForCache ? t : (eofSince ?? loadingSince ?? t)
            let cause = recentFailure(at: t)
            stalls.append(Stall(start: start, end: nil, cause: cause))
            if stalls.count > Self.stallLimit {
                for old in stalls.prefix(stalls.count - Self.stallLimit) {
                    earlierStalls.count += 1
                    earlierStalls.seconds += (old.end ?? t) - old.start
                }
                stalls.removeFirst(stalls.count - Self.stallLimit)
            }
            if let cause { note(.warn, "stalled: \(cause)", t) }
            facts.append(.stallStarted(start))
        }
        if started, waiting, let last = stalls.last, last.end == nil, last.cause == nil, let c = recentFailure(at: t) {
            stalls[stalls.count - 1].cause = c
        }
        if !waiting, let last = stalls.last, last.end == nil {
            stalls[stalls.count - 1].end = t
            if let c = last.cause { note(.info, "playing again after \(fixed(t - last.start, 1)) s stalled (\(c))", t) }
            facts.append(.stallEnded(stalls[stalls.count - 1]))
        }
        // The end of the stream, not the end of a playlist the Loader stopped before a GAP run.
        if s.eof && !ended, let m = media[playingRung ?? 0], m.endList,
            playhead.map({ p in !m.segments.contains { $0.mediaSequence > p.msn && !$0.gap } }) ?? true
        {
            ended = true
            facts.append(.ended)
        }
        return facts
    }

    /// Seconds of content between two playhead points (negative when `b` is behind `a`); a GAP no rung fills counts as
    /// nothing (crossing it is reported as a GAP, not a skip). Nil when a segment's duration between them is unknown.
    public func distance(from a: StreamPoint, to b: StreamPoint) -> Double? {
        if b.msn == a.msn { return b.offset - a.offset }
        if b.msn < a.msn { return distance(from: b, to: a).map { -$0 } }
        func duration(_ msn: Int) -> Double? {
            if isUnfillableGap(msn) { return 0 }
            if let d = seen[msn]?.duration { return d }
            return media.values.lazy.compactMap { m in
                m.segments[safe: msn - m.mediaSequence].flatMap { $0.mediaSequence == msn ? $0.duration : nil }
            }.first
        }
        guard let first = duration(a.msn) else { return nil }
        var total = max(0, first - a.offset) + b.offset
        for msn in (a.msn + 1)..<b.msn {
            guard let d = duration(msn) else { return nil }
            total += d
        }
        return total
    }

    /// The playhead moved forward by more than playing covers since the last sample (it is measured by segment and offset, so
    /// timestamp resets do not count): a skip, with the likeliest cause. Samples that cannot advance (paused, waiting, loading)
    /// move the reference time with them, so time spent waiting never excuses a jump.
    mutating func checkSkip(_ s: PlayerSample, at t: Double) -> Skip? {
        guard started, let wall = s.wall else { return nil }
        let advancing = !s.paused && !s.pausedForCache && !s.eof && !s.held && !s.loading
        // Between loadfile and the restart the position is the old one, while hlstui holds the player to move it inside a
        // freshly loaded rung it stands where that rung starts, and while mpv restarts its playback it may be neither: the
        // position before stands, only the clock moves on.
        if s.loading || s.held || s.restarting {
            if var p = progress {
                p.wall = wall
                p.advancing = false
                progress = p
            }
            return nil
        }
        // A sample whose position is not read or not located yet (mpv has none for a moment as it restarts at a timestamp
        // jump; the segment it jumped to is not measured yet), or whose distance from the last point is not known yet: the
        // last point stands, so the jump is measured from it once it can be. Time the player may have played meanwhile counts
        // as played (the clock of the last point is kept); time it stood still does not (the clock moves on).
        func keepLast() {
            guard var p = progress else { return }
            if advancing || p.advancing { p.advancing = true } else { p.wall = wall }
            progress = p
        }
        guard let time = s.timePos, let point = locate(time) else {
            keepLast()
            return nil
        }
        guard let last = progress else {
            progress = Progress(wall: wall, point: point, time: time, advancing: advancing, speed: s.speed)
            return nil
        }
        guard let moved = distance(from: last.point, to: point) else {
            // Not for long: a point whose segments are forgotten never becomes measurable, and the check starts afresh.
            if wall.seconds(since: last.wall) > 10 {
                progress = Progress(wall: wall, point: point, time: time, advancing: advancing, speed: s.speed)
            } else {
                keepLast()
            }
            return nil
        }
        progress = Progress(wall: wall, point: point, time: time, advancing: advancing, speed: s.speed)
        let elapsed = max(0, wall.seconds(since: last.wall))
        let played = (last.advancing || advancing ? elapsed * max(last.speed, s.speed, 1) : 0)
        // A frame or two of slack: samples read several properties one after another.
        guard moved - played > 0.15 else { return nil }
        // The player catching up right after a jump (it shows the rest faster) belongs to the same skip.
        if let k = skips.last, k.toTime == last.time, k.to == last.point {
            skips[skips.count - 1].to = point
            skips[skips.count - 1].toTime = time
            skips[skips.count - 1].seconds += moved - played
            skippedSeconds += moved - played
            return nil
        }
        let skip = Skip(
            t: t, fromTime: last.time, from: last.point, toTime: time, to: point, seconds: moved - played,
            cause: skipCause(at: t, over: last.point.msn...point.msn))
        skipCount += 1
        skippedSeconds += skip.seconds
        skips.append(skip)
        if skips.count > 100 { skips.removeFirst(skips.count - 100) }
        note(
            .warn,
            "skipped \(fixed(skip.seconds, 2)) s of content: msn \(last.point.msn) +\(fixed(last.point.offset, 2)) s → msn \(point.msn) +\(fixed(point.offset, 2)) s (\(skip.cause))",
            t)
        return skip
    }

    /// What most likely made the playhead jump: a switch or a reload just before, a failed request, or the player alone.
    func skipCause(at t: Double, over msns: ClosedRange<Int>) -> String {
        // A segment in the jump that failed: the player gave up on it and went on.
        if let r = requests.last(where: { r in
            r.kind == .segment && r.msn.map(msns.contains) == true && (r.status >= 400 || r.failure != nil) && r.outcome != .gap
        }) {
            return "msn \(r.msn ?? 0) failed (\(r.failure ?? "HTTP \(r.status)")) and the player went past it"
        }
        // A timestamp reset the player met: mpv restarts its playback there and drops what it held before it.
        if msns.count > 1,
            // A player behind the live window meets it after its segment left every playlist: the segments seen keep it.
            let d = ((msns.lowerBound + 1)...msns.upperBound).first(where: { msn in
                seen[msn]?.discontinuity == true
                    || media.values.contains { m in
                        m.segments[safe: msn - m.mediaSequence].map { $0.mediaSequence == msn && $0.discontinuity } ?? false
                    }
            })
        {
            return "a discontinuity at msn \(d): the player reset its playback at the timestamp jump and dropped what it held before it"
        }
        if let w = switches.last, t - w.t <= 3 {
            let name = ladder.rungs[safe: w.to]?.name ?? "rung \(w.to)"
            return "switch to \(name) by \(w.mechanism.rawValue)"
        }
        if let g = lastGiven, t - g <= 3 { return "reload" + (givenStart.map { " at msn \($0)" } ?? "") }
        if let f = lastFailure, t - f.t < 5 { return "origin: " + f.text }
        return "the player jumped ahead (no switch, reload or failure explains it)"
    }

    /// Applies a selection action (pin, automatic, caps) and returns the switch reason it implies, or nil for other actions.
    public mutating func select(_ action: Action) -> SwitchReason? {
        switch action {
        case .pin(let i): mode = .pinned(i)
        case .automatic: mode = .automatic
        case .capHeight(let h): caps.maxHeight = h
        case .capDown: caps.maxHeight = caps.heightDown(ladder)
        case .capUp: caps.maxHeight = caps.heightUp(ladder)
        case .capBitrate(let b): caps.maxBitrate = b
        case .bitrateDown: caps.maxBitrate = caps.bitrateDown(ladder)
        case .bitrateUp: caps.maxBitrate = caps.bitrateUp(ladder)
        case .switchMode(let m):
            manualSwitch = m
            return nil
        case .toggleSwitchMode:
            manualSwitch = manualSwitch == .immediate ? .smooth : .immediate
            return nil
        case .togglePause, .seekRelative, .seekTo, .quit, .toggleSync, .syncReference, .pinPathway, .nextPathway, .audio, .subtitles:
            return nil
        }
        switch action {
        case .pin, .automatic: return .manual
        default: return .cap
        }
    }

    // MARK: derived facts (pure functions of the state)

    /// The failure behind a stall starting at `t`: the last one the Loader saw within 30 s.
    public func recentFailure(at t: Double) -> String? {
        guard let f = lastFailure, t - f.t < 30 else { return nil }
        return "origin: " + f.text
    }

    /// The stall in progress, if any.
    public var currentStall: Stall? { stalls.last.flatMap { $0.end == nil ? $0 : nil } }

    /// The state for the status line.
    public var state: PlaybackState {
        if error != nil { return .error }
        if ended { return .ended }
        if !started { return .starting }
        // At the end of what it was given while the stream goes on, mpv pauses itself (keep-open): waiting, not a pause.
        // Held by hlstui while a switch moves it inside the new rung: waiting for data too.
        if sample.pausedForCache || currentStall != nil || eofSince != nil || sample.held || loadingSince != nil { return .buffering }
        if sample.paused { return .paused }
        if sample.restarting { return .restarting }
        return .playing
    }

    /// The media playlist the playhead is measured against.
    public var playingMedia: MediaPlaylist? {
        let ordered = [playingRung, loadedRung].compactMap { $0 }.compactMap { media[$0] }
        // The rungs' segments line up by MSN and PDT: when the rung that served the playhead's segment was last read before the
        // window moved past it, another rung's newer playlist that lists the segment measures it.
        if let p = playhead,
            let m = ordered.first(where: { $0.lists(p.msn) })
                ?? media.keys.sorted().compactMap({ media[$0] }).first(where: { $0.lists(p.msn) })
        {
            return m
        }
        return ordered.first ?? media.values.first
    }

    /// Where the playhead is, by segment.
    public var playhead: StreamPoint? {
        if playerLoading, let p = loadingPoint { return p }
        return sample.timePos.flatMap(locate)
    }

    /// The segment and offset of raw media time `t`.
    public func locate(_ t: Double) -> StreamPoint? {
        guard let m = media[loadedRung ?? 0] ?? media.values.first else { return nil }
        return clock.locate(t, in: m)
    }

    /// The rung whose bytes are on screen: the rung that served the segment at the playhead (measured), else the rung loaded.
    public var playingRung: Int? {
        guard let t = sample.timePos, let m = loadedRung.flatMap({ media[$0] }) ?? media.values.first, let p = clock.locate(t, in: m) else {
            return loadedRung
        }
        return segmentRung[p.msn] ?? loadedRung
    }

    /// Seconds from the start of the playlist window to the playhead (negative when its segment has left the window).
    public var position: Double? {
        guard let p = playhead, let m = playingMedia else { return nil }
        if p.msn < m.mediaSequence {
            let before = (p.msn..<m.mediaSequence).map { seen[$0]?.duration }
            guard before.allSatisfy({ $0 != nil }) else { return nil }
            return p.offset - before.reduce(0) { $0 + ($1 ?? 0) }
        }
        return MediaClock.position(p, in: m, starts: Timeline.startTimes(m))
    }

    /// Records the duration and PDT of a playlist's segments (the newest 256 kept).
    mutating func remember(_ m: MediaPlaylist) {
        for seg in m.segments {
            seen[seg.mediaSequence] = SegmentFacts(
                duration: seg.duration, pdt: seg.effectiveProgramDateTime, discontinuity: seg.discontinuity)
        }
        if seen.count > 256 { for k in seen.keys.sorted().prefix(seen.count - 256) { seen[k] = nil } }
    }

    /// The window's length (VOD: the duration).
    public var windowDuration: Double? { playingMedia?.totalDuration }

    /// Wall-clock time of the frame at the playhead.
    public var playheadPDT: DateTime? { playhead.flatMap(programDateTime) }

    /// Wall-clock time of `p`: from the playlist that lists its segment, else from what an earlier playlist said of it (a held
    /// or buffered playhead can be behind the live window).
    public func programDateTime(_ p: StreamPoint) -> DateTime? {
        if let m = playingMedia, m.lists(p.msn) { return MediaClock.programDateTime(p, in: m) }
        return seen[p.msn]?.pdt.map { $0.adding(seconds: p.offset) }
    }

    /// Live: seconds between the playhead and the end of the newest segment.
    public var liveLatency: Double? {
        guard let m = playingMedia, m.isLive, let pos = position else { return nil }
        // The edge keeps moving after a playlist showed it (hls.js adds the playlist's age); a playlist that stops growing is
        // stuck, so at most 1.5 target durations are added. With PDT the edge hlstui read itself counts even when the player's
        // window is older (a full cache, or a playlist the Loader ended before a break).
        let edge = loadedRung.flatMap { edgeSeen[$0] }
        let age = edge.map { min(max(0, now - $0.at), 1.5 * Double(m.targetDuration ?? 2)) } ?? 0
        if let end = edge?.end, let here = playheadPDT { return end.seconds(since: here) + age }
        return m.totalDuration - pos + age
    }

    /// Glass-to-glass latency: the wall clock minus the EXT-X-PROGRAM-DATE-TIME of the frame at the playhead (RFC 8216bis
    /// §4.4.4.6), on a live stream with PDT; it includes the encoder's and the origin's delay, unlike `liveLatency`. A VOD's
    /// PDT is when it was recorded, not a latency: nil.
    public var pdtLatency: Double? {
        guard playingMedia?.isLive == true, let wall = sample.wall, let here = playheadPDT else { return nil }
        return wall.seconds(since: here)
    }

    /// Where the media the player holds ahead of the playhead ends, in playlist-window seconds: the end of the run of
    /// segments delivered to it whole from the playhead's segment on (the Loader saw them go out), or — before any is known —
    /// the playhead plus mpv's `cache-end` − `time-pos` when both lie in the same timestamp run. Nil when neither is known.
    /// mpv's seekable ranges are not used for it: on live streams they stop moving, and a timestamp reset splits them
    /// (DECISIONS.md, the buffer bar).
    public var bufferedEnd: Double? {
        guard let m = playingMedia, let t = sample.timePos, let p = clock.locate(t, in: m) else { return nil }
        let starts = Timeline.startTimes(m)
        guard let here = position else { return nil }
        var last: Int?
        var msn = p.msn
        while delivered[msn] != nil {
            last = msn
            msn += 1
        }
        if let last {
            let dur = m.segments[safe: last - m.mediaSequence]?.duration ?? Double(m.targetDuration ?? 2)
            if let end = MediaClock.position(StreamPoint(msn: last, offset: dur), in: m, starts: starts), end >= here { return end }
        }
        if let ce = sample.cacheEnd, ce >= t, ce - t < 3600 { return here + (ce - t) }
        return nil
    }

    /// Seconds of media the player holds ahead of the playhead (see `bufferedEnd`); nil when that is not known.
    public var bufferedAhead: Double? {
        guard let end = bufferedEnd, let here = position else { return nil }
        return max(0, end - here)
    }

    /// What the player holds, in playlist-window seconds: the range around the playhead (from the start of mpv's seekable
    /// range holding it, where that maps into the window, to `bufferedEnd`), and mpv's other seekable ranges that map whole.
    public var bufferedRanges: [TimeRange] {
        guard let m = playingMedia else { return [] }
        let starts = Timeline.startTimes(m)
        let map = { (x: Double) in self.clock.locate(x, in: m).flatMap { MediaClock.position($0, in: m, starts: starts) } }
        var out: [TimeRange] = []
        var main: TimeRange?
        // A range whose end lies before its start crosses a timestamp reset: it holds everything from its start on.
        let holds = { (r: TimeRange, t: Double) in r.start - 0.05 <= t && (t <= r.end + 0.05 || r.end < r.start) }
        if let t = sample.timePos, let here = position, let end = bufferedEnd {
            let holding = sample.seekableRanges.first { holds($0, t) }
            let back =
                holding.flatMap { r -> Double? in
                    if let a = map(r.start) { return a <= here ? a : nil }
                    // What played before the live window slid on is still in the cache: buffered from the window's start.
                    if let p = clock.locate(r.start, in: m), p.msn < m.mediaSequence { return 0 }
                    return nil
                } ?? here
            if end > back { main = TimeRange(start: back, end: end) }
        }
        for r in sample.seekableRanges {
            guard let t = sample.timePos, !holds(r, t) else { continue }
            guard let a = map(r.start), let b = map(r.end), b > a else { continue }
            if let mr = main, a < mr.end && b > mr.start { continue }
            out.append(TimeRange(start: a, end: b))
        }
        if let main { out.append(main) }
        return out.sorted { $0.start < $1.start }
    }

    /// The rung the controllers want now.
    public var targetRung: Int? {
        VariantPolicy.target(ladder, mode: mode, caps: caps, throughput: throughput.estimate, candidates: abrCandidates)
    }

    /// Total seconds stalled so far (an open stall counts up to now).
    public var stalledSeconds: Double { earlierStalls.seconds + stalls.reduce(0) { $0 + (($1.end ?? now) - $1.start) } }

    /// The highest bitrate a segment of the stream has had so far (its bytes over its duration): what the player's cache
    /// budget is sized from when the stream states no BANDWIDTH (a media playlist opened alone).
    public internal(set) var observedPeakBitsPerSecond: Int?

    /// The peak bitrate the player's memory budget is sized from: the ladder's BANDWIDTH, else the segments measured.
    public var budgetBitsPerSecond: Int? { ladder.peakBandwidth ?? observedPeakBitsPerSecond }

    mutating func notePeak(bytes: Int, msn: Int) {
        let duration = seen[msn]?.duration ?? playingMedia?.segments.first { $0.mediaSequence == msn }?.duration
        guard let duration, duration > 0.1, bytes > 0 else { return }
        let bps = Int(Double(bytes) * 8 / duration)
        if bps > observedPeakBitsPerSecond ?? 0 { observedPeakBitsPerSecond = bps }
    }

    /// Stalls so far, the trimmed ones included.
    public var stallCount: Int { earlierStalls.count + stalls.count }

    /// Marks a GAP as reported; false when it already was. The marks far behind the newest are forgotten.
    mutating func reportGap(rung: Int, msn: Int) -> Bool {
        guard gapsReported.insert(GapMark(rung: rung, msn: msn)).inserted else { return false }
        if gapsReported.count > 2 * Self.segmentMemory, let newest = gapsReported.map(\.msn).max() {
            gapsReported = gapsReported.filter { $0.msn > newest - Self.segmentMemory }
        }
        return true
    }

    /// Marks a break (a GAP run's first MSN, an fMP4 discontinuity's negated MSN) as crossed; false when it already was. The
    /// marks far behind the newest are forgotten.
    mutating func cross(_ mark: Int) -> Bool {
        guard crossed.insert(mark).inserted else { return false }
        if crossed.count > 2 * Self.segmentMemory, let newest = crossed.map(abs).max() {
            crossed = crossed.filter { abs($0) > newest - Self.segmentMemory }
        }
        return true
    }

    /// Drops the entries of a per-MSN table more than `segmentMemory` segments behind `newest`, once it holds twice that many
    /// (so trimming costs little per segment).
    static func trim<V>(_ table: inout [Int: V], newest: Int) {
        guard table.count > 2 * segmentMemory else { return }
        table = table.filter { $0.key > newest - segmentMemory }
    }
}

/// What a pane asked for over the whole session (its lists keep only the newest).
public struct RequestTotals: Sendable, Equatable {
    public var count = 0
    public var segments = 0
    public var bytes = 0
    /// Distinct key URIs (a rotation's next key counts once).
    public var keys = 0
    public var switches = 0
}

/// Stalls trimmed from a pane's list: how many, and how long they lasted together.
public struct StallTotals: Sendable, Equatable {
    public var count = 0
    public var seconds = 0.0
}

/// A GAP segment already reported, by the rung that listed it and its MSN.
struct GapMark: Hashable, Sendable {
    var rung: Int
    var msn: Int
}

extension MediaPlaylist {
    /// True when segment `msn` is in this window.
    public func lists(_ msn: Int) -> Bool { msn >= mediaSequence && msn < mediaSequence + segments.count }
}

/// What LL-HLS delivery directives did over a session (RFC 8216bis §6.2.5): the last reload's hold, and the bytes delta
/// updates saved against the whole playlists they stand for.
public struct LowLatencyReloads: Sendable, Equatable {
    /// The latest reload: how long the origin held it, whether it blocked, the stream's part target.
    public struct Last: Sendable, Equatable {
        public var hold: Double
        public var blocked: Bool
        public var partTarget: Double?
    }

    public private(set) var last: Last?
    public private(set) var count = 0
    public private(set) var received = 0
    public private(set) var whole = 0
    /// The holds of the newest blocking reloads (seconds), oldest first.
    public private(set) var holds: [Double] = []
    /// Blocking reloads the origin held longer than three target durations (RFC 8216bis §6.2.5.2).
    public private(set) var longHolds = 0
    /// Parts asked for from a preload hint: answered, and not (§4.4.5.3); how long the server held the newest answered ones.
    public private(set) var hintHits = 0
    public private(set) var hintMisses = 0
    public private(set) var hintWaits: [Double] = []
    /// The newest playlist's furthest-behind rendition report, in parts.
    public private(set) var reportLag: Int?
    static let holdsKept = 64

    public init() {}

    mutating func add(_ r: ReloadEvent) {
        count += 1
        received += r.bytes
        whole += r.wholeBytes
        if r.reportLag != nil { reportLag = r.reportLag }
        // A reload for the part just read from its hint is answered at once: the hinted request carried the wait.
        guard !r.afterHint else { return }
        last = Last(hold: r.holdSeconds, blocked: r.blockedFor != nil, partTarget: r.partTarget)
        guard r.blockedFor != nil else { return }
        holds.append(r.holdSeconds)
        if holds.count > Self.holdsKept { holds.removeFirst(holds.count - Self.holdsKept) }
        if let td = r.targetDuration, r.holdSeconds > 3 * Double(td) { longHolds += 1 }
    }

    /// A part request: a hinted one says whether the hint came true.
    mutating func part(_ r: RequestEvent) {
        guard r.hint else { return }
        guard (200..<300).contains(r.status) else { return hintMisses += 1 }
        hintHits += 1
        if let ttfb = r.ttfbMs {
            hintWaits.append(ttfb / 1000)
            if hintWaits.count > Self.holdsKept { hintWaits.removeFirst(hintWaits.count - Self.holdsKept) }
        }
    }

    /// The share of playlist bytes delta updates saved, 0…1.
    public var savedShare: Double { whole > 0 ? Double(whole - received) / Double(whole) : 0 }
}
