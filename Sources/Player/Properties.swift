import JSONValue
/// A libmpv property hlstui reads, with the type it is read as: the name and its decoding live here once.
public struct MPVProperty<Value: Sendable>: Sendable {
    public let name: String
    let format: MPVFormat
    let decode: @Sendable (MPVValue) -> Value?

    init(_ name: String, _ format: MPVFormat, _ decode: @escaping @Sendable (MPVValue) -> Value?) {
        self.name = name
        self.format = format
        self.decode = decode
    }
}

extension MPVProperty where Value == Double {
    /// The raw media timestamp of the frame on screen (`rebase-start-time=no`, docs/PLATFORM.md).
    public static var timePos: Self { .init("time-pos", .double) { $0.double } }
    /// The position of the audio heard now, advancing between video frames (the clock mpv presents frames against).
    public static var audioPts: Self { .init("audio-pts", .double) { $0.double } }
    /// Seconds the frame last queued for display is late against the audio clock when it is shown (mpv's own A/V measure).
    public static var avsync: Self { .init("avsync", .double) { $0.double } }
    public static var speed: Self { .init("speed", .double) { $0.double } }
}

extension MPVProperty where Value == Bool {
    public static var pause: Self { .init("pause", .flag) { $0.flag } }
    public static var pausedForCache: Self { .init("paused-for-cache", .flag) { $0.flag } }
    public static var coreIdle: Self { .init("core-idle", .flag) { $0.flag } }
    /// True from a seek until playback has restarted at its target (time-pos already reads the target meanwhile).
    public static var seeking: Self { .init("seeking", .flag) { $0.flag } }
    public static var eofReached: Self { .init("eof-reached", .flag) { $0.flag } }
}

extension MPVProperty where Value == Int {
    public static var videoWidth: Self { .init("video-params/w", .int) { $0.double.map { Int($0) } } }
    public static var videoHeight: Self { .init("video-params/h", .int) { $0.double.map { Int($0) } } }
    public static var frameDropCount: Self { .init("frame-drop-count", .int) { $0.double.map { Int($0) } } }
    public static var decoderFrameDropCount: Self { .init("decoder-frame-drop-count", .int) { $0.double.map { Int($0) } } }
}

extension MPVProperty where Value == String {
    /// The audio output libmpv actually opened.
    public static var currentAO: Self { .init("current-ao", .string) { $0.string } }
    /// The language tag of the audio track playing (FFmpeg gives a rendition's stream its LANGUAGE).
    public static var audioTrackLanguage: Self { .init("current-tracks/audio/lang", .string) { $0.string } }
}

extension MPVProperty where Value == String {
    /// The text of the subtitle shown (ASS tags removed): with the captions track chosen, the CEA-608 captions on screen.
    public static var subText: Self { .init("sub-text", .string) { $0.string } }
    /// The codec of the subtitle track chosen (`eia_608` for the captions in the video).
    public static var currentSubCodec: Self { .init("current-tracks/sub/codec", .string) { $0.string } }
}

extension MPVProperty where Value == Int {
    /// The channels of the audio mpv decodes (`audio-params/channel-count`): 6 for a 5.1 rendition.
    public static var audioChannelCount: Self { .init("audio-params/channel-count", .int) { $0.double.map { Int($0) } } }
}

extension MPVProperty where Value == DemuxerCacheState {
    public static var demuxerCacheState: Self { .init("demuxer-cache-state", .node) { DemuxerCacheState($0) } }
}

/// `demuxer-cache-state`, decoded in one place: what the demuxer holds, in `time-pos` seconds.
public struct DemuxerCacheState: Sendable, Equatable {
    public struct Range: Sendable, Equatable {
        public var start: Double
        public var end: Double
    }

    public var seekableRanges: [Range]
    public var cacheEnd: Double?
    public var underrun: Bool

    init?(_ v: MPVValue) {
        guard case .node(let n) = v else { return nil }
        seekableRanges = (n["seekable-ranges"].arrayValue ?? []).compactMap { r in
            guard let a = r["start"].doubleValue, let b = r["end"].doubleValue else { return nil }
            return Range(start: a, end: b)
        }
        cacheEnd = n["cache-end"].doubleValue
        underrun = n["underrun"].boolValue ?? false
    }
}

/// A property hlstui sets while playing, with its value; the option names live here once.
public enum MPVSetting: Sendable, Equatable {
    case pause(Bool)
    case speed(Double)
    /// `no` sends the next seek to the demuxer; `auto` is libmpv's default (docs/PLATFORM.md).
    case demuxerSeekableCache(Bool?)
    /// How far before the target a demuxer seek aims (docs/PLATFORM.md: a demuxer seek lands late).
    case hrSeekDemuxerOffset(Double)
    /// Options for FFmpeg's demuxer (`live_start_index`, `strict`).
    case demuxerLavfOptions(String)
    /// Seconds the demuxer reads ahead of the playhead without a cache (`demuxer-readahead-secs`) and with one (`cache-secs`).
    case readahead(Double)
    case cacheSeconds(Double)
    /// Bytes the demuxer may hold ahead of the playhead (`demuxer-max-bytes`) and behind it (`demuxer-max-back-bytes`).
    case demuxerMaxBytes(Int)
    case demuxerMaxBackBytes(Int)
    /// Whether mpv draws the subtitle track on its own video output (`sub-visibility`); `sub-text` reads it either way.
    case subtitleVisibility(Bool)

    var name: String {
        switch self {
        case .pause: return "pause"
        case .speed: return "speed"
        case .demuxerSeekableCache: return "demuxer-seekable-cache"
        case .hrSeekDemuxerOffset: return "hr-seek-demuxer-offset"
        case .demuxerLavfOptions: return "demuxer-lavf-o"
        case .readahead: return "demuxer-readahead-secs"
        case .cacheSeconds: return "cache-secs"
        case .demuxerMaxBytes: return "demuxer-max-bytes"
        case .demuxerMaxBackBytes: return "demuxer-max-back-bytes"
        case .subtitleVisibility: return "sub-visibility"
        }
    }

    var value: String {
        switch self {
        case .pause(let b): return b ? "yes" : "no"
        case .speed(let s): return String(s)
        case .demuxerSeekableCache(let b): return b.map { $0 ? "yes" : "no" } ?? "auto"
        case .hrSeekDemuxerOffset(let s): return String(s)
        case .demuxerLavfOptions(let o): return o
        case .readahead(let s), .cacheSeconds(let s): return String(s)
        case .demuxerMaxBytes(let b), .demuxerMaxBackBytes(let b): return String(b)
        case .subtitleVisibility(let b): return b ? "yes" : "no"
        }
    }
}

/// A command hlstui gives libmpv.
public enum MPVCommand: Sendable, Equatable {
    /// Replaces what plays with `url`.
    case loadfile(String)
    /// An exact seek by `seconds` from the playhead.
    case seekRelative(Double)
    /// An exact seek to media time `seconds`.
    case seekAbsolute(Double)

    var arguments: [String] {
        switch self {
        case .loadfile(let url): return ["loadfile", url, "replace"]
        case .seekRelative(let s): return ["seek", String(s), "relative+exact"]
        case .seekAbsolute(let s): return ["seek", String(s), "absolute+exact"]
        }
    }
}

/// Why libmpv ended a file (`mpv_end_file_reason`).
public enum MPVEndReason: String, Sendable {
    case eof, stop, quit, error, redirect, unknown
}
