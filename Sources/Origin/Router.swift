import HLS
import JSONValue

/// A request as the router sees it.
public struct OriginRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var range: String?
    public var tls: Bool
    /// The request target as sent: path and query.
    public var target: String
    /// The Host header as sent (host and port), when there was one.
    public var authority: String?
    /// The host the request was sent to, without the port (the origin answers on several loopback addresses).
    public var host: String? { authority.map { a in String(a.split(separator: ":", maxSplits: 1).first ?? "") } }

    public init(method: String = "GET", target: String, range: String? = nil, tls: Bool = false) {
        self.method = method
        self.target = target
        let q = target.firstIndex(of: "?")
        path = q.map { String(target[..<$0]) } ?? target
        query = queryParameters(ofURL: target)
        self.range = range
        self.tls = tls
    }
}

/// How a response is delivered.
public enum Delivery: Sendable, Equatable {
    case normal
    /// Headers and a quarter of the body, then silence.
    case stall
    /// Full Content-Length promised, half sent, connection closed.
    case truncate
    /// The whole body, sent no faster than this many bytes per second (a link of known speed, for benchmarks).
    case paced(bytesPerSecond: Int)
    /// Headers and the first `bytes` of the body (Content-Length promises all of it), then the connection closes.
    case cut(bytes: Int)
    /// Headers and the first `bytes` of the body, then silence; the connection closes after `seconds`.
    case hang(bytes: Int, seconds: Double)
    /// No answer at all; the connection closes after `seconds` (a client's read timeout).
    case silent(seconds: Double)
    /// The connection closes at once, no answer (refused, reset).
    case refuse
    /// Headers, then the body a byte every `interval` seconds (the connection closes after a minute).
    case trickle(interval: Double)

    var isPaced: Bool { if case .paced = self { true } else { false } }

    /// How many bytes of a body of `count` bytes this delivery sends.
    func bytesSent(of count: Int) -> Int {
        switch self {
        case .refuse, .silent: 0
        case .cut(let n), .hang(let n, _): min(n, count)
        case .truncate: count / 2
        case .stall: count / 4
        case .normal, .paced: count
        case .trickle: min(count, 1)
        }
    }
}

/// What answers the origin's requests: the scenarios (`OriginRouter`) or a recording (`ReplayResponder`). `now` is seconds
/// since 1970; every answer is logged in `state`.
public protocol OriginResponder: Sendable {
    var state: OriginState { get }
    func respond(_ req: OriginRequest, now: Double) -> OriginResponse
}

extension OriginResponse {
    /// A plain answer, for responders outside this module.
    public init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// A response with what the request log needs to say about it.
public struct OriginResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    public var headers: [(String, String)] = []
    public var delayMs: Int = 0
    public var delivery: Delivery = .normal
    public var scenario: String?
    public var rendition: String?
    public var kind = "other"
    public var truth: SegmentTruth?
    public var fault: String?
    /// Sent as it is: a Range header is not applied again (a recorded answer already answered it).
    public var exact = false
    /// A Range header is not honoured: the whole resource is sent (the `norange` fault).
    public var ignoresRange = false

    static func text(_ status: Int, _ s: String) -> OriginResponse {
        OriginResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((s + "\n").utf8))
    }

    static func json(_ v: JSONValue) -> OriginResponse {
        OriginResponse(status: 200, contentType: "application/json", body: Array((v.prettyText + "\n").utf8))
    }

    static func playlist(_ p: Playlist) -> OriginResponse {
        OriginResponse(
            status: 200, contentType: "application/vnd.apple.mpegurl", body: Array(PlaylistWriter.write(p).utf8), kind: "playlist")
    }
}

/// Maps requests to playlists, media, keys and control answers; time comes in as `now` (seconds since 1970).
public struct OriginRouter: OriginResponder {
    public let media: MediaLibrary
    public let state: OriginState

    public init(media: MediaLibrary, state: OriginState) {
        self.media = media
        self.state = state
    }

    /// The stream model of `rendition` in `scenario` (subtitles follow v144's cadence).
    public func model(_ scenario: Scenario, _ rendition: String) -> StreamModel? {
        let id: String
        if case .lowLatency = scenario.kind { return lowLatency(scenario, rendition)?.model }
        if case .camera(let cam, _, _) = scenario.kind {
            guard rendition == cam else { return nil }
            id = cam
        } else {
            guard ["v144", "v240", "v360", "audio-en", "audio-de", "subs-en", "subs-imsc"].contains(rendition) else { return nil }
            id = rendition.hasPrefix("subs-") ? "v144" : rendition
        }
        return media.rendition(id, scenario.container, scenario.packaging).map { StreamModel(scenario: scenario, rendition: $0) }
    }

    /// The LL-HLS timeline of a rung of an LL scenario.
    public func lowLatency(_ scenario: Scenario, _ rendition: String) -> LowLatencyModel? {
        guard case .lowLatency(let container, let split) = scenario.kind, let r = media.lowLatency(rendition, container, split: split)
        else { return nil }
        return LowLatencyModel(scenario: scenario, rendition: r)
    }

    /// Freeze and reset in force for `model` at `now`. A freeze with an end (`for=`) ends then: the window comes back to the
    /// clock, past the segments it never listed.
    func overrides(_ model: StreamModel, client: String?, now: Double) -> LiveOverrides {
        var o = LiveOverrides()
        for f in state.liveFaults(model.scenario.name, client: client) where f.since <= now {
            if f.kind == .freeze, o.freezeAt == nil, now < (f.until ?? .infinity) { o.freezeAt = f.since }
            if f.kind == .reset, o.resetIndex == nil { o.resetIndex = model.lastAvailable(at: f.since) + 1 }
            if f.kind == .nopdt { o.withoutPDT.append((from: f.since, to: f.until)) }
        }
        return o
    }

    public func respond(_ req: OriginRequest, now: Double) -> OriginResponse {
        var r = route(req, now: now)
        // `/control/cmsd?mb=KBPS`: every scenario answer carries the server's suggestion (docs/CMCD.md).
        if let kbps = state.cmsdMaxKbps, let s = r.scenario, !r.headers.contains(where: { $0.0 == "CMSD-Dynamic" }) {
            r.headers += OriginCMCD.headers(kind: r.kind, live: Scenario.named(s)?.isLive ?? false, maxKbps: kbps)
        }
        return r
    }

    func route(_ req: OriginRequest, now: Double) -> OriginResponse {
        guard req.method == "GET" || req.method == "HEAD" else { return .text(405, "only GET and HEAD") }
        let parts = req.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.isEmpty { return .text(200, index()) }
        if parts[0] == "control" { return control(parts, req, now: now) }
        if parts[0] == "keys", parts.count == 3 { return key(parts[1], parts[2], req, now: now) }
        if parts[0] == "steered" {
            var r = steered(Array(parts.dropFirst()), req)
            r.scenario = "steered"
            return applyFault(r, req, now: now)
        }
        if parts[0] == "progressive", parts.count == 2 {
            // Plain MP4 files, answered with Range like any segment (`Accept-Ranges`, 206, 416).
            guard let bytes = media.progressive[parts[1]] else { return .text(404, "no progressive file \(parts[1])") }
            var r = OriginResponse(status: 200, contentType: "video/mp4", body: bytes, kind: "segment")
            r.scenario = "progressive"
            r.rendition = parts[1]
            return applyFault(r, req, now: now)
        }
        guard let scenario = Scenario.named(parts[0]) else { return .text(404, "no scenario \(parts[0]); see / for the list") }
        var r = route(scenario, Array(parts.dropFirst()), req, now: now)
        r.scenario = scenario.name
        return applyFault(r, req, now: now)
    }

    func route(_ scenario: Scenario, _ rest: [String], _ req: OriginRequest, now: Double) -> OriginResponse {
        if case .ladder(_, _, _, _, true) = scenario.kind, rest != ["master.m3u8"] {
            let token = req.query["token"] ?? ""
            if token.isEmpty || token.contains("{$") || rest.contains(where: { $0.contains("{$") }) {
                var r = OriginResponse.text(403, "EXT-X-DEFINE was not applied: the request still has a {$variable} or lacks ?token=")
                r.kind = "define"
                return r
            }
        }
        if rest == ["master.m3u8"] || rest == ["wide.m3u8"] { return multivariant(scenario, rest, req) }
        return media(scenario, rest, req, now: now)
    }

    func defaultRendition(_ s: Scenario) -> String {
        if case .camera(let id, _, _) = s.kind { return id }
        return "v144"
    }
}
