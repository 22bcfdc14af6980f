import Crypto
import _CryptoExtras
import Foundation
import HLS
import MediaFormats
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

    var isPaced: Bool { if case .paced = self { true } else { false } }

    /// How many bytes of a body of `count` bytes this delivery sends.
    func bytesSent(of count: Int) -> Int {
        switch self {
        case .refuse, .silent: 0
        case .cut(let n), .hang(let n, _): min(n, count)
        case .truncate: count / 2
        case .stall: count / 4
        case .normal, .paced: count
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

/// The keys of the AES scenarios, derived so tests can compute them too.
public enum OriginKeys {
    /// 16 key bytes for key `id` of `scenario`.
    public static func key(scenario: String, id: Int) -> [UInt8] {
        Array(SHA256.hash(data: Data("hlstui demo key:\(scenario):\(id)".utf8)).prefix(16))
    }

    /// The 16 IV bytes for key `id` (its number, big-endian).
    public static func iv(_ id: Int) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: 16)
        var v = UInt64(id)
        for i in (8..<16).reversed() { b[i] = UInt8(v & 0xFF); v >>= 8 }
        return b
    }

    /// AES-128-CBC with PKCS#7 padding, as RFC 8216bis §5.2 specifies for METHOD=AES-128.
    public static func encrypt(_ plain: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        Array(try AES._CBC.encrypt(plain, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv)))
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
        guard case .lowLatency(let container) = scenario.kind, let r = media.lowLatency(rendition, container) else { return nil }
        return LowLatencyModel(scenario: scenario, rendition: r)
    }

    /// Freeze and reset in force for `model` at this moment.
    func overrides(_ model: StreamModel, client: String?) -> LiveOverrides {
        var o = LiveOverrides()
        for f in state.liveFaults(model.scenario.name, client: client) {
            if f.kind == .freeze, o.freezeAt == nil { o.freezeAt = f.since }
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
        if parts[0] == "keys", parts.count == 3 { return key(parts[1], parts[2], req) }
        if parts[0] == "steered" {
            var r = steered(Array(parts.dropFirst()), req)
            r.scenario = "steered"
            return applyFault(r, req)
        }
        if parts[0] == "progressive", parts.count == 2 {
            // Plain MP4 files, answered with Range like any segment (`Accept-Ranges`, 206, 416).
            guard let bytes = media.progressive[parts[1]] else { return .text(404, "no progressive file \(parts[1])") }
            var r = OriginResponse(status: 200, contentType: "video/mp4", body: bytes, kind: "segment")
            r.scenario = "progressive"
            r.rendition = parts[1]
            return applyFault(r, req)
        }
        guard let scenario = Scenario.named(parts[0]) else { return .text(404, "no scenario \(parts[0]); see / for the list") }
        var r = route(scenario, Array(parts.dropFirst()), req, now: now)
        r.scenario = scenario.name
        return applyFault(r, req)
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
        if rest == ["master.m3u8"] || rest == ["wide.m3u8"] {
            guard var p = MultivariantBuilder.playlist(scenario, media: media) else {
                return .text(500, "media missing for \(scenario.name)")
            }
            // wide.m3u8: every variant listed `copies` times (distinct query strings), a wide ladder for startup benchmarks.
            if rest == ["wide.m3u8"], case .multivariant(var m) = p.body {
                let copies = max(1, min(10, Int(req.query["copies"] ?? "") ?? 2))
                m.variants = (0..<copies).flatMap { c in
                    m.variants.map { v in
                        var v = v; v.uri += "?copy=\(c)"; return v
                    }
                }
                p.body = .multivariant(m)
            }
            // ?drm=RUNG: that rung's media playlist marks every segment as a DRM packager does (the system from ?system=,
            // default FairPlay) — a rendition no player here can decrypt, for what hlstui says of it.
            if let rung = req.query["drm"], case .multivariant(var m) = p.body {
                let system = req.query["system"] ?? "fairplay"
                for i in m.variants.indices where m.variants[i].uri.hasPrefix(rung + "/") { m.variants[i].uri += "?drm=\(system)" }
                p.body = .multivariant(m)
            }
            // ?bw=FACTOR: BANDWIDTH and AVERAGE-BANDWIDTH declared that many times what the media measures (a packager that
            // under- or over-declares); ?avc=avc1.PPCCLL: that video codec declared instead of the one the SPS gives.
            if case .multivariant(var m) = p.body, req.query["bw"] != nil || req.query["avc"] != nil {
                let factor = max(0.01, min(100, Double(req.query["bw"] ?? "") ?? 1))
                for i in m.variants.indices {
                    m.variants[i].bandwidth = m.variants[i].bandwidth.map { Int((Double($0) * factor).rounded()) }
                    m.variants[i].averageBandwidth = m.variants[i].averageBandwidth.map { Int((Double($0) * factor).rounded()) }
                    if let avc = req.query["avc"], let c = m.variants[i].codecs {
                        m.variants[i].codecs = c.split(separator: ",").map { $0.hasPrefix("avc1") ? avc : String($0) }.joined(
                            separator: ",")
                    }
                }
                p.body = .multivariant(m)
            }
            // ?cues=N (&cueplan=S), ?chapters=N: the breaks and chapters on every variant's media playlist, as one packager
            // writes them on each rung.
            let knobs = ["cues", "cueplan", "chapters"].compactMap { k in req.query[k].map { "\(k)=\($0)" } }.joined(separator: "&")
            if !knobs.isEmpty, case .multivariant(var m) = p.body {
                for i in m.variants.indices { m.variants[i].uri += (m.variants[i].uri.contains("?") ? "&" : "?") + knobs }
                p.body = .multivariant(m)
            }
            // ?imsc=1: the subtitles as IMSC1 in fragmented MP4 too (RFC 8216bis §3.1.5), a rendition of the same group.
            if req.query["imsc"] == "1", case .multivariant(var m) = p.body, m.renditions.contains(where: { $0.type == "SUBTITLES" }) {
                m.renditions.append(
                    Rendition(
                        type: "SUBTITLES", uri: "subs-imsc/index.m3u8", groupID: "subs", language: "en", name: "English IMSC1",
                        isDefault: false, autoselect: true, forced: false))
                for i in m.variants.indices where m.variants[i].subtitles != nil {
                    m.variants[i].codecs = m.variants[i].codecs.map { $0 + ",stpp.ttml.im1t" }
                }
                p.body = .multivariant(m)
            }
            // ?id3=1: every segment carries an ID3 tag at its start, in an emsg (fMP4) or an ID3 stream (TS; docs/EVENTS.md).
            if req.query["id3"] == "1", case .multivariant(var m) = p.body {
                for i in m.variants.indices { m.variants[i].uri += (m.variants[i].uri.contains("?") ? "&" : "?") + "id3=1" }
                p.body = .multivariant(m)
            }
            // ?cmsd=KBPS: every variant's playlist answers with CMSD, this as its maximum suggested bitrate (docs/CMCD.md).
            if let kbps = req.query["cmsd"], case .multivariant(var m) = p.body {
                for i in m.variants.indices { m.variants[i].uri += (m.variants[i].uri.contains("?") ? "&" : "?") + "cmsd=\(kbps)" }
                p.body = .multivariant(m)
            }
            var r = OriginResponse.playlist(p)
            r.kind = "multivariant"
            if let kbps = req.query["cmsd"].flatMap({ Int($0) }) {
                r.headers += OriginCMCD.headers(kind: r.kind, live: scenario.isLive, maxKbps: max(0, kbps))
            }
            return r
        }
        guard rest.count == 2, let model = model(scenario, rest[0]) else { return .text(404, "not found: \(req.path)") }
        let file = rest[1]
        let client = req.query["client"]
        var o = overrides(model, client: client)
        // A live playlist's own knobs, for cameras as other encoders deliver them: `delay` (s of publishing delay),
        // `window` (segments listed), `pdt` (s added to every PDT), `drift` (ppm the media runs fast against its PDT, from the
        // origin's start), `pdtat=discontinuity` (PDT only on the first segment after each discontinuity).
        if model.scenario.isLive, file.hasSuffix(".m3u8") {
            o.extraDelay = max(0, min(60, Double(req.query["delay"] ?? "") ?? 0))
            o.windowSegments = Int(req.query["window"] ?? "").map { max(2, min(60, $0)) }
            o.pdtOffset = max(-60, min(60, Double(req.query["pdt"] ?? "") ?? 0))
            o.driftPPM = max(-50_000, min(50_000, Double(req.query["drift"] ?? "") ?? 0))
            o.driftEpoch = state.startedAt
            o.pdtAtDiscontinuitiesOnly = req.query["pdtat"] == "discontinuity"
        }
        if let ll = lowLatency(scenario, rest[0]), let r = lowLatencyRoute(ll, rest[0], file, req, now: now, o) {
            var r = r
            r.rendition = rest[0]
            return r
        }
        var r: OriginResponse
        switch file {
        case "index.m3u8":
            var p =
                rest[0] == "subs-en"
                ? model.subtitlePlaylist(at: now, overrides: o)
                : rest[0] == "subs-imsc"
                    ? model.subtitlePlaylist(at: now, overrides: o, imsc: true) : model.mediaPlaylist(at: now, overrides: o)
            if let system = req.query["drm"] { p = Self.protected(p, system: system, rendition: rest[0]) }
            if model.scenario.isLive,
                state.liveFaults(model.scenario.name, client: client).contains(where: {
                    $0.kind == .uriswap && $0.since <= now && now < ($0.until ?? .infinity)
                })
            {
                p = Self.renamed(p)
            }
            if let n = req.query["cues"].flatMap({ Int($0) }) {
                p = OriginBreaks.add(to: p, every: n, plannedOff: Double(req.query["cueplan"] ?? "") ?? 0)
            }
            if let n = req.query["chapters"].flatMap({ Int($0) }) { p = OriginChapters.add(to: p, every: n) }
            if req.query["id3"] == "1" { p = Self.keeping(query: "id3=1", in: p) }
            r = .playlist(client.map { Self.keeping(client: $0, in: p) } ?? p)
            if let kbps = req.query["cmsd"].flatMap({ Int($0) }) {
                r.headers += OriginCMCD.headers(kind: "playlist", live: model.scenario.isLive, maxKbps: max(0, kbps))
            }
        case "iframes.m3u8" where scenario.container == .ts && !model.aes && model.rendition.hasVideo:
            r = .playlist(model.mediaPlaylist(at: now, overrides: o, iFramesOnly: true))
        case "all.ts" where scenario.singleFile:
            r = OriginResponse(status: 200, contentType: "video/mp2t", body: model.rendition.segments.flatMap(\.bytes), kind: "segment")
        case "init.mp4" where rest[0] == "subs-imsc":
            r = OriginResponse(status: 200, contentType: "application/mp4", body: TimedTextMP4.initSection(timescale: 1000), kind: "init")
        case "init.mp4":
            guard var bytes = model.rendition.initSection else { return .text(404, "no init section in \(scenario.container.rawValue)") }
            if model.encryption == .aes128 {
                guard let enc = try? OriginKeys.encrypt(bytes, key: OriginKeys.key(scenario: scenario.name, id: 0), iv: OriginKeys.iv(0))
                else {
                    return .text(500, "encryption failed")
                }
                bytes = enc
            }
            r = OriginResponse(status: 200, contentType: "video/mp4", body: bytes, kind: "init")
        default:
            if rest[0].hasPrefix("subs-") {
                r = subtitle(model, file, now: now, o)
            } else {
                r = segment(model, file, now: now, o, id3: req.query["id3"] == "1")
            }
        }
        r.rendition = rest[0]
        return r
    }

    /// An LL rung's playlist (blocking reload and delta updates, §6.2.5) and parts (a hinted part is held until it is
    /// published, §6.2.6); nil for what a plain live rung answers the same way (whole segments).
    func lowLatencyRoute(
        _ ll: LowLatencyModel, _ rung: String, _ file: String, _ req: OriginRequest, now: Double, _ o: LiveOverrides
    ) -> OriginResponse? {
        let target = Double(ll.model.rendition.nominalDuration.rounded())
        func refused(_ status: Int, _ why: String) -> OriginResponse {
            var r = OriginResponse.text(status, why)
            r.kind = "playlist"
            return r
        }
        if file == "index.m3u8" {
            let reports = OriginTiming.videoRungs.filter { $0 != rung && media.lowLatency($0, ll.model.rendition.container) != nil }
            var at = now
            let msnText = req.query["_HLS_msn"]
            let partText = req.query["_HLS_part"]
            if partText != nil && msnText == nil {
                return refused(400, "_HLS_part without _HLS_msn (RFC 8216bis §6.2.5.2)")
            }
            if let msnText {
                guard let msn = Int(msnText), msn >= 0, partText.map({ Int($0).map { $0 >= 0 } ?? false }) ?? true else {
                    return refused(400, "bad delivery directive: _HLS_msn=\(msnText) _HLS_part=\(partText ?? "")")
                }
                let part = partText.flatMap { Int($0) }
                let last = ll.lastCompleteMSN(at: now, overrides: o)
                // §6.2.5.2: further than two segments past the last, or parts past the Advance Part Limit: 400 at once.
                let advanceLimit = ll.partTarget < 1 ? Int((3 / ll.partTarget).rounded(.down)) : 3
                let ready = ll.published(msn: msn, part: part, overrides: o)
                let partsAhead = part.map { _ in Int(((ready - now) / ll.partTarget).rounded(.up)) } ?? 0
                if msn > last + 2 || partsAhead > advanceLimit {
                    return refused(400, "_HLS_msn=\(msn) is beyond what this playlist will publish soon (last \(last))")
                }
                // `llfault=early`: the blocking reload answered at once, before what it asked for exists; `llfault=slowhold`:
                // held three and a half target durations past the moment it could be answered.
                at = req.query["llfault"] == "early" ? now : max(now, ready)
                if req.query["llfault"] == "slowhold" { at = max(now, ready) + 3.5 * target }
                if at - now > 3 * target && req.query["llfault"] != "slowhold" {
                    return refused(503, "segment \(msn) is more than three target durations away")
                }
            }
            let skip = req.query["_HLS_skip"] == "YES" || req.query["_HLS_skip"] == "v2"
            // `llfault=badskip`: delta updates that skip wrongly (one segment more counted than replaced); `llfault=nohint`: the
            // preload hint names a part never published.
            let fault = req.query["llfault"]
            var r = OriginResponse.playlist(
                ll.playlist(at: at, overrides: o, skip: skip, reports: reports, wrongSkip: fault == "badskip", falseHint: fault == "nohint")
            )
            r.delayMs = Int(((at - now) * 1000).rounded(.up))
            return r
        }
        guard let (n, i) = ll.partIndex(file: file) else { return nil }
        var t = ll.model.truth(n, overrides: o)
        t.duration = ll.parts[ll.position(n)][i].duration
        let msn = n - (o.resetIndex ?? 0)
        let ready = ll.published(msn: msn, part: i, overrides: o)
        let previous = i > 0 ? ll.published(msn: msn, part: i - 1, overrides: o) : ll.published(msn: msn - 1, part: nil, overrides: o)
        // The hinted part (the one after the newest) is held until it exists; one further ahead is not there (§6.2.6).
        if ready > now && previous > now {
            var r = OriginResponse.text(404, "part \(i) of segment \(n) is not published and not hinted")
            r.kind = "segment"
            r.truth = t
            return r
        }
        let type = ll.model.rendition.container == .ts ? "video/mp2t" : "video/mp4"
        var r = OriginResponse(status: 200, contentType: type, body: ll.partBytes(n, i), kind: "segment")
        r.delayMs = ready > now ? Int(((ready - now) * 1000).rounded(.up)) : 0
        r.truth = t
        return r
    }

    func subtitle(_ model: StreamModel, _ file: String, now: Double, _ o: LiveOverrides) -> OriginResponse {
        let imsc = file.hasSuffix(".m4s")
        let stem = file.hasSuffix(".vtt") || imsc ? String(file.dropLast(4)) : ""
        let digits = stem.hasPrefix("cue") ? stem.dropFirst(3) : stem.hasPrefix("c") ? stem.dropFirst() : ""
        guard let n = Int(digits) else { return .text(404, "not found: \(file)") }
        var r = OriginResponse(status: 200, contentType: "text/vtt", body: Array(model.subtitleText(n).utf8), kind: "subtitle")
        if imsc {
            // IMSC1 in fragmented MP4 (RFC 8216bis §3.1.5): the same cue as TTML, timed on the media timeline, in a 1 kHz track.
            let t = model.truth(n, overrides: o)
            r.contentType = "video/mp4"
            r.body = TimedTextMP4.segment(
                sequence: UInt32(truncatingIfNeeded: n + 1), decodeTime: UInt64(max(0, t.mediaTime * 1000).rounded()),
                duration: UInt32((t.duration * 1000).rounded()), document: Array(model.subtitleTTML(n).utf8))
        }
        r.truth = model.truth(n, overrides: o)
        return r
    }

    /// `id3`: the segment carries an ID3 tag that names it, at its start (timed metadata, docs/EVENTS.md): in an `emsg` box
    /// before an fMP4 fragment, in a PES of an ID3 stream in MPEG-TS.
    func segment(_ model: StreamModel, _ file: String, now: Double, _ o: LiveOverrides, id3: Bool = false) -> OriginResponse {
        guard let n = model.segmentIndex(file: file) else { return .text(404, "not found: \(file)") }
        let t = model.truth(n, overrides: o)
        if model.scenario.isLive {
            let last = model.lastAvailable(at: o.freezeAt ?? now)
            if n > last { var r = OriginResponse.text(404, "segment \(n) is not available yet"); r.truth = t; r.kind = "segment"; return r }
            if let reset = o.resetIndex, n < reset {
                var r = OriginResponse.text(404, "segment \(n) is gone after the reset"); r.kind = "segment"; return r
            }
        }
        if t.gap {
            var r = OriginResponse.text(404, "segment \(t.msn) is an EXT-X-GAP: it has no media")
            r.truth = t
            r.kind = "segment"
            return r
        }
        var body = model.rendition.segments[t.position].bytes
        let tag = ID3.tag([("hlstui", "segment \(t.msn)"), ("pdt", t.pdt.iso8601)])
        if id3, model.rendition.container == .fmp4 {
            body =
                EventMessage.box(
                    scheme: EventMessage.id3Scheme, value: "", timescale: 90_000,
                    presentationTime: UInt64(max(0, t.mediaTime * 90_000).rounded()), duration: UInt32((t.duration * 90_000).rounded()),
                    id: UInt32(truncatingIfNeeded: t.msn), data: tag) + body
        }
        // A continuous scenario's loops play on one timeline, its continuity counters going on with it (StreamModel.loopShift,
        // continuityShift).
        if model.scenario.continuous, model.rendition.container == .ts {
            body = TransportStream.shiftingTimestamps(body, by: Int64((model.loopShift(n) * 90_000).rounded()))
            body = TransportStream.shiftingContinuity(body, by: model.continuityShift(n))
        }
        if id3, model.rendition.container == .ts {
            body = TransportStream.addingTimedID3(
                body, tag: tag, pts: UInt64(max(0, t.mediaTime * 90_000).rounded()), cc: UInt8(truncatingIfNeeded: n))
        }
        if let id = t.keyID {
            let key = OriginKeys.key(scenario: model.scenario.name, id: id)
            if model.encryption == .sampleAES {
                body = SampleAES.encrypt(segment: body, key: key, iv: OriginKeys.iv(id))
            } else {
                guard let enc = try? OriginKeys.encrypt(body, key: key, iv: OriginKeys.iv(id)) else {
                    return .text(500, "encryption failed")
                }
                body = enc
            }
        }
        var r = OriginResponse(
            status: 200, contentType: model.rendition.container == .ts ? "video/mp2t" : "video/iso.segment", body: body, kind: "segment")
        r.truth = t
        return r
    }

    func key(_ scenario: String, _ file: String, _ req: OriginRequest) -> OriginResponse {
        guard Scenario.named(scenario) != nil, file.hasPrefix("k"), file.hasSuffix(".key"), let id = Int(file.dropFirst().dropLast(4))
        else {
            return .text(404, "no such key")
        }
        let key = OriginKeys.key(scenario: scenario, id: id)
        let body: [UInt8]
        switch req.query["format"] ?? state.keyFormat {
        case "newline": body = key + [0x0A]
        case "hex": body = Array((key.map { String(format: "%02x", $0) }.joined() + "\n").utf8)
        default: body = key
        }
        var r = OriginResponse(status: 200, contentType: "application/octet-stream", body: body, kind: "key")
        r.delayMs = Int(req.query["latency"] ?? "") ?? state.keyLatencyMs
        r.scenario = scenario
        return applyFault(r, req)
    }

    /// The playlist with `?client=` kept on every segment and init section URI it lists, so faults can single out one client.
    /// Every segment under a DRM key (RFC 8216bis §4.4.4.4 KEYFORMAT): FairPlay (`skd://`), Widevine or PlayReady.
    static func protected(_ p: Playlist, system: String, rendition: String) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        var key = Key(method: .sampleAES, uri: "skd://hlstui/\(rendition)")
        key.keyFormat = "com.apple.streamingkeydelivery"
        key.keyFormatVersions = "1"
        switch system {
        case "widevine":
            key = Key(method: .sampleAESCTR, uri: "data:text/plain;base64,AAAAW3Bzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAADsIARIQ")
            key.keyFormat = "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
        case "playready":
            key = Key(method: .sampleAESCTR, uri: "data:text/plain;charset=UTF-16;base64,AAAA")
            key.keyFormat = "com.microsoft.playready"
        default: break
        }
        for i in m.segments.indices { m.segments[i].keys = [key] }
        var out = p
        out.body = .media(m)
        return out
    }

    /// Every segment listed under another URI (`?renamed=1`), the same media behind it (the `uriswap` fault).
    static func renamed(_ p: Playlist) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        for i in m.segments.indices { m.segments[i].uri += (m.segments[i].uri.contains("?") ? "&" : "?") + "renamed=1" }
        var out = p
        out.body = .media(m)
        return out
    }

    /// The playlist with `query` added to every segment URI it lists.
    static func keeping(query: String, in p: Playlist) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        for i in m.segments.indices { m.segments[i].uri += (m.segments[i].uri.contains("?") ? "&" : "?") + query }
        var out = p
        out.body = .media(m)
        return out
    }

    static func keeping(client: String, in p: Playlist) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        let tag = "client=" + (client.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let add = { (uri: String) in uri + (uri.contains("?") ? "&" : "?") + tag }
        for i in m.segments.indices {
            m.segments[i].uri = add(m.segments[i].uri)
            if let map = m.segments[i].map { m.segments[i].map?.uri = add(map.uri) }
        }
        var out = p
        out.body = .media(m)
        return out
    }

    func applyFault(_ r0: OriginResponse, _ req: OriginRequest) -> OriginResponse {
        var r = r0
        let target: Fault.Target
        switch r.kind {
        case "playlist", "multivariant", "steering": target = .playlist
        case "segment", "subtitle": target = .segment
        case "init": target = .initSection
        case "key": target = .key
        default: return r
        }
        guard
            let f = state.takeFault(
                target: target, scenario: r.scenario, rendition: r.rendition, msn: r.truth?.msn, client: req.query["client"],
                host: req.host, subtitle: r.kind == "subtitle")
        else { return r }
        r.fault = "\(f.kind.rawValue)#\(f.id)"
        switch f.kind {
        case .status:
            let keep = (r.kind, r.truth, r.scenario, r.rendition, r.fault)
            r = .text(f.status, "fault \(f.id): status \(f.status)")
            (r.kind, r.truth, r.scenario, r.rendition, r.fault) = keep
        case .slow: r.delayMs += f.ms
        case .stall: r.delivery = f.bytes.map { .hang(bytes: $0, seconds: f.hold ?? 60) } ?? .stall
        case .truncate: r.delivery = f.bytes.map { .cut(bytes: $0) } ?? .truncate
        case .norange: r.ignoresRange = true
        case .etag: r.headers.append(("ETag", "\"changed-\(f.id)\""))
        case .freeze, .reset, .nopdt, .uriswap: break
        case .vttshift, .vttnomap, .vttnoheader: r.body = Array(Self.webVTT(String(decoding: r.body, as: UTF8.self), f).utf8)
        }
        return r
    }

    /// A WebVTT segment as fault `f` spoils it: its map moved by `ms`, left out, or its signature left out.
    static func webVTT(_ text: String, _ f: Fault) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch f.kind {
        case .vttnoheader: lines.removeAll { $0.hasPrefix("WEBVTT") }
        case .vttnomap: lines.removeAll { $0.hasPrefix("X-TIMESTAMP-MAP=") }
        case .vttshift:
            lines = lines.map { line in
                guard line.hasPrefix("X-TIMESTAMP-MAP="), let r = line.range(of: "MPEGTS:") else { return line }
                let digits = line[r.upperBound...].prefix { $0.isNumber }
                let moved = (Int(digits) ?? 0) + f.ms * 90
                return line.replacingCharacters(in: r.upperBound..<digits.endIndex, with: String(moved))
            }
        default: break
        }
        return lines.joined(separator: "\n")
    }

    func control(_ parts: [String], _ req: OriginRequest, now: Double) -> OriginResponse {
        let q = req.query
        switch parts.dropFirst().first ?? "" {
        case "scenarios":
            return .json(
                .array(
                    Scenario.all.map {
                        .object([
                            ("name", .string($0.name)), ("summary", .string($0.summary)), ("live", .bool($0.isLive)),
                            ("path", .string("/\($0.name)/master.m3u8")),
                        ])
                    }))
        case "fault":
            guard let kind = Fault.Kind(rawValue: q["kind"] ?? "") else {
                return .text(400, "kind= one of \(Fault.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let target = Fault.Target(rawValue: q["target"] ?? "any") ?? .any
            var fault = Fault(
                id: 0, kind: kind, target: target, status: Int(q["status"] ?? "") ?? 404, ms: Int(q["ms"] ?? "") ?? 2000,
                scenario: q["scenario"], rendition: q["rendition"], msn: q["msn"].flatMap { Int($0) },
                remaining: q["count"].flatMap { Int($0) }, since: now, until: q["for"].flatMap { Double($0) }.map { now + $0 })
            fault.client = q["client"]
            fault.host = q["host"]
            fault.bytes = q["bytes"].flatMap { Int($0) }
            fault.hold = q["hold"].flatMap { Double($0) }
            return .json(state.add(fault).json)
        case "faults": return .json(.array(state.faults.map(\.json)))
        case "steering":
            // The steered scenario's steering server: ?priority=cdn-b,cdn-a&ttl=10&status=200|410|429|…&retryAfter=S&clone=1|0
            var s = state.steering
            if let p = q["priority"] { s.priority = p.split(separator: ",").map(String.init) }
            if let t = q["ttl"].flatMap({ Int($0) }), t > 0 { s.ttl = t }
            if let st = q["status"].flatMap({ Int($0) }) { s.status = st }
            if let a = q["retryAfter"] { s.retryAfter = Int(a) }
            if let c = q["clone"] { s.clone = c == "1" || c == "true" }
            state.steering = s
            return .json(s.json)
        case "bench.m3u8":
            // `segments` segments (default one) of `bytes` bytes each, for throughput benchmarks.
            let n = Int(q["bytes"] ?? "") ?? 2_000_000
            let count = max(1, min(10_000, Int(q["segments"] ?? "") ?? 1))
            let pace = q["mbit"].map { "&mbit=\($0)" } ?? ""
            let list = (0..<count).map { i in "#EXTINF:10.0,\nblob.ts?bytes=\(n)\(pace)\(count > 1 ? "&i=\(i)" : "")\n" }.joined()
            var r = OriginResponse.text(
                200, "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-PLAYLIST-TYPE:VOD\n\(list)#EXT-X-ENDLIST")
            r.contentType = "application/vnd.apple.mpegurl"
            return r
        case "blob.ts":
            let n = max(188, Int(q["bytes"] ?? "") ?? 2_000_000)
            let seg = media.rendition("v360", .ts)?.segments.first?.bytes ?? [UInt8](repeating: 0x47, count: 188)
            var body: [UInt8] = []
            body.reserveCapacity(n)
            while body.count < n { body += seg.prefix(n - body.count) }
            var r = OriginResponse(status: 200, contentType: "video/mp2t", body: body, kind: "segment")
            if let mbps = q["mbit"].flatMap(Double.init), mbps > 0 { r.delivery = .paced(bytesPerSecond: Int(mbps * 125_000)) }
            return r
        case "redirect":
            // A chain of n 302s ending at `to`, for testing clients' redirect limits.
            let n = Int(q["n"] ?? "") ?? 1
            let to = q["to"] ?? "/"
            let next = n > 1 ? "/control/redirect?n=\(n - 1)&to=\(to)" : to
            var r = OriginResponse.text(302, "see \(next)")
            r.headers = [("Location", next)]
            return r
        case "clear":
            state.clearFaults()
            return .json(.array([]))
        case "key-format":
            if let f = q["format"], ["binary", "newline", "hex"].contains(f) { state.keyFormat = f }
            return .json(.object([("keyFormat", .string(state.keyFormat))]))
        case "key-latency":
            if let ms = q["ms"].flatMap({ Int($0) }) { state.keyLatencyMs = ms }
            return .json(.object([("keyLatencyMs", .int(state.keyLatencyMs))]))
        case "players":
            // Every player whose CMCD the origin read (docs/CMCD.md): its figures, starts, stalls, switches and findings.
            return .json(.array(state.cmcdPlayerList.map(\.json)))
        case "cmsd":
            // mb=KBPS: every scenario answer carries CMSD suggesting that maximum bitrate; mb=none: none carries it.
            if let mb = q["mb"] { state.cmsdMaxKbps = Int(mb).map { max(0, $0) } }
            return .json(.object([("mb", .int(state.cmsdMaxKbps))]))
        case "log":
            return .json(.array(state.log(since: Int(q["since"] ?? "") ?? 0).map(\.json)))
        case "truth":
            guard let s = Scenario.named(q["scenario"] ?? ""), let m = model(s, q["rendition"] ?? defaultRendition(s)) else {
                return .text(400, "truth needs scenario= and rendition=")
            }
            let w = m.window(at: now, overrides: overrides(m, client: q["client"]))
            return .json(
                .object([
                    ("scenario", .string(s.name)), ("rendition", .string(m.rendition.id)), ("now", .double(now)),
                    ("segments", .array(w.map(OriginRouter.truthJSON))),
                ]))
        default:
            return .text(404, "control endpoints: scenarios, fault, faults, clear, key-latency, cmsd, players, log, truth")
        }
    }

    func defaultRendition(_ s: Scenario) -> String {
        if case .camera(let id, _, _) = s.kind { return id }
        return "v144"
    }

    public static func truthJSON(_ t: SegmentTruth) -> JSONValue {
        .object([
            ("msn", .int(t.msn)), ("index", .int(t.index)), ("uri", .string(t.uri)), ("pdt", .string(t.pdt.iso8601)),
            ("duration", .double(t.duration)), ("mediaTime", .double(t.mediaTime)), ("discontinuity", .bool(t.discontinuity)),
            ("discontinuitySequence", .int(t.discontinuitySequence)), ("gap", .bool(t.gap)), ("keyId", .int(t.keyID)),
        ])
    }

    func index() -> String {
        var s = "hlstui origin\n\nscenarios:\n"
        for sc in Scenario.all { s += "  /\(sc.name)/master.m3u8  \(sc.summary)\n" }
        s += "  /steered/master.m3u8  the live TS ladder on two CDNs (pathways cdn-a on 127.0.0.1, cdn-b on 127.0.0.2), content steering\n"
        s += "      ?inline=1: the first steering manifest in-line, SERVER-URI a data: URI\n"
        s += "\nprogressive MP4 (Range honoured): "
        s += media.progressive.keys.sorted().map { "/progressive/\($0)" }.joined(separator: "  ") + "\n"
        s +=
            "\ncontrol: /control/scenarios  /control/fault?kind=status|slow|stall|truncate|norange|etag|freeze|reset|nopdt|uriswap|vttshift|vttnomap|vttnoheader&target=segment|key|playlist|init|any"
        s +=
            "&status=404&ms=2000&bytes=N&hold=SECONDS&scenario=&rendition=&msn=&count=&for=SECONDS&client=NAME&host=127.0.0.2  /control/faults  /control/clear  /control/key-latency?ms=300  /control/key-format?format=binary|newline|hex"
        s += "  /control/log?since=0  /control/truth?scenario=live-ts&rendition=v144"
        s += "  /control/bench.m3u8?bytes=N&segments=K&mbit=M"
        s += "  /control/steering?priority=cdn-b,cdn-a&ttl=10&status=200|410|429&retryAfter=S&clone=1\n"
        s += "\nlive media playlists take ?delay=SECONDS (more publishing delay), &window=SEGMENTS, &pdt=SECONDS (PDT offset),\n"
        s += "&drift=PPM (media runs fast against its PDT), &pdtat=discontinuity (PDT only after discontinuities),\n"
        s += "&client=NAME (kept on every URI listed; a fault with client=NAME hits only that client),\n"
        s += "e.g. /cam-b/cam-b/index.m3u8?delay=3&window=6\n"
        s += "multivariant playlists take ?drm=RUNG&system=fairplay|widevine|playready: that rung marked as DRM-protected\n"
        s += "media and multivariant playlists take ?cues=N: a two-segment break every N segments, as CUE-OUT/CUE-IN with SCTE-35\n"
        s += "and, with PDT, EXT-X-DATERANGE SCTE35-OUT/IN; &cueplan=SECONDS adds that much to the length each break announces\n"
        s += "media and multivariant playlists take ?chapters=N: a date range of CLASS com.hlstui.chapter every N segments (END-ON-NEXT)\n"
        s += "multivariant playlists take ?bw=FACTOR (BANDWIDTH and AVERAGE-BANDWIDTH declared that many times the media's) and\n"
        s += "?avc=avc1.PPCCLL (that video codec declared instead of the SPS's): packagers that declare wrong, for inspect --media\n"
        return s
    }
}
