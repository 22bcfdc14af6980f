import CMCD
import HLS
import JSONValue
import MediaFormats

/// What a URI in a playlist points at, so the proxy can name it and treat it right.
public enum ResourceKind: String, Sendable {
    case multivariant, media, segment, initSection = "init", key, part
    /// A content steering manifest (docs/STEERING.md), read by hlstui, never served to the player.
    case steering
    /// A progressive file (MP4) the player reads by byte ranges, without a playlist.
    case file
    /// An interstitial's X-ASSET-LIST (RFC 8216bis Appendix D.2), read by hlstui, never served to the player.
    case assetList = "asset-list"
}

/// How a request ended.
public enum RequestOutcome: Sendable, Equatable {
    case ok
    /// A GAP segment, answered locally and never requested (RFC 8216bis §4.4.4.7).
    case gap
    /// The cause, in one line (an HTTP status, a transport error, a decryption check).
    case failed(String)

    /// `.failed(cause)` when there is a cause, `.ok` otherwise.
    public init(failure: String?) { self = failure.map(RequestOutcome.failed) ?? .ok }
}

/// How the disk cache (`--cache`) took part in a request.
public enum CacheOutcome: String, Sendable, Equatable {
    /// Served from the cache: no request went upstream.
    case hit
    /// Asked of the origin (and kept).
    case miss
    /// The cache held the start of a body cut off earlier; only the rest was asked for, with Range.
    case resumed
}

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
    public var outcome: RequestOutcome
    /// First media timestamp in the segment's bytes (TS PES PTS / 90 kHz, or fMP4 tfdt / timescale), seconds.
    public var firstPTS: Double?
    /// With `--cache`: hit, miss or resumed, and the bytes not asked of the origin.
    public var cache: CacheOutcome?
    public var savedBytes: Int
    /// The byte range asked of the origin (`bytes=A-B`), when the request was for part of a resource.
    public var range: String?
    /// A segment served as the origin published its parts (DECISIONS.md, LL-HLS): its time is the publishing's, not the
    /// network's, so it measures no throughput.
    public var paced = false
    /// A part asked for from the preload hint that named it (RFC 8216bis §4.4.5.3): its status says whether the hint came true.
    public var hint = false
    /// The body broke after its head went to the player and was resumed (or ended short): how (`ResumeEvent.text`).
    public var resumed: String?
    /// The CMCD the request carried (`--cmcd`, docs/CMCD.md), as written.
    public var cmcd: String?
    /// The CMSD the answer carried (CTA-5006).
    public var cmsd: CMSD?

    public init(
        kind: ResourceKind, url: String, rung: Int?, msn: Int?, start: Double, ttfbMs: Double?, durationMs: Double, bytes: Int, status: Int,
        local: Bool, prefetch: Bool, retries: Int, outcome: RequestOutcome, firstPTS: Double?, cache: CacheOutcome? = nil,
        savedBytes: Int = 0, range: String? = nil, paced: Bool = false, hint: Bool = false
    ) {
        self.range = range
        self.paced = paced
        self.hint = hint
        self.cache = cache
        self.savedBytes = savedBytes
        self.kind = kind
        self.url = url
        self.rung = rung
        self.msn = msn
        self.start = start
        self.ttfbMs = ttfbMs
        self.durationMs = durationMs
        self.bytes = bytes
        self.status = status
        self.local = local
        self.prefetch = prefetch
        self.retries = retries
        self.outcome = outcome
        self.firstPTS = firstPTS
    }

    /// The cause when the request failed.
    public var failure: String? {
        if case .failed(let cause) = outcome { return cause }
        return nil
    }

    public var json: JSONValue {
        .object([
            ("kind", .string(kind.rawValue)), ("url", .string(url)), ("rung", .int(rung)), ("msn", .int(msn)), ("start", .double(start)),
            ("ttfbMs", .double(ttfbMs)), ("durationMs", .double(durationMs)), ("bytes", .int(bytes)), ("status", .int(status)),
            ("local", .bool(local)), ("prefetch", .bool(prefetch)), ("retries", .int(retries)),
            ("error", .string(outcome == .gap ? "GAP" : failure)),
            ("firstPTS", .double(firstPTS)), ("cache", .string(cache?.rawValue)), ("savedBytes", .int(cache == nil ? nil : savedBytes)),
            ("range", .string(range)), ("paced", .bool(paced)), ("hint", .bool(hint)), ("resumed", .string(resumed)),
            ("cmcd", .string(cmcd)), ("cmsd", cmsd?.json ?? .null),
        ])
    }
}

extension CMCDValue {
    public var json: JSONValue {
        switch self {
        case .integer(let i): .int(i)
        case .decimal(let d): .double(d)
        case .string(let s), .token(let s): .string(s)
        case .boolean(let b): .bool(b)
        }
    }
}

extension CMSD {
    /// The static keys, each hop with its keys, and what could not be read.
    public var json: JSONValue {
        .object([
            ("static", .object(statics.keys.sorted().map { ($0, statics[$0]!.json) })),
            (
                "dynamic",
                .array(hops.map { h in .object([("name", .string(h.name))] + h.values.keys.sorted().map { ($0, h.values[$0]!.json) }) })
            ),
            ("findings", .array(findings.map { .string($0.description) })),
        ])
    }
}

/// One key the Loader fetched (or failed to), never with its bytes: a fingerprint names it.
/// Why a key could not be had, as one of a fixed set (a metric label, a filter), beside the one-line `error`.
public enum KeyFailure: String, Sendable, CaseIterable {
    /// The origin answered with a status other than 200: 4xx or 5xx.
    case status4xx = "http_4xx"
    case status5xx = "http_5xx"
    /// No answer: connection refused or reset, a timeout, TLS, a truncated body.
    case transport
    /// An answer that is not a key (not 16 bytes, in any encoding hlstui repairs).
    case invalid
    /// `--key-command` failed.
    case command
    /// A key kept with a download past its expiry.
    case expired
}

public struct KeyEvent: Sendable {
    public var uri: String
    public var method: KeyMethod
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
    /// The failure's kind, with `error`.
    public var failure: KeyFailure?
    /// Key-request spreading: how long the fetch was held back after the key was first seen (DECISIONS.md, keys are prefetched), when it was.
    public var spreadMs: Double?
    /// A key kept with a download: when it stops playing (Unix seconds) and by which clock ("storage", "playback").
    public var expires: Double?
    public var expiresClock: String?

    public init(
        uri: String, method: KeyMethod, keyFormat: String, fingerprint: String?, firstMSN: Int?, lastMSN: Int?, requested: Double,
        latencyMs: Double,
        prefetch: Bool, repair: String?, source: String, error: String?, failure: KeyFailure? = nil, spreadMs: Double? = nil,
        expires: Double? = nil, expiresClock: String? = nil
    ) {
        self.failure = failure
        self.uri = uri
        self.method = method
        self.keyFormat = keyFormat
        self.fingerprint = fingerprint
        self.firstMSN = firstMSN
        self.lastMSN = lastMSN
        self.requested = requested
        self.latencyMs = latencyMs
        self.prefetch = prefetch
        self.repair = repair
        self.source = source
        self.error = error
        self.spreadMs = spreadMs
        self.expires = expires
        self.expiresClock = expiresClock
    }

    public var json: JSONValue {
        .object([
            ("uri", .string(uri)), ("method", .string(method.rawValue)), ("keyFormat", .string(keyFormat)),
            ("fingerprint", .string(fingerprint)),
            ("firstMsn", .int(firstMSN)), ("lastMsn", .int(lastMSN)), ("requested", .double(requested)), ("latencyMs", .double(latencyMs)),
            ("prefetch", .bool(prefetch)), ("repair", .string(repair)), ("source", .string(source)), ("error", .string(error)),
            ("failure", .string(failure?.rawValue)), ("spreadMs", .double(spreadMs)), ("expires", .double(expires)),
            ("expiresClock", .string(expiresClock)),
        ])
    }
}

/// A media playlist as the origin served it, parsed, with the rung it belongs to.
public struct PlaylistEvent: Sendable {
    public var url: String
    public var rung: Int?
    /// The rendition group and name when this is an alternate rendition rather than a variant.
    public var rendition: String?
    public var playlist: MediaPlaylist
    public var received: Double
    public init(url: String, rung: Int?, rendition: String?, playlist: MediaPlaylist, received: Double) {
        self.url = url
        self.rung = rung
        self.rendition = rendition
        self.playlist = playlist
        self.received = received
    }
}

/// A live media playlist read with delivery directives (RFC 8216bis §6.2.5): how long the origin held it, and what a delta
/// update saved.
public struct ReloadEvent: Sendable {
    public var url: String
    public var rung: Int?
    /// `_HLS_msn` asked for, when the reload blocked.
    public var blockedFor: Int?
    /// A delta update (`_HLS_skip=YES`) was asked for.
    public var delta: Bool
    /// Seconds from the request to the first byte (the hold, for a blocking reload).
    public var holdSeconds: Double
    /// Bytes received, and the bytes of the whole playlist it stands for (the delta merged back).
    public var bytes: Int
    public var wholeBytes: Int
    /// Segments the delta update skipped.
    public var skipped: Int
    /// The newest segment the answer lists.
    public var lastMSN: Int?
    public var targetDuration: Int?
    public var partTarget: Double?
    /// `_HLS_part` asked for with `blockedFor` (the Loader waiting for a part of the segment in progress).
    public var blockedPart: Int?
    /// How many parts the furthest-behind rendition report trails the playlist's own newest part.
    public var reportLag: Int?
    /// A reload for the part just read from its preload hint (answered at once: the hinted request carried the wait).
    public var afterHint = false

    public init(
        url: String, rung: Int?, blockedFor: Int?, delta: Bool, holdSeconds: Double, bytes: Int, wholeBytes: Int, skipped: Int,
        lastMSN: Int?, targetDuration: Int?, partTarget: Double?, blockedPart: Int? = nil, reportLag: Int? = nil, afterHint: Bool = false
    ) {
        self.afterHint = afterHint
        self.blockedPart = blockedPart
        self.reportLag = reportLag
        self.url = url
        self.rung = rung
        self.blockedFor = blockedFor
        self.delta = delta
        self.holdSeconds = holdSeconds
        self.bytes = bytes
        self.wholeBytes = wholeBytes
        self.skipped = skipped
        self.lastMSN = lastMSN
        self.targetDuration = targetDuration
        self.partTarget = partTarget
    }

    public var json: JSONValue {
        .object([
            ("url", .string(url)), ("rung", .int(rung)), ("blockedFor", .int(blockedFor)), ("delta", .bool(delta)),
            ("holdMs", .double((holdSeconds * 1_000_000).rounded() / 1000)), ("bytes", .int(bytes)), ("wholeBytes", .int(wholeBytes)),
            ("savedBytes", .int(max(0, wholeBytes - bytes))), ("skipped", .int(skipped)), ("lastMSN", .int(lastMSN)),
            ("targetDuration", .int(targetDuration)), ("partTarget", .double(partTarget)), ("blockedPart", .int(blockedPart)),
            ("reportLagParts", .int(reportLag)), ("afterHint", .bool(afterHint)),
        ])
    }
}

/// One step of a broken body's resumption: the break, the rest arriving, or giving up.
public struct ResumeEvent: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case broken, resumed, gaveUp
    }
    public var phase: Phase
    public var kind: ResourceKind
    public var url: String
    public var rung: Int?
    public var msn: Int?
    /// The byte of the body where it broke (`broken`, `resumed`) or ended short (`gaveUp`).
    public var byte: Int
    /// Seconds from the break (`resumed`, `gaveUp`).
    public var seconds: Double
    /// How the body broke (`broken`, `resumed`), or why it could not be resumed (`gaveUp`).
    public var cause: String?
    /// The host of the copy the rest came from, when not the one that broke (a redundant host, `resumed`).
    public var source: String?
    /// The requests the rest took (`resumed`), and what the last one that failed said when more than one was needed.
    public var attempts = 1
    public var failed: String?

    public init(
        phase: Phase, kind: ResourceKind, url: String, rung: Int?, msn: Int?, byte: Int, seconds: Double = 0, cause: String? = nil,
        source: String? = nil
    ) {
        (self.phase, self.kind, self.url, self.rung, self.msn) = (phase, kind, url, rung, msn)
        (self.byte, self.seconds, self.cause, self.source) = (byte, seconds, cause, source)
    }

    /// The one line a user reads: "segment 6: origin body stalled after 8 KB; resumed at byte 8192 after 13.2 s".
    public var text: String {
        let what = "\(kind.rawValue)\(msn.map { " \($0)" } ?? "")"
        let size =
            byte < 1024
            ? "\(byte) B" : byte < 1_048_576 ? "\(byte / 1024) KB" : "\(byte * 10 / 1_048_576 / 10).\(byte * 10 / 1_048_576 % 10) MB"
        let secs = fixed(seconds, 1)
        switch phase {
        case .broken: return "\(what): origin body \(cause ?? "broke") after \(size); resuming at byte \(byte)"
        case .resumed:
            let tries = attempts > 1 ? " (\(attempts) requests" + (failed.map { "; before the last: \($0)" } ?? "") + ")" : ""
            return
                "\(what): origin body \(cause ?? "broke") after \(size); resumed at byte \(byte)\(source.map { " from \($0)" } ?? "") after \(secs) s\(tries)"
        case .gaveUp: return "\(what): origin body ended short at \(size) after \(secs) s of resuming (\(cause ?? "no answer"))"
        }
    }

    public var json: JSONValue {
        .object([
            ("phase", .string(phase.rawValue)), ("kind", .string(kind.rawValue)), ("url", .string(url)), ("rung", .int(rung)),
            ("msn", .int(msn)), ("byte", .int(byte)), ("seconds", .double((seconds * 1000).rounded() / 1000)),
            ("cause", .string(cause)), ("source", .string(source)), ("attempts", .int(attempts)), ("failed", .string(failed)),
            ("message", .string(text)),
        ])
    }
}

/// What the Loader tells the session.
public enum LoaderEvent: Sendable {
    case request(RequestEvent)
    case key(KeyEvent)
    /// A one-line diagnosis (wrong key, DRM the platform cannot play, upstream failure).
    case diagnostic(String)
    /// A media playlist the Loader read from the origin (for the player or ahead of it), parsed.
    case playlist(PlaylistEvent)
    /// A segment's first media timestamp (seconds), as soon as its first bytes passed, before the segment's request ends.
    case firstPTS(rung: Int?, msn: Int, seconds: Double)
    /// What a segment's first bytes say of its media: its first video and audio timestamps (seconds) and whether its first
    /// video frame decodes on its own (docs/VALIDATION.md); after `firstPTS`, from the same bytes.
    case mediaStart(rung: Int?, msn: Int, videoStart: Double?, audioStart: Double?, independent: Bool?)
    /// The Loader began fetching segment `msn` of `rung` at `at` (seconds since the Loader started); its `request` event follows at the end.
    case segmentStarted(rung: Int?, msn: Int, at: Double)
    /// A GAP segment of rung `gapRung` was served from rung `by`, which has media there (RFC 8216bis §4.4.4.7).
    case gapFilled(msn: Int, gapRung: Int, by: Int)
    /// Segment `msn` of rung `failedRung` could not be had (`cause`): it was served from rung `by`, or from nowhere (nil).
    case failover(msn: Int, failedRung: Int, by: Int?, cause: String)
    /// Rung `rung` answers again after failing for `downSeconds` (`cause` was its last failure).
    case recovered(rung: Int, downSeconds: Double, cause: String)
    /// A live playlist read with delivery directives (LL-HLS).
    case reload(ReloadEvent)
    /// A body that broke after its head went to the player, and how its resumption went (DECISIONS.md, "A body that breaks
    /// is resumed").
    case resume(ResumeEvent)
    /// A player that plays through the Loader (`hlstui proxy`) sent CMCD with a request (docs/CMCD.md).
    case playerCMCD(PlayerCMCDEvent)
    /// Timed metadata a segment carries (an `emsg` box in fMP4, its ID3 tag decoded; docs/EVENTS.md).
    case timedMetadata(TimedMetadataEvent)
    /// The closed-caption data a segment's video carries, picture by picture (docs/SUBTITLES.md, "Closed captions"): read
    /// when the stream names a caption channel the player does not decode.
    case captionData(CaptionDataEvent)

    public var json: JSONValue {
        switch self {
        case .request(let r): return .object([("event", .string("request"))] + (r.json.objectFields))
        case .key(let k): return .object([("event", .string("key"))] + (k.json.objectFields))
        case .diagnostic(let s): return .object([("event", .string("error")), ("message", .string(s))])
        case .firstPTS(let rung, let msn, let seconds):
            return .object([("event", .string("firstPTS")), ("rung", .int(rung)), ("msn", .int(msn)), ("seconds", .double(seconds))])
        case .mediaStart(let rung, let msn, let video, let audio, let independent):
            return .object([
                ("event", .string("mediaStart")), ("rung", .int(rung)), ("msn", .int(msn)), ("videoStart", .double(video)),
                ("audioStart", .double(audio)), ("independent", independent.map { .bool($0) } ?? .null),
            ])
        case .segmentStarted(let rung, let msn, let at):
            return .object([("event", .string("segmentStarted")), ("rung", .int(rung)), ("msn", .int(msn)), ("at", .double(at))])
        case .gapFilled(let msn, let gapRung, let by):
            return .object([("event", .string("gapFilled")), ("msn", .int(msn)), ("gapRung", .int(gapRung)), ("by", .int(by))])
        case .failover(let msn, let failed, let by, let cause):
            return .object([
                ("event", .string("failover")), ("msn", .int(msn)), ("failedRung", .int(failed)), ("by", .int(by)),
                ("cause", .string(cause)),
            ])
        case .recovered(let rung, let down, let cause):
            return .object([
                ("event", .string("recovered")), ("rung", .int(rung)), ("downSeconds", .double(down)), ("cause", .string(cause)),
            ])
        case .reload(let r): return .object([("event", .string("reload"))] + r.json.objectFields)
        case .resume(let r): return .object([("event", .string("resume"))] + r.json.objectFields)
        case .playerCMCD(let c): return .object([("event", .string("playerCMCD"))] + c.json.objectFields)
        case .timedMetadata(let m): return .object([("event", .string("metadata"))] + m.json.objectFields)
        case .captionData(let c):
            return .object([
                ("event", .string("captionData")), ("rung", .int(c.rung)), ("msn", .int(c.msn)), ("pictures", .int(c.samples.count)),
                ("first", .double(c.samples.first?.time)), ("last", .double(c.samples.last?.time)),
            ])
        case .playlist(let p):
            return .object([
                ("event", .string("playlist")), ("url", .string(p.url)), ("rung", .int(p.rung)),
                ("mediaSequence", .int(p.playlist.mediaSequence)),
                ("segments", .int(p.playlist.segments.count)), ("endList", .bool(p.playlist.endList)),
            ])
        }
    }
}

extension JSONValue {
    /// The fields of an object, empty for any other value.
    public var objectFields: [(String, JSONValue)] {
        if case .object(let f) = self { return f }
        return []
    }
}

/// One exchange with an origin as it happened on the wire — each attempt of a retried request on its own — for a recording
/// (`--record`, docs/RECORDING.md): what was asked, what came back and when, and how it ended.
public struct UpstreamExchange: Sendable {
    /// The URL asked for (after redirects: each hop is an exchange of its own).
    public var url: String
    public var range: String?
    /// 0 for the first try of a request, then each retry.
    public var attempt: Int
    /// A key: its bytes are recorded only when asked for (`--record-keys`).
    public var secret: Bool
    /// When the request was sent (seconds since 1970).
    public var sent: Double
    public var status: Int?
    public var headers: [(String, String)]
    /// Seconds to the first byte of the answer, when one came.
    public var ttfb: Double?
    /// Seconds until the exchange ended (answered whole, or failed).
    public var seconds: Double
    /// Bytes of body received, kept or not.
    public var bytes: Int
    /// How it failed, when it did: connect, timeout, truncated, tls, redirect, protocol, url (with the one-line detail).
    public var failure: String?
    public var detail: String?
    /// The body received (of a truncated answer, what came before the cut).
    public var body: [UInt8]

    public init(
        url: String, range: String?, attempt: Int, secret: Bool, sent: Double, status: Int?, headers: [(String, String)], ttfb: Double?,
        seconds: Double, bytes: Int, failure: String?, detail: String?, body: [UInt8]
    ) {
        self.url = url
        self.range = range
        self.attempt = attempt
        self.secret = secret
        self.sent = sent
        self.status = status
        self.headers = headers
        self.ttfb = ttfb
        self.seconds = seconds
        self.bytes = bytes
        self.failure = failure
        self.detail = detail
        self.body = body
    }
}

/// One exchange as a recording holds it (docs/RECORDING.md, table `exchange`): its time in the session and its body by hash.
/// A replay serves it again (`ReplayResponder`).
public struct RecordedExchange: Sendable {
    /// Seconds since the recorded session started, when the request was sent.
    public var t: Double
    public var pane: Int?
    public var url: String
    public var range: String?
    public var attempt: Int
    /// A key: its bytes were never recorded, unless `sealed`.
    public var secret: Bool
    /// A key whose bytes were recorded sealed under the recording user's vault key (`--record-keys`).
    public var sealed: Bool
    public var status: Int?
    /// The answer's headers, in order.
    public var headers: [(String, String)]
    public var ttfb: Double?
    public var seconds: Double
    public var bytes: Int
    /// connect, timeout, truncated, tls, … (nil: answered whole).
    public var failure: String?
    /// The body's SHA-256 in the recording (nil: no body, or a key's bytes).
    public var body: String?

    public init(
        t: Double, pane: Int? = nil, url: String, range: String? = nil, attempt: Int = 0, secret: Bool = false, sealed: Bool = false,
        status: Int?, headers: [(String, String)], ttfb: Double?, seconds: Double, bytes: Int, failure: String?, body: String?
    ) {
        self.sealed = sealed
        self.t = t
        self.pane = pane
        self.url = url
        self.range = range
        self.attempt = attempt
        self.secret = secret
        self.status = status
        self.headers = headers
        self.ttfb = ttfb
        self.seconds = seconds
        self.bytes = bytes
        self.failure = failure
        self.body = body
    }

    /// Answered whole with a 2xx status.
    public var answered: Bool { failure == nil && (status.map { (200..<300).contains($0) } ?? false) }
}

/// The CMCD one request of a player that plays through the Loader carried: the keys, what CTA-5004 says of them, and the
/// player's session so far in one line (docs/CMCD.md).
public struct PlayerCMCDEvent: Sendable {
    /// Seconds since the Loader started.
    public var at: Double
    public var sid: String
    public var kind: ResourceKind
    public var msn: Int?
    /// The keys, normalized (sorted).
    public var cmcd: String
    public var findings: [String]
    /// The player's session: "6e2fb550 bl 8.3 s br 829k mtp 4.9M, started in 0.4 s, 1 stall, 3 switches, CTA-5004 clean".
    public var summary: String
    /// Forwarded upstream as the player sent it (hlstui sends no CMCD of its own).
    public var forwarded: Bool

    public init(
        at: Double, sid: String, kind: ResourceKind, msn: Int?, cmcd: String, findings: [String], summary: String, forwarded: Bool
    ) {
        self.at = at
        self.sid = sid
        self.kind = kind
        self.msn = msn
        self.cmcd = cmcd
        self.findings = findings
        self.summary = summary
        self.forwarded = forwarded
    }

    public var json: JSONValue {
        .object([
            ("at", .double(at)), ("sid", .string(sid)), ("kind", .string(kind.rawValue)), ("msn", .int(msn)), ("cmcd", .string(cmcd)),
            ("findings", .array(findings.map { .string($0) })), ("summary", .string(summary)), ("forwarded", .bool(forwarded)),
        ])
    }
}

/// One timed metadata item a segment carries (docs/EVENTS.md): an `emsg` box's event, at its time on the media timeline (the
/// player's raw clock), with its ID3 frames when it carries a tag.
public struct TimedMetadataEvent: Sendable, Equatable {
    public struct Frame: Sendable, Equatable {
        public var id: String
        public var text: String
        public init(id: String, text: String) { (self.id, self.text) = (id, text) }
    }
    public var rung: Int?
    public var msn: Int
    /// Seconds on the media timeline; nil when unknown.
    public var time: Double
    public var duration: Double?
    public var scheme: String
    public var value: String
    public var id: UInt32
    /// The ID3 frames of its tag; empty when it carries none (its bytes counted in `bytes`).
    public var frames: [Frame]
    public var bytes: Int

    public init(
        rung: Int?, msn: Int, time: Double, duration: Double?, scheme: String, value: String, id: UInt32, frames: [Frame], bytes: Int
    ) {
        (self.rung, self.msn, self.time, self.duration, self.scheme) = (rung, msn, time, duration, scheme)
        (self.value, self.id, self.frames, self.bytes) = (value, id, frames, bytes)
    }

    public var json: JSONValue {
        .object([
            ("rung", .int(rung)), ("msn", .int(msn)), ("time", .double((time * 1000).rounded() / 1000)),
            ("duration", .double(duration.map { ($0 * 1000).rounded() / 1000 })), ("scheme", .string(scheme)),
            ("value", .string(value)), ("id", .int(Int(id))),
            ("frames", .array(frames.map { .object([("id", .string($0.id)), ("text", .string($0.text))]) })), ("bytes", .int(bytes)),
        ])
    }
}

/// The closed-caption data of one segment's video (A/53 `cc_data`), each picture's at its presentation time on the media
/// timeline (the player's raw clock), in presentation order.
public struct CaptionDataEvent: Sendable, Equatable {
    public var rung: Int?
    public var msn: Int
    public var samples: [CaptionSample]

    public init(rung: Int?, msn: Int, samples: [CaptionSample]) {
        (self.rung, self.msn, self.samples) = (rung, msn, samples)
    }
}
