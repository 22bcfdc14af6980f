import JSONValue

/// One request the Loader served, with what it cost upstream (the truth behind the request log).
public struct RequestEvent: Sendable {
    public var kind: ResourceKind
    public var url: String
    public var rung: Int?
    public var msn: Int?
    /// Seconds since the Loader started.
    public var start: Double
    public var ttfbMs: Double?
    public var durationMs: Double
    public var bytes: Int
    public var status: Int
    /// Served without an upstream request (a GAP segment, a cached key or init section).
    public var local: Bool
    public var prefetch: Bool
    public var retries: Int
    public var error: String?
    /// First media timestamp in the segment's bytes (TS PES PTS / 90 kHz, or fMP4 tfdt / timescale), seconds.
    public var firstPTS: Double?

    public var json: JSONValue {
        .object([("kind", .string(kind.rawValue)), ("url", .string(url)), ("rung", .int(rung)), ("msn", .int(msn)), ("start", .double(start)),
                 ("ttfbMs", .double(ttfbMs)), ("durationMs", .double(durationMs)), ("bytes", .int(bytes)), ("status", .int(status)),
                 ("local", .bool(local)), ("prefetch", .bool(prefetch)), ("retries", .int(retries)), ("error", .string(error)),
                 ("firstPTS", .double(firstPTS))])
    }
}

/// One key the Loader fetched (or failed to), never with its bytes: a fingerprint names it.
public struct KeyEvent: Sendable {
    public var uri: String
    public var method: String
    public var keyFormat: String
    public var fingerprint: String?
    public var firstMSN: Int?
    public var lastMSN: Int?
    public var requested: Double
    public var latencyMs: Double
    public var prefetch: Bool
    public var repair: String?
    public var source: String
    public var error: String?

    public var json: JSONValue {
        .object([("uri", .string(uri)), ("method", .string(method)), ("keyFormat", .string(keyFormat)), ("fingerprint", .string(fingerprint)),
                 ("firstMsn", .int(firstMSN)), ("lastMsn", .int(lastMSN)), ("requested", .double(requested)), ("latencyMs", .double(latencyMs)),
                 ("prefetch", .bool(prefetch)), ("repair", .string(repair)), ("source", .string(source)), ("error", .string(error))])
    }
}

/// What the Loader tells the session.
public enum LoaderEvent: Sendable {
    case request(RequestEvent)
    case key(KeyEvent)
    /// A one-line diagnosis (wrong key, DRM the platform cannot play, upstream failure).
    case diagnostic(String)

    public var json: JSONValue {
        switch self {
        case .request(let r): return .object([("event", .string("request"))] + (r.json.objectFields))
        case .key(let k): return .object([("event", .string("key"))] + (k.json.objectFields))
        case .diagnostic(let s): return .object([("event", .string("error")), ("message", .string(s))])
        }
    }
}

extension JSONValue {
    var objectFields: [(String, JSONValue)] {
        if case .object(let f) = self { return f }
        return []
    }
}
