import HLS
import JSONValue

extension OriginRouter {
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
        case "fault": return addFault(q, now: now)
        case "faults": return .json(.array(state.faults.map(\.json)))
        case "steering": return steering(q)
        case "assets.json":
            return OriginInterstitials.list(
                n: q["n"].flatMap { Int($0) } ?? 2, fault: q["fault"], seconds: q["seconds"].flatMap { Double($0) })
        case "bench.m3u8": return benchPlaylist(q)
        case "blob.ts": return blob(q)
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
        case "truth": return truth(q, now: now)
        default:
            return .text(404, "control endpoints: scenarios, fault, faults, clear, key-latency, cmsd, players, log, truth")
        }
    }

    /// `fault?kind=…`: a fault switched on (docs/ORIGIN.md), answered with what was added.
    func addFault(_ q: [String: String], now: Double) -> OriginResponse {
        guard let kind = Fault.Kind(rawValue: q["kind"] ?? "") else {
            return .text(400, "kind= one of \(Fault.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let target = Fault.Target(rawValue: q["target"] ?? "any") ?? .any
        // `after=S`: it starts S seconds from now (a freeze then holds the window as it is then); `for=` counts from there.
        let since = now + max(0, q["after"].flatMap { Double($0) } ?? 0)
        var fault = Fault(
            id: 0, kind: kind, target: target, status: Int(q["status"] ?? "") ?? 404, ms: Int(q["ms"] ?? "") ?? 2000,
            scenario: q["scenario"], rendition: q["rendition"], msn: q["msn"].flatMap { Int($0) },
            remaining: q["count"].flatMap { Int($0) }, since: since, until: q["for"].flatMap { Double($0) }.map { since + $0 })
        fault.client = q["client"]
        fault.host = q["host"]
        fault.bytes = q["bytes"].flatMap { Int($0) }
        fault.hold = q["hold"].flatMap { Double($0) }
        return .json(state.add(fault, now: now).json)
    }

    /// The steered scenario's steering server, set: `?priority=cdn-b,cdn-a&ttl=10&status=200|410|429|…&retryAfter=S&clone=1|0`.
    func steering(_ q: [String: String]) -> OriginResponse {
        var s = state.steering
        if let p = q["priority"] { s.priority = p.split(separator: ",").map(String.init) }
        if let t = q["ttl"].flatMap({ Int($0) }), t > 0 { s.ttl = t }
        if let st = q["status"].flatMap({ Int($0) }) { s.status = st }
        if let a = q["retryAfter"] { s.retryAfter = Int(a) }
        if let c = q["clone"] { s.clone = c == "1" || c == "true" }
        state.steering = s
        return .json(s.json)
    }

    /// `segments` segments (default one) of `bytes` bytes each, for throughput benchmarks.
    func benchPlaylist(_ q: [String: String]) -> OriginResponse {
        let n = Int(q["bytes"] ?? "") ?? 2_000_000
        let count = max(1, min(10_000, Int(q["segments"] ?? "") ?? 1))
        let pace = q["mbit"].map { "&mbit=\($0)" } ?? ""
        let list = (0..<count).map { i in "#EXTINF:10.0,\nblob.ts?bytes=\(n)\(pace)\(count > 1 ? "&i=\(i)" : "")\n" }.joined()
        var r = OriginResponse.text(
            200, "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-PLAYLIST-TYPE:VOD\n\(list)#EXT-X-ENDLIST")
        r.contentType = "application/vnd.apple.mpegurl"
        return r
    }

    /// A segment of `bytes` bytes (the v360 rung's first, repeated), paced at `mbit` when given.
    func blob(_ q: [String: String]) -> OriginResponse {
        let n = max(188, Int(q["bytes"] ?? "") ?? 2_000_000)
        let seg = media.rendition("v360", .ts)?.segments.first?.bytes ?? [UInt8](repeating: 0x47, count: 188)
        var body: [UInt8] = []
        body.reserveCapacity(n)
        while body.count < n { body += seg.prefix(n - body.count) }
        var r = OriginResponse(status: 200, contentType: "video/mp2t", body: body, kind: "segment")
        if let mbps = q["mbit"].flatMap(Double.init), mbps > 0 { r.delivery = .paced(bytesPerSecond: Int(mbps * 125_000)) }
        return r
    }

    /// The window a scenario's rendition lists now, as the origin models it (`truth?scenario=…&rendition=…`).
    func truth(_ q: [String: String], now: Double) -> OriginResponse {
        guard let s = Scenario.named(q["scenario"] ?? ""), let m = model(s, q["rendition"] ?? defaultRendition(s)) else {
            return .text(400, "truth needs scenario= and rendition=")
        }
        let w = m.window(at: now, overrides: overrides(m, client: q["client"], now: now))
        return .json(
            .object([
                ("scenario", .string(s.name)), ("rendition", .string(m.rendition.id)), ("now", .double(now)),
                ("segments", .array(w.map(OriginRouter.truthJSON))),
            ]))
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
            "\ncontrol: /control/scenarios  /control/fault?kind=status|slow|stall|truncate|trickle|norange|etag|freeze|reset|nopdt|uriswap|vttshift|vttnomap|vttnoheader&target=segment|key|playlist|init|any"
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
        s += "live multivariant playlists take ?lag=SECONDS@RENDITION: that rung (v240) publishes that much later than the others\n"
        s += "media and multivariant playlists take ?cues=N: a two-segment break every N segments, as CUE-OUT/CUE-IN with SCTE-35\n"
        s += "and, with PDT, EXT-X-DATERANGE SCTE35-OUT/IN; &cueplan=SECONDS adds that much to the length each break announces\n"
        s += "media and multivariant playlists take ?chapters=N: a date range of CLASS com.hlstui.chapter every N segments (END-ON-NEXT)\n"
        s += "multivariant playlists take ?bw=FACTOR (BANDWIDTH and AVERAGE-BANDWIDTH declared that many times the media's) and\n"
        s += "?avc=avc1.PPCCLL (that video codec declared instead of the SPS's): packagers that declare wrong, for inspect --media\n"
        s += "VOD media and multivariant playlists take ?repeat=N: the segments listed N times over, each copy after a discontinuity\n"
        return s
    }
}
