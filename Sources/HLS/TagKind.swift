/// Every tag RFC 8216bis defines (§4.4), identified once by the lexer so the parser never compares names as strings.
public enum TagKind: UInt8, Sendable, CaseIterable {
    case extm3u, version, independentSegments, start, define
    case targetDuration, mediaSequence, discontinuitySequence, endList, playlistType, iFramesOnly, partInf, serverControl
    case extinf, byteRange, discontinuity, key, map, programDateTime, gap, bitrate, part
    case dateRange, skip, preloadHint, renditionReport
    case media, streamInf, iFrameStreamInf, sessionData, sessionKey, contentSteering
    case imageStreamInf
    /// Any other `#EXT…` tag.
    case other

    /// The tag's name without `#`.
    public var name: String {
        switch self {
        case .extm3u: "EXTM3U"
        case .version: "EXT-X-VERSION"
        case .independentSegments: "EXT-X-INDEPENDENT-SEGMENTS"
        case .start: "EXT-X-START"
        case .define: "EXT-X-DEFINE"
        case .targetDuration: "EXT-X-TARGETDURATION"
        case .mediaSequence: "EXT-X-MEDIA-SEQUENCE"
        case .discontinuitySequence: "EXT-X-DISCONTINUITY-SEQUENCE"
        case .endList: "EXT-X-ENDLIST"
        case .playlistType: "EXT-X-PLAYLIST-TYPE"
        case .iFramesOnly: "EXT-X-I-FRAMES-ONLY"
        case .partInf: "EXT-X-PART-INF"
        case .serverControl: "EXT-X-SERVER-CONTROL"
        case .extinf: "EXTINF"
        case .byteRange: "EXT-X-BYTERANGE"
        case .discontinuity: "EXT-X-DISCONTINUITY"
        case .key: "EXT-X-KEY"
        case .map: "EXT-X-MAP"
        case .programDateTime: "EXT-X-PROGRAM-DATE-TIME"
        case .gap: "EXT-X-GAP"
        case .bitrate: "EXT-X-BITRATE"
        case .part: "EXT-X-PART"
        case .dateRange: "EXT-X-DATERANGE"
        case .skip: "EXT-X-SKIP"
        case .preloadHint: "EXT-X-PRELOAD-HINT"
        case .renditionReport: "EXT-X-RENDITION-REPORT"
        case .media: "EXT-X-MEDIA"
        case .streamInf: "EXT-X-STREAM-INF"
        case .iFrameStreamInf: "EXT-X-I-FRAME-STREAM-INF"
        case .sessionData: "EXT-X-SESSION-DATA"
        case .sessionKey: "EXT-X-SESSION-KEY"
        case .contentSteering: "EXT-X-CONTENT-STEERING"
        case .imageStreamInf: "EXT-X-IMAGE-STREAM-INF"
        case .other: ""
        }
    }

    /// The RFC 8216bis section defining the tag.
    public var section: String {
        switch self {
        case .extm3u: "4.4.1.1"
        case .version: "4.4.1.2"
        case .independentSegments: "4.4.2.1"
        case .start: "4.4.2.2"
        case .define: "4.4.2.3"
        case .targetDuration: "4.4.3.1"
        case .mediaSequence: "4.4.3.2"
        case .discontinuitySequence: "4.4.3.3"
        case .endList: "4.4.3.4"
        case .playlistType: "4.4.3.5"
        case .iFramesOnly: "4.4.3.6"
        case .partInf: "4.4.3.7"
        case .serverControl: "4.4.3.8"
        case .extinf: "4.4.4.1"
        case .byteRange: "4.4.4.2"
        case .discontinuity: "4.4.4.3"
        case .key: "4.4.4.4"
        case .map: "4.4.4.5"
        case .programDateTime: "4.4.4.6"
        case .gap: "4.4.4.7"
        case .bitrate: "4.4.4.8"
        case .part: "4.4.4.9"
        case .dateRange: "4.4.5.1"
        case .skip: "4.4.5.2"
        case .preloadHint: "4.4.5.3"
        case .renditionReport: "4.4.5.4"
        case .media: "4.4.6.1"
        case .streamInf: "4.4.6.2"
        case .iFrameStreamInf: "4.4.6.3"
        case .sessionData: "4.4.6.4"
        case .sessionKey: "4.4.6.5"
        case .contentSteering: "4.4.6.6"
        case .imageStreamInf, .other: "4.4"
        }
    }

    /// The family of tags the RFC defines the tag in.
    public var family: TagFamily {
        switch self {
        case .extm3u, .version, .independentSegments, .start, .define: .basic
        case .targetDuration, .mediaSequence, .discontinuitySequence, .endList, .playlistType, .iFramesOnly, .partInf, .serverControl:
            .mediaPlaylist
        case .extinf, .byteRange, .discontinuity, .key, .map, .programDateTime, .gap, .bitrate, .part: .segment
        case .dateRange, .skip, .preloadHint, .renditionReport: .metadata
        case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering: .multivariant
        case .imageStreamInf, .other: .other
        }
    }

    /// True for tags only a multivariant playlist may hold (§4.4.6).
    public var isMultivariantOnly: Bool { rawValue >= TagKind.media.rawValue && rawValue <= TagKind.contentSteering.rawValue }

    /// True for tags only a media playlist may hold (§4.4.3–§4.4.5).
    public var isMediaOnly: Bool { rawValue >= TagKind.targetDuration.rawValue && rawValue <= TagKind.renditionReport.rawValue }

    /// Names grouped by length, for matching raw bytes.
    static let table: [[([UInt8], TagKind)]] = {
        var t = Array(repeating: [([UInt8], TagKind)](), count: 32)
        for k in TagKind.allCases where k != .other {
            let b = Array(k.name.utf8)
            t[b.count].append((b, k))
        }
        return t
    }()

    /// The kind of the tag named by `bytes` (without `#`).
    static func identify(_ bytes: UnsafeBufferPointer<UInt8>) -> TagKind {
        guard bytes.count < table.count else { return .other }
        for (name, kind) in table[bytes.count] where name.elementsEqual(bytes) { return kind }
        return .other
    }
}

/// The families of tags, as RFC 8216bis groups them.
public enum TagFamily: Sendable {
    /// §4.4.1 and §4.4.2: in any playlist.
    case basic
    /// §4.4.3.
    case mediaPlaylist
    /// §4.4.4: apply to the next media segment.
    case segment
    /// §4.4.5.
    case metadata
    /// §4.4.6.
    case multivariant
    /// Apple's image playlists, and any tag the RFC does not define.
    case other
}
