/// What the receiver knows of the object a request asked for, to hold the CMCD against: its kind, duration and the ladder's
/// bitrates.
public struct CMCDContext: Sendable, Equatable {
    /// The object's type as the receiver knows it (a playlist, a video segment…); nil when not known.
    public var objectType: CMCDObjectType?
    /// The object's duration in seconds (a segment's EXTINF, a part's DURATION).
    public var duration: Double?
    /// The ladder's declared bitrates in bits/s: every BANDWIDTH and AVERAGE-BANDWIDTH.
    public var bitrates: [Int]
    /// Live or VOD, when known.
    public var live: Bool?

    public init(objectType: CMCDObjectType? = nil, duration: Double? = nil, bitrates: [Int] = [], live: Bool? = nil) {
        self.objectType = objectType
        self.duration = duration
        self.bitrates = bitrates
        self.live = live
    }
}

/// The rules of CTA-5004 held against one request's CMCD, alone and against what the receiver knows of the object: pure.
public enum CMCDCheck {
    /// Every finding for `read`: what could not be read, then each key's name, type, unit, rounding, token and header, then
    /// the values against `context`.
    public static func findings(_ read: CMCDRead, context: CMCDContext? = nil) -> [CMCDFinding] {
        var out = read.findings
        let data = read.data
        let version = data[.v]?.int ?? 1
        for key in data.keys {
            guard let value = data[key] else { continue }
            guard let k = CMCDKey(rawValue: key) else {
                if !key.contains("-") && !(version >= 2 && CMCDKey.version2.contains(key)) {
                    out.append(
                        CMCDFinding(
                            "unknown-key", .error, key: key,
                            "\(key) is no CTA-5004 key, and a custom key needs a hyphenated prefix (com.example-\(key))"))
                }
                continue
            }
            let type = data[.ot]?.text.flatMap(CMCDObjectType.init) ?? context?.objectType
            out += check(k, value, placement: read.placement[key], objectType: type)
        }
        for (place, keys) in read.written where keys != keys.sorted() {
            out.append(
                CMCDFinding(
                    "order", .info,
                    "\(place): keys not in alphabetical order (\(keys.joined(separator: ","))); CTA-5004 asks for it to narrow fingerprinting"
                ))
        }
        if let context { out += against(data, context) }
        return out
    }

    /// One key's value alone.
    static func check(_ k: CMCDKey, _ value: CMCDValue, placement: CMCDPlacement?, objectType: CMCDObjectType?) -> [CMCDFinding] {
        var out: [CMCDFinding] = []
        let name = k.rawValue
        // A Decimal where an Integer belongs, or an Integer where a Decimal does, is still a number; anything else is wrong.
        let typeOK = value.type == k.type || (k.type == .decimal && value.type == .integer)
        guard typeOK else {
            out.append(
                CMCDFinding(
                    "type", .error, key: name,
                    "\(name)=\(value): a \(value.type.rawValue) where CTA-5004 says \(k.type.rawValue)\(k.unit.map { " " + $0 } ?? "") (\(k.meaning))"
                ))
            return out
        }
        switch value {
        case .integer(let i):
            if i < 0 { out.append(CMCDFinding("range", .error, key: name, "\(name)=\(i): a \(k.meaning) cannot be negative")) }
            if let step = k.rounding, i % step != 0 {
                out.append(
                    CMCDFinding(
                        "rounding", .warning, key: name,
                        "\(name)=\(i): CTA-5004 rounds the \(k.meaning) to the nearest \(step) \(k.unit ?? "") (\(Int((Double(i) / Double(step)).rounded()) * step))"
                    ))
            }
            if k == .v && i == 1 { out.append(CMCDFinding("version-1", .info, key: name, "v=1 need not be sent: version 1 is assumed")) }
        case .decimal(let d):
            if d < 0 { out.append(CMCDFinding("range", .error, key: name, "\(name)=\(value): a \(k.meaning) cannot be negative")) }
            if k == .pr && d == 1 { out.append(CMCDFinding("rate-1", .info, key: name, "pr=1 need not be sent: real time is assumed")) }
        case .token(let t):
            if let allowed = k.tokens, !allowed.contains(t) {
                out.append(
                    CMCDFinding("token", .error, key: name, "\(name)=\(t): the \(k.meaning) is one of \(allowed.joined(separator: ", "))"))
            }
        case .string(let s):
            if let max = k.maxLength, s.count > max {
                out.append(CMCDFinding("length", .error, key: name, "\(name) is \(s.count) characters long; CTA-5004 allows \(max)"))
            }
            if k == .nrr && !validRange(s) {
                out.append(CMCDFinding("range-format", .error, key: name, "nrr=\"\(s)\": a next range is \"<start>-<end>\" in bytes"))
            }
            if k == .nor && (s.hasPrefix("http://") || s.hasPrefix("https://")) {
                out.append(
                    CMCDFinding(
                        "relative", .warning, key: name, "nor is an absolute URL; CTA-5004 sends the path relative to the object requested")
                )
            }
        case .boolean(let b):
            if !b {
                out.append(CMCDFinding("false", .warning, key: name, "\(name)=?0 sent: CTA-5004 sends a Boolean key only when it is true"))
            }
        }
        if case .header(let shard)? = placement, shard != k.shard {
            out.append(
                CMCDFinding(
                    "header", .warning, key: name, "\(name) (\(k.meaning)) sent in \(shard.rawValue); it belongs in \(k.shard.rawValue)"))
        }
        if k == .bl, let ot = objectType, !ot.holdsMedia {
            out.append(
                CMCDFinding(
                    "buffer-object", .warning, key: name,
                    "bl sent with ot=\(ot.rawValue): the buffer length goes with media requests (a, v, av)"))
        }
        return out
    }

    /// `<start>-<end>`, either side optional but not both, start ≤ end.
    static func validRange(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty) else { return false }
        let a = parts[0].isEmpty ? nil : Int(parts[0]), b = parts[1].isEmpty ? nil : Int(parts[1])
        if !parts[0].isEmpty && a == nil || !parts[1].isEmpty && b == nil { return false }
        if let a, let b, a > b { return false }
        return true
    }

    /// The values against what the receiver knows of the object.
    static func against(_ data: CMCDData, _ c: CMCDContext) -> [CMCDFinding] {
        var out: [CMCDFinding] = []
        if let ot = data[.ot]?.text.flatMap(CMCDObjectType.init), let known = c.objectType, !compatible(ot, known) {
            out.append(CMCDFinding("object-type", .error, key: "ot", "ot=\(ot.rawValue) but the object is \(describe(known))"))
        }
        if let d = data[.d]?.int, let seconds = c.duration {
            let ms = Int((seconds * 1000).rounded())
            // "Can be an approximation": a frame or 5 % either way is not called wrong.
            if abs(d - ms) > max(50, ms / 20) {
                out.append(CMCDFinding("duration", .warning, key: "d", "d=\(d) ms but the object lasts \(ms) ms"))
            }
        }
        let kbps = Set(c.bitrates.map { ($0 + 500) / 1000 })
        if !kbps.isEmpty {
            for key in [CMCDKey.br, .tb] {
                guard let v = data[key]?.int, !kbps.contains(where: { abs($0 - v) <= max(1, $0 / 100) }) else { continue }
                out.append(
                    CMCDFinding(
                        "bitrate", .warning, key: key.rawValue,
                        "\(key.rawValue)=\(v) kbps is no bitrate of the ladder (\(kbps.sorted().map(String.init).joined(separator: ", ")) kbps)"
                    ))
            }
        }
        if let br = data[.br]?.int, let tb = data[.tb]?.int, tb < br {
            out.append(
                CMCDFinding("top-bitrate", .warning, key: "tb", "tb=\(tb) kbps is below br=\(br) kbps: the top bitrate cannot be lower"))
        }
        if let st = data[.st]?.text, let live = c.live, (st == "l") != live {
            out.append(CMCDFinding("stream-type", .error, key: "st", "st=\(st) but the stream is \(live ? "live" : "VOD")"))
        }
        return out
    }

    /// Muxed media may be called video by a player that does not look inside; `o` fits anything.
    static func compatible(_ sent: CMCDObjectType, _ known: CMCDObjectType) -> Bool {
        if sent == known || sent == .other { return true }
        let media: Set<CMCDObjectType> = [.audio, .video, .muxed]
        if known == .muxed && media.contains(sent) { return true }
        if sent == .muxed && known == .video { return true }
        if known == .caption && sent == .timedText || known == .timedText && sent == .caption { return true }
        return false
    }

    static func describe(_ t: CMCDObjectType) -> String {
        switch t {
        case .manifest: "a playlist (m)"
        case .audio: "audio (a)"
        case .video: "video (v)"
        case .muxed: "muxed audio and video (av)"
        case .initSegment: "an init section (i)"
        case .caption: "subtitles (c)"
        case .timedText: "timed text (tt)"
        case .key: "a key (k)"
        case .other: "other (o)"
        }
    }
}

/// One player session's CMCD over time (by `sid`): the keys that must not change within it, and the buffer's story told by
/// `bl` and `bs` against the time between requests. A value, fed each request in order.
public struct CMCDSessionCheck: Sendable, Equatable {
    struct Last: Sendable, Equatable {
        var at: Double
        var bl: Int?
        var rate: Double
    }

    var last: Last?
    var invariant: [String: CMCDValue] = [:]

    public init() {}

    /// The findings `data`, sent at `at` seconds (any monotonic clock), adds to what came before.
    public mutating func observe(_ data: CMCDData, at t: Double) -> [CMCDFinding] {
        var out: [CMCDFinding] = []
        for key in [CMCDKey.sid, .cid, .sf, .st] {
            guard let v = data[key] else { continue }
            if let was = invariant[key.rawValue], was != v {
                out.append(
                    CMCDFinding(
                        "session-changed", .error, key: key.rawValue,
                        "\(key.rawValue) changed within the session (\(was) → \(v)): the \(key.meaning) is fixed for a session"))
            }
            invariant[key.rawValue] = v
        }
        let rate = data[.pr]?.double ?? 1
        let bl = data[.bl]?.int
        let media = data[.ot]?.text.flatMap(CMCDObjectType.init)?.holdsMedia ?? true
        // A seek or a recovery (`su`) empties the buffer by itself.
        if data[.bs]?.bool == true, data[.su] == nil, let last, let before = last.bl, last.rate > 0 {
            // The buffer held `before` ms at the last request: at the rate it played, it cannot have run dry sooner.
            let elapsed = (t - last.at) * 1000
            let drain = Double(before) / last.rate
            if elapsed + 200 < drain {
                out.append(
                    CMCDFinding(
                        "starvation", .warning, key: "bs",
                        "bs says the buffer ran dry since the last request, but bl was \(before) ms then and only \(Int(elapsed.rounded())) ms passed"
                    ))
            }
        }
        if media, bl != nil || data[.bs] != nil {
            last = Last(at: t, bl: bl, rate: rate)
        }
        return out
    }
}
