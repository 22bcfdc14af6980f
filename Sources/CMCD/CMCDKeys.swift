/// Common Media Client Data (CTA-5004): the keys of version 1, with their types, units, headers and rules (docs/CMCD.md).

/// One of the four headers a key is sent in (CTA-5004, header transmission mode), by how often its value changes.
public enum CMCDShard: String, Sendable, CaseIterable, Equatable {
    /// Keys whose values vary with the object requested.
    case object = "CMCD-Object"
    /// Keys whose values vary with each request.
    case request = "CMCD-Request"
    /// Keys whose values are invariant over the session.
    case session = "CMCD-Session"
    /// Keys whose values do not vary with every request or object.
    case status = "CMCD-Status"
}

/// A key's value type (CTA-5004 serializes them as RFC 8941 items).
public enum CMCDType: String, Sendable, Equatable {
    case integer = "Integer"
    case decimal = "Decimal"
    case string = "String"
    case token = "Token"
    case boolean = "Boolean"
}

/// The object types of `ot` (CTA-5004): manifest, audio, video, muxed audio and video, init segment, caption or subtitle,
/// ISOBMFF timed text, key or licence, other.
public enum CMCDObjectType: String, Sendable, CaseIterable, Equatable {
    case manifest = "m"
    case audio = "a"
    case video = "v"
    case muxed = "av"
    case initSegment = "i"
    case caption = "c"
    case timedText = "tt"
    case key = "k"
    case other = "o"

    /// The types `bl` belongs with: media the buffer holds.
    public var holdsMedia: Bool { self == .audio || self == .video || self == .muxed }
}

/// The keys of CTA-5004 version 1.
public enum CMCDKey: String, Sendable, CaseIterable, Equatable {
    case br, bl, bs, cid, d, dl, mtp, nor, nrr, ot, pr, rtp, sf, sid, st, su, tb, v

    /// What the key says, in a few words.
    public var meaning: String {
        switch self {
        case .br: "encoded bitrate"
        case .bl: "buffer length"
        case .bs: "buffer starvation"
        case .cid: "content ID"
        case .d: "object duration"
        case .dl: "deadline"
        case .mtp: "measured throughput"
        case .nor: "next object request"
        case .nrr: "next range request"
        case .ot: "object type"
        case .pr: "playback rate"
        case .rtp: "requested maximum throughput"
        case .sf: "streaming format"
        case .sid: "session ID"
        case .st: "stream type"
        case .su: "startup"
        case .tb: "top bitrate"
        case .v: "CMCD version"
        }
    }

    public var type: CMCDType {
        switch self {
        case .br, .bl, .d, .dl, .mtp, .rtp, .tb, .v: .integer
        case .pr: .decimal
        case .cid, .nor, .nrr, .sid: .string
        case .ot, .sf, .st: .token
        case .bs, .su: .boolean
        }
    }

    /// The unit of an Integer key's value.
    public var unit: String? {
        switch self {
        case .br, .mtp, .rtp, .tb: "kbps"
        case .bl, .d, .dl: "ms"
        default: nil
        }
    }

    /// The header the key belongs in.
    public var shard: CMCDShard {
        switch self {
        case .br, .d, .ot, .tb: .object
        case .bl, .dl, .mtp, .nor, .nrr, .su: .request
        case .cid, .pr, .sf, .sid, .st, .v: .session
        case .bs, .rtp: .status
        }
    }

    /// The step an Integer value is rounded to: buffer length and deadline to the nearest 100 ms, measured and requested
    /// throughput to the nearest 100 kbps.
    public var rounding: Int? {
        switch self {
        case .bl, .dl, .mtp, .rtp: 100
        default: nil
        }
    }

    /// The tokens a Token key may take.
    public var tokens: [String]? {
        switch self {
        case .ot: CMCDObjectType.allCases.map(\.rawValue)
        case .sf: ["d", "h", "s", "o"]
        case .st: ["v", "l"]
        default: nil
        }
    }

    /// The longest value a String key may have.
    public var maxLength: Int? {
        switch self {
        case .cid, .sid: 64
        default: nil
        }
    }

    /// Keys version 2 of CTA-5004 adds: a player that says `v=2` may send them, and they are not called unknown.
    public static let version2: Set<String> = [
        "ab", "bg", "bsa", "bsd", "bsda", "cdn", "cmsdd", "cmsds", "e", "ec", "h", "lab", "lb", "ltc", "msd", "nr", "pb", "pt", "rc",
        "sn", "sta", "tab", "tbl", "tpb", "ts", "ttfb", "ttfbb", "ttlb", "url",
    ]
}
