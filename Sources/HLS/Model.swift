/// A source line number that never takes part in equality, so a rewritten playlist compares equal to its source.
public struct SourceLine: Sendable, Hashable, CustomStringConvertible {
    public var number: Int
    public init(_ number: Int) { self.number = number }
    public static func == (_: SourceLine, _: SourceLine) -> Bool { true }
    public func hash(into _: inout Hasher) {}
    public var description: String { String(number) }
}

/// A byte range of a resource, RFC 8216bis §4.4.4.2; `offset` is resolved even where the tag left it out.
public struct ByteRange: Sendable, Hashable {
    public var length: Int
    public var offset: Int
    public init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
    }
}

/// EXT-X-START, RFC 8216bis §4.4.2.2.
public struct StartPoint: Sendable, Hashable {
    public var timeOffset: Double
    public var precise: Bool
    public var extra: [Attribute] = []

    public init(timeOffset: Double, precise: Bool, extra: [Attribute] = []) {
        self.timeOffset = timeOffset
        self.precise = precise
        self.extra = extra
    }
}

/// EXT-X-DEFINE, RFC 8216bis §4.4.2.3: exactly one of `value` (with NAME), IMPORT or QUERYPARAM.
public struct Define: Sendable, Hashable {
    public enum Source: Sendable, Hashable { case value(String), imported, queryParameter }
    public var name: String
    public var source: Source
    /// The value the variable took (for IMPORT and QUERYPARAM, from the context).
    public var resolved: String?
    public var line: SourceLine

    public static func == (a: Define, b: Define) -> Bool { a.name == b.name && a.source == b.source }
    public func hash(into h: inout Hasher) { h.combine(name) }

    public init(name: String, source: Source, resolved: String? = nil, line: SourceLine = SourceLine(0)) {
        self.name = name
        self.source = source
        self.resolved = resolved
        self.line = line
    }
}

/// METHOD of EXT-X-KEY, RFC 8216bis §4.4.4.4: the only values a playlist may hold.
public enum KeyMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case none = "NONE"
    case aes128 = "AES-128"
    case sampleAES = "SAMPLE-AES"
    case sampleAESCTR = "SAMPLE-AES-CTR"
    case sampleAESCENC = "SAMPLE-AES-CENC"

    /// As the playlist spells it.
    public var description: String { rawValue }
}

/// EXT-X-KEY or EXT-X-SESSION-KEY, RFC 8216bis §4.4.4.4 and §4.4.6.5.
public struct Key: Sendable, Hashable {
    public var method: KeyMethod
    public var uri: String?
    public var iv: String?
    public var keyFormat: String?
    public var keyFormatVersions: String?
    public var extra: [Attribute] = []
    public var line: SourceLine = SourceLine(0)

    public init(method: KeyMethod, uri: String? = nil, iv: String? = nil, keyFormat: String? = nil, keyFormatVersions: String? = nil) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }

    /// KEYFORMAT with its default, `identity`.
    public var effectiveKeyFormat: String { keyFormat ?? "identity" }

    /// The DRM system this key belongs to, from KEYFORMAT and METHOD.
    public var system: KeySystem { KeySystem(keyFormat: effectiveKeyFormat, method: method, uri: uri) }
}

/// The key systems hlstui tells apart.
public enum KeySystem: String, Sendable, Hashable {
    case clear = "none"
    case identity
    case fairPlay = "FairPlay"
    case widevine = "Widevine"
    case playReady = "PlayReady"
    case clearKey = "ClearKey"
    case unknown

    public init(keyFormat: String, method: KeyMethod, uri: String?) {
        if method == .none { self = .clear; return }
        switch keyFormat.lowercased() {
        case "identity": self = (uri?.hasPrefix("skd://") ?? false) ? .fairPlay : .identity
        case "com.apple.streamingkeydelivery": self = .fairPlay
        case "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed", "com.widevine", "com.widevine.alpha": self = .widevine
        case "com.microsoft.playready", "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": self = .playReady
        case "org.w3.clearkey", "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e", "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b":
            self = .clearKey
        default: self = .unknown
        }
    }

    /// True for the KEYFORMATs hlstui recognises by name.
    public var isKnown: Bool { self != .unknown }
}

/// EXT-X-MAP, RFC 8216bis §4.4.4.5.
public struct MapSection: Sendable, Hashable {
    public var uri: String
    public var byteRange: ByteRange?
    public var extra: [Attribute] = []
    /// The keys in effect where the tag appears: an AES-128 one encrypts the section itself (§4.4.4.4).
    public var keys: [Key] = []

    public init(uri: String, byteRange: ByteRange? = nil, extra: [Attribute] = [], keys: [Key] = []) {
        self.uri = uri
        self.byteRange = byteRange
        self.extra = extra
        self.keys = keys
    }
}

/// EXT-X-PART, RFC 8216bis §4.4.4.9.
public struct Part: Sendable, Hashable {
    public var uri: String
    public var duration: Double
    public var independent: Bool
    public var byteRange: ByteRange?
    public var gap: Bool
    public var extra: [Attribute] = []
    public var line: SourceLine

    public init(
        uri: String, duration: Double, independent: Bool, byteRange: ByteRange? = nil, gap: Bool, extra: [Attribute] = [],
        line: SourceLine = SourceLine(0)
    ) {
        self.uri = uri
        self.duration = duration
        self.independent = independent
        self.byteRange = byteRange
        self.gap = gap
        self.extra = extra
        self.line = line
    }
}

/// A media segment with everything that applies to it, RFC 8216bis §3 and §4.4.4.
public struct Segment: Sendable, Hashable {
    public var uri: String
    public var duration: Double
    public var title: String?
    public var byteRange: ByteRange?
    /// True when EXT-X-BYTERANGE left out the offset (the writer keeps it that way).
    public var byteRangeOffsetImplied: Bool = false
    public var discontinuity: Bool
    /// Every key that applies (one per KEYFORMAT); empty when clear.
    public var keys: [Key]
    public var map: MapSection?
    /// The EXT-X-PROGRAM-DATE-TIME tag on this segment, if it has one.
    public var programDateTime: DateTime?
    /// The PDT this segment starts at, from the nearest tag in the same discontinuity span (RFC 8216bis §4.4.4.6).
    public var effectiveProgramDateTime: DateTime?
    public var gap: Bool
    /// The EXT-X-BITRATE that applies (kbps), RFC 8216bis §4.4.4.8.
    public var bitrate: Int?
    /// True when an EXT-X-BITRATE tag stands right before this segment.
    public var bitrateTagged: Bool = false
    public var parts: [Part]
    public var mediaSequence: Int
    public var discontinuitySequence: Int
    /// Tags this library does not model and comments, in order, written before the segment's own tags.
    public var leadingLines: [String] = []
    /// Where each of `leadingLines` stands.
    public var leadingLineNumbers: [SourceLine] = []
    /// The URI line.
    public var line: SourceLine
    /// The EXTINF line.
    public var durationLine: SourceLine = SourceLine(0)
    /// The EXT-X-PROGRAM-DATE-TIME line, when tagged.
    public var programDateTimeLine: SourceLine = SourceLine(0)

    public init(uri: String, duration: Double, mediaSequence: Int = 0) {
        self.uri = uri
        self.duration = duration
        title = nil
        byteRange = nil
        discontinuity = false
        keys = []
        map = nil
        programDateTime = nil
        effectiveProgramDateTime = nil
        gap = false
        bitrate = nil
        parts = []
        self.mediaSequence = mediaSequence
        discontinuitySequence = 0
        line = SourceLine(0)
    }
}

/// EXT-X-DATERANGE, RFC 8216bis §4.4.5.1.
public struct DateRange: Sendable, Hashable {
    public var id: String
    public var classID: String?
    public var startDate: DateTime?
    public var startDateText: String?
    public var cue: String?
    public var endDate: DateTime?
    public var endDateText: String?
    public var duration: Double?
    public var plannedDuration: Double?
    public var endOnNext: Bool
    /// SCTE35-*, X-* and other attributes, as written.
    public var extra: [Attribute]
    /// Index of the segment this tag stood before (segments.count when after the last one).
    public var beforeSegment: Int
    public var line: SourceLine

    public init(
        id: String, classID: String? = nil, startDate: DateTime? = nil, startDateText: String? = nil, cue: String? = nil,
        endDate: DateTime? = nil, endDateText: String? = nil, duration: Double? = nil, plannedDuration: Double? = nil, endOnNext: Bool,
        extra: [Attribute], beforeSegment: Int, line: SourceLine = SourceLine(0)
    ) {
        self.id = id
        self.classID = classID
        self.startDate = startDate
        self.startDateText = startDateText
        self.cue = cue
        self.endDate = endDate
        self.endDateText = endDateText
        self.duration = duration
        self.plannedDuration = plannedDuration
        self.endOnNext = endOnNext
        self.extra = extra
        self.beforeSegment = beforeSegment
        self.line = line
    }
}

/// EXT-X-SERVER-CONTROL, RFC 8216bis §4.4.3.8.
public struct ServerControl: Sendable, Hashable {
    public var canSkipUntil: Double?
    public var canSkipDateRanges: Bool
    public var holdBack: Double?
    public var partHoldBack: Double?
    public var canBlockReload: Bool
    public var extra: [Attribute] = []

    public init(
        canSkipUntil: Double? = nil, canSkipDateRanges: Bool, holdBack: Double? = nil, partHoldBack: Double? = nil, canBlockReload: Bool,
        extra: [Attribute] = []
    ) {
        self.canSkipUntil = canSkipUntil
        self.canSkipDateRanges = canSkipDateRanges
        self.holdBack = holdBack
        self.partHoldBack = partHoldBack
        self.canBlockReload = canBlockReload
        self.extra = extra
    }
}

/// EXT-X-SKIP, RFC 8216bis §4.4.5.2.
public struct Skip: Sendable, Hashable {
    public var skippedSegments: Int
    public var recentlyRemovedDateRanges: [String]
    public var extra: [Attribute] = []

    public init(skippedSegments: Int, recentlyRemovedDateRanges: [String], extra: [Attribute] = []) {
        self.skippedSegments = skippedSegments
        self.recentlyRemovedDateRanges = recentlyRemovedDateRanges
        self.extra = extra
    }
}

/// EXT-X-PRELOAD-HINT, RFC 8216bis §4.4.5.3.
public struct PreloadHint: Sendable, Hashable {
    public var type: String
    public var uri: String
    public var byteRangeStart: Int?
    public var byteRangeLength: Int?
    public var extra: [Attribute] = []

    public init(type: String, uri: String, byteRangeStart: Int? = nil, byteRangeLength: Int? = nil, extra: [Attribute] = []) {
        self.type = type
        self.uri = uri
        self.byteRangeStart = byteRangeStart
        self.byteRangeLength = byteRangeLength
        self.extra = extra
    }
}

/// EXT-X-RENDITION-REPORT, RFC 8216bis §4.4.5.4.
public struct RenditionReport: Sendable, Hashable {
    public var uri: String?
    public var lastMSN: Int?
    public var lastPart: Int?
    public var extra: [Attribute] = []

    public init(uri: String? = nil, lastMSN: Int? = nil, lastPart: Int? = nil, extra: [Attribute] = []) {
        self.uri = uri
        self.lastMSN = lastMSN
        self.lastPart = lastPart
        self.extra = extra
    }
}

/// A media playlist, RFC 8216bis §4.4.3–§4.4.5.
public struct MediaPlaylist: Sendable, Hashable {
    public var targetDuration: Int?
    public var mediaSequence: Int = 0
    public var mediaSequenceTagged: Bool = false
    public var discontinuitySequence: Int = 0
    public var discontinuitySequenceTagged: Bool = false
    public var playlistType: String?
    public var endList: Bool = false
    public var iFramesOnly: Bool = false
    public var partTarget: Double?
    public var serverControl: ServerControl?
    public var skip: Skip?
    public var segments: [Segment] = []
    public var dateRanges: [DateRange] = []
    public var preloadHints: [PreloadHint] = []
    public var renditionReports: [RenditionReport] = []
    /// LL-HLS parts published after the last complete segment.
    public var trailingParts: [Part] = []
    /// Keys in force after EXT-X-KEY tags that follow the last segment (for trailing parts and hints); nil when none follow.
    public var trailingKeys: [Key]?
    /// The map set by an EXT-X-MAP after the last segment; nil when none follows.
    public var trailingMap: MapSection?
    public var trailingDiscontinuity: Bool = false
    /// An EXT-X-PROGRAM-DATE-TIME after the last segment: the date of the segment in progress (RFC 8216bis §4.4.4.6).
    public var trailingProgramDateTime: DateTime?
    /// Unmodelled lines after the last segment.
    public var trailingLines: [String] = []
    /// Where each of `trailingLines` stands.
    public var trailingLineNumbers: [SourceLine] = []

    public init() {}

    /// True when the server may still add segments (no ENDLIST, not VOD), RFC 8216bis §6.2.1.
    public var isLive: Bool { !endList && playlistType != "VOD" }

    /// True when the segments are fragmented MP4 (an EXT-X-MAP, RFC 8216bis §4.4.4.5, or fMP4 segment names), not MPEG-TS.
    public var isFragmentedMP4: Bool {
        trailingMap != nil || segments.contains { $0.map != nil }
            || segments.prefix(3).contains { s in
                let path = s.uri.lowercased().split(separator: "?").first ?? ""
                return ["m4s", "mp4", "cmfv", "cmfa", "m4a"].contains { path.hasSuffix("." + $0) }
            }
    }

    /// Sum of segment durations in seconds.
    public var totalDuration: Double { segments.reduce(0) { $0 + $1.duration } }
}

/// EXT-X-STREAM-INF (with its URI) or EXT-X-I-FRAME-STREAM-INF, RFC 8216bis §4.4.6.2–§4.4.6.3.
public struct Variant: Sendable, Hashable {
    public var uri: String
    public var bandwidth: Int?
    public var averageBandwidth: Int?
    public var score: Double?
    public var codecs: String?
    public var supplementalCodecs: String?
    public var resolution: Resolution?
    public var frameRate: Double?
    public var hdcpLevel: String?
    public var allowedCPC: String?
    public var videoRange: String?
    public var reqVideoLayout: String?
    public var stableVariantID: String?
    public var audio: String?
    public var video: String?
    public var subtitles: String?
    /// CLOSED-CAPTIONS: a group id, or "NONE" (written unquoted).
    public var closedCaptions: String?
    public var pathwayID: String?
    public var programID: Int?
    public var extra: [Attribute] = []
    public var leadingLines: [String] = []
    public var line: SourceLine

    public init(uri: String, bandwidth: Int?) {
        self.uri = uri
        self.bandwidth = bandwidth
        line = SourceLine(0)
    }

    /// The codec list split on commas and trimmed.
    public var codecList: [String] {
        guard let codecs else { return [] }
        var out: [String] = []
        var current: [UInt8] = []
        func flush() {
            var a = 0, e = current.count
            while a < e && (current[a] == 0x20 || current[a] == 0x09) { a += 1 }
            while e > a && (current[e - 1] == 0x20 || current[e - 1] == 0x09) { e -= 1 }
            if a < e { out.append(String(decoding: current[a..<e], as: UTF8.self)) }
            current.removeAll(keepingCapacity: true)
        }
        for b in codecs.utf8 {
            if b == 0x2C { flush() } else { current.append(b) }
        }
        flush()
        return out
    }

}

/// EXT-X-MEDIA, RFC 8216bis §4.4.6.1.
public struct Rendition: Sendable, Hashable {
    public var type: String
    public var uri: String?
    public var groupID: String
    public var language: String?
    public var assocLanguage: String?
    public var name: String
    public var stableRenditionID: String?
    public var isDefault: Bool
    public var autoselect: Bool
    public var forced: Bool
    public var instreamID: String?
    public var bitDepth: Int?
    public var sampleRate: Int?
    public var characteristics: String?
    public var channels: String?
    public var extra: [Attribute] = []
    public var line: SourceLine

    public init(
        type: String, uri: String? = nil, groupID: String, language: String? = nil, assocLanguage: String? = nil, name: String,
        stableRenditionID: String? = nil, isDefault: Bool, autoselect: Bool, forced: Bool, instreamID: String? = nil, bitDepth: Int? = nil,
        sampleRate: Int? = nil, characteristics: String? = nil, channels: String? = nil, extra: [Attribute] = [],
        line: SourceLine = SourceLine(0)
    ) {
        self.type = type
        self.uri = uri
        self.groupID = groupID
        self.language = language
        self.assocLanguage = assocLanguage
        self.name = name
        self.stableRenditionID = stableRenditionID
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.instreamID = instreamID
        self.bitDepth = bitDepth
        self.sampleRate = sampleRate
        self.characteristics = characteristics
        self.channels = channels
        self.extra = extra
        self.line = line
    }
}

/// EXT-X-SESSION-DATA, RFC 8216bis §4.4.6.4.
public struct SessionData: Sendable, Hashable {
    public var dataID: String
    public var value: String?
    public var uri: String?
    public var format: String?
    public var language: String?
    public var extra: [Attribute] = []
    public var line: SourceLine

    public init(
        dataID: String, value: String? = nil, uri: String? = nil, format: String? = nil, language: String? = nil, extra: [Attribute] = [],
        line: SourceLine = SourceLine(0)
    ) {
        self.dataID = dataID
        self.value = value
        self.uri = uri
        self.format = format
        self.language = language
        self.extra = extra
        self.line = line
    }
}

/// EXT-X-CONTENT-STEERING, RFC 8216bis §4.4.6.6.
public struct ContentSteering: Sendable, Hashable {
    public var serverURI: String
    public var pathwayID: String?
    public var extra: [Attribute] = []

    public init(serverURI: String, pathwayID: String? = nil, extra: [Attribute] = []) {
        self.serverURI = serverURI
        self.pathwayID = pathwayID
        self.extra = extra
    }
}

/// A multivariant playlist, RFC 8216bis §4.4.6.
public struct MultivariantPlaylist: Sendable, Hashable {
    public var variants: [Variant] = []
    public var iFrameVariants: [Variant] = []
    public var renditions: [Rendition] = []
    public var sessionData: [SessionData] = []
    public var sessionKeys: [Key] = []
    public var contentSteering: ContentSteering?
    public var trailingLines: [String] = []
    public init() {}
}

/// A parsed playlist: the parts every playlist has, and either a multivariant or a media body.
public struct Playlist: Sendable, Hashable {
    public enum Body: Sendable, Hashable {
        case multivariant(MultivariantPlaylist)
        case media(MediaPlaylist)
    }

    public var version: Int?
    public var independentSegments: Bool = false
    public var start: StartPoint?
    public var defines: [Define] = []
    /// Unmodelled tags and comments before the first tag this library models.
    public var headerLines: [String] = []
    public var body: Body

    public init(body: Body) { self.body = body }

    public var media: MediaPlaylist? {
        if case .media(let m) = body { return m }
        return nil
    }

    public var multivariant: MultivariantPlaylist? {
        if case .multivariant(let m) = body { return m }
        return nil
    }

    public var isMultivariant: Bool { multivariant != nil }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
