import CMCD
import HLS
import LoaderEvents

/// What libmpv reports about playback at one moment (raw values; time in `time-pos` scale).
public struct PlayerSample: Sendable, Equatable {
    public var timePos: Double?
    /// The CEA-608 captions the player decodes from the video now (its `sub-text` on the captions track), shown or not: how
    /// captions the playlist does not declare are found (docs/SUBTITLES.md, "Closed captions").
    public var captions: String?
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
    /// The wall clock when `audioPts` was read: the audio clock advances between frames, so this pair names the moment heard
    /// then to the microsecond, where `time-pos` moves a frame at a time (docs/SYNC.md, measuring).
    public var audioWall: DateTime?
    /// mpv's `avsync`: seconds the frame at `timePos` is shown late against the audio clock.
    public var avsync: Double?
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
    /// `audio-pts` at that sample, when the player plays audio: the clock the picture is shown against.
    var audio: Double? = nil
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
    /// The playhead reached a timed metadata item (`at`: the playhead's raw time when seen; docs/EVENTS.md).
    case metadata(TimedMetadataEvent, at: Double)
    /// One segment comes from another rung than the one loaded (a failover, a GAP filled, RFC 8216bis §4.4.4.7): the rung on
    /// screen changes for it, a switch with its own reason, reported and not recorded (the loaded rung stays).
    case servedFrom(VariantSwitch)
    /// An interstitial played in the pane: begun, its list read, an asset given, failed or ended, the primary resumed
    /// (docs/EVENTS.md, "Interstitials played").
    case interstitial(InterstitialFact)
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
    /// The stream's own URL could not be read (`error`: what the Loader said): failed, cause first.
    case openFailed(error: String)
    /// The run may wait no longer for the stream to open (`why`: what ended the wait): failed, naming what had not arrived.
    case openGivenUp(why: String)
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
