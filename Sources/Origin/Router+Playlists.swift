import Foundation
import HLS

extension OriginRouter {
    /// The multivariant playlist (`master.m3u8`; `wide.m3u8`: every variant listed several times) with the knobs of its
    /// query carried out (docs/ORIGIN.md).
    func multivariant(_ scenario: Scenario, _ rest: [String], _ req: OriginRequest) -> OriginResponse {
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
        // under- or over-declares); ?avc=avc1.PPCCLL: that video codec declared instead of the one the SPS gives; ?res=WxH,
        // ?fps=N, ?range=SDR|PQ|HLG: that RESOLUTION, FRAME-RATE and VIDEO-RANGE declared on every variant.
        if case .multivariant(var m) = p.body, ["bw", "avc", "res", "fps", "range"].contains(where: { req.query[$0] != nil }) {
            let factor = max(0.01, min(100, Double(req.query["bw"] ?? "") ?? 1))
            for i in m.variants.indices {
                m.variants[i].bandwidth = m.variants[i].bandwidth.map { Int((Double($0) * factor).rounded()) }
                m.variants[i].averageBandwidth = m.variants[i].averageBandwidth.map { Int((Double($0) * factor).rounded()) }
                if let res = req.query["res"]?.split(separator: "x").compactMap({ Int($0) }), res.count == 2 {
                    m.variants[i].resolution = Resolution(width: res[0], height: res[1])
                }
                if let fps = req.query["fps"].flatMap(Double.init) { m.variants[i].frameRate = fps }
                if let range = req.query["range"] { m.variants[i].videoRange = range }
                if let avc = req.query["avc"], let c = m.variants[i].codecs {
                    m.variants[i].codecs = c.split(separator: ",").map { $0.hasPrefix("avc1") ? avc : String($0) }.joined(
                        separator: ",")
                }
            }
            p.body = .multivariant(m)
        }
        if case .multivariant(var m) = p.body {
            Self.renditionKnobs(&m, req.query)
            p.body = .multivariant(m)
        }
        // Knobs of the media playlists, carried to every variant's URI as one packager writes the same on each rung:
        // ?cues=N (&cueplan=S) breaks and ?chapters=N date ranges (docs/EVENTS.md); ?id3=1 an ID3 tag at every segment's
        // start, in an emsg (fMP4) or an ID3 stream (TS); ?cmsd=KBPS every playlist answered with CMSD, this its maximum
        // suggested bitrate (docs/CMCD.md); ?lag=S@RENDITION one live rung's encoder S seconds behind; the media faults
        // (`MediaFaults`).
        let knobs =
            (["cues", "cueplan", "chapters", "id3", "cmsd", "interstitials", "assetlist", "assetseconds", "repeat", "lag"]
            + MediaFaults.knobs)
            .compactMap { k in
                req.query[k].map { "\(k)=\($0)" }
            }
        if !knobs.isEmpty, case .multivariant(var m) = p.body {
            for i in m.variants.indices {
                m.variants[i].uri += (m.variants[i].uri.contains("?") ? "&" : "?") + knobs.joined(separator: "&")
            }
            // The media faults reach the audio renditions' segments too (`rungshift=MS@audio-de`); a repeat, every rendition.
            let faults = MediaFaults.knobs.compactMap { k in req.query[k].map { "\(k)=\($0)" } }
            for i in m.renditions.indices where m.renditions[i].type == "AUDIO" && !faults.isEmpty {
                guard let uri = m.renditions[i].uri else { continue }
                m.renditions[i].uri = uri + (uri.contains("?") ? "&" : "?") + faults.joined(separator: "&")
            }
            if let n = req.query["repeat"] {
                for i in m.renditions.indices {
                    guard let uri = m.renditions[i].uri else { continue }
                    m.renditions[i].uri = uri + (uri.contains("?") ? "&" : "?") + "repeat=\(n)"
                }
            }
            p.body = .multivariant(m)
        }
        // ?iframebad=1: every I-frame playlist's ranges point past their I-frame, at frames that need it (docs/VALIDATION.md).
        if req.query["iframebad"] == "1", case .multivariant(var m) = p.body {
            for i in m.iFrameVariants.indices {
                m.iFrameVariants[i].uri += (m.iFrameVariants[i].uri.contains("?") ? "&" : "?") + "iframebad=1"
            }
            p.body = .multivariant(m)
        }
        var r = OriginResponse.playlist(p)
        r.kind = "multivariant"
        if let kbps = req.query["cmsd"].flatMap({ Int($0) }) {
            r.headers += OriginCMCD.headers(kind: r.kind, live: scenario.isLive, maxKbps: max(0, kbps))
        }
        return r
    }

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

    /// A VOD playlist's segments listed `times` times over (`?repeat=N`, for a long VOD: the benchmark of `inspect --media`
    /// reads two hours): each copy after an EXT-X-DISCONTINUITY (its timestamps start again, RFC 8216bis §4.4.4.3), its PDTs
    /// moved on by the copies before it, its URIs marked with the copy (`rep=K`), the same media behind them.
    static func repeated(_ p: Playlist, times: Int) -> Playlist {
        guard case .media(var m) = p.body, m.endList, times > 1 else { return p }
        let once = m.segments
        let length = once.reduce(0) { $0 + $1.duration }
        m.segments = (0..<times).flatMap { k in
            once.enumerated().map { i, s in
                var s = s
                guard k > 0 else { return s }
                s.uri += (s.uri.contains("?") ? "&" : "?") + "rep=\(k)"
                if i == 0 { s.discontinuity = true }
                s.programDateTime = s.programDateTime.map { $0.adding(seconds: Double(k) * length) }
                return s
            }
        }
        var out = p
        out.body = .media(m)
        return out
    }

    /// The playlist with `query` added to every segment URI it lists.
    /// `?first=N`: a VOD playlist cut to its first N segments (a short asset, docs/ORIGIN.md); a live one as it is.
    static func first(_ n: Int, of p: Playlist) -> Playlist {
        guard case .media(var m) = p.body, m.endList, n > 0 else { return p }
        m.segments = Array(m.segments.prefix(n))
        m.dateRanges = m.dateRanges.filter { $0.beforeSegment <= m.segments.count }
        var out = p
        out.body = .media(m)
        return out
    }

    static func keeping(query: String, in p: Playlist) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        for i in m.segments.indices { m.segments[i].uri += (m.segments[i].uri.contains("?") ? "&" : "?") + query }
        var out = p
        out.body = .media(m)
        return out
    }

    /// The playlist with `?client=` kept on every segment, part, preload hint and init section URI it lists, so faults can
    /// single out one client.
    static func keeping(client: String, in p: Playlist) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        let tag = "client=" + (client.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let add = { (uri: String) in uri + (uri.contains("?") ? "&" : "?") + tag }
        for i in m.segments.indices {
            m.segments[i].uri = add(m.segments[i].uri)
            if let map = m.segments[i].map { m.segments[i].map?.uri = add(map.uri) }
            for j in m.segments[i].parts.indices { m.segments[i].parts[j].uri = add(m.segments[i].parts[j].uri) }
        }
        for j in m.trailingParts.indices { m.trailingParts[j].uri = add(m.trailingParts[j].uri) }
        if let map = m.trailingMap { m.trailingMap?.uri = add(map.uri) }
        for j in m.preloadHints.indices { m.preloadHints[j].uri = add(m.preloadHints[j].uri) }
        var out = p
        out.body = .media(m)
        return out
    }
}

extension OriginRouter {
    /// The knobs of the renditions a multivariant playlist lists (docs/ORIGIN.md).
    static func renditionKnobs(_ m: inout MultivariantPlaylist, _ query: [String: String]) {
        // ?imsc=1: the subtitles as IMSC1 in fragmented MP4 too (RFC 8216bis §3.1.5), a rendition of the same group.
        if query["imsc"] == "1", m.renditions.contains(where: { $0.type == "SUBTITLES" }) {
            m.renditions.append(
                Rendition(
                    type: "SUBTITLES", uri: "subs-imsc/index.m3u8", groupID: "subs", language: "en", name: "English IMSC1",
                    isDefault: false, autoselect: true, forced: false))
            for i in m.variants.indices where m.variants[i].subtitles != nil {
                m.variants[i].codecs = m.variants[i].codecs.map { $0 + ",stpp.ttml.im1t" }
            }
        }
        // ?cc=none|undeclared|declared: the captions in the video declared as none (CLOSED-CAPTIONS=NONE, which RFC 8216bis
        // §4.4.6.2 says means the video carries none) or not declared at all (no CLOSED-CAPTIONS), as a packager that drops
        // them from the playlist writes; or CC1 declared on every video variant, carried or not (the broadcast ladder's video
        // carries none) (docs/SUBTITLES.md, "Closed captions").
        // ?cc=all: every channel the plain ladder's video carries declared — CC1, CC3 and CEA-708 service 1
        // (`CaptionSchedule`).
        if query["cc"] == "all", m.renditions.contains(where: { $0.type == "CLOSED-CAPTIONS" && $0.groupID == "cc" }) {
            m.renditions += [
                Rendition(
                    type: "CLOSED-CAPTIONS", groupID: "cc", language: "fr", name: "Français CC", isDefault: false, autoselect: true,
                    forced: false, instreamID: "CC3"),
                Rendition(
                    type: "CLOSED-CAPTIONS", groupID: "cc", language: "en", name: "English 708", isDefault: false, autoselect: true,
                    forced: false, instreamID: "SERVICE1"),
            ]
        }
        if let cc = query["cc"], ["none", "undeclared", "declared"].contains(cc) {
            m.renditions.removeAll { $0.type == "CLOSED-CAPTIONS" }
            for i in m.variants.indices {
                m.variants[i].closedCaptions = cc == "none" ? "NONE" : cc == "declared" && m.variants[i].resolution != nil ? "cc" : nil
            }
            if cc == "declared" {
                m.renditions.append(
                    Rendition(
                        type: "CLOSED-CAPTIONS", groupID: "cc", language: "en", name: "English CC", isDefault: false, autoselect: true,
                        forced: false, instreamID: "CC1"))
            }
        }
    }
}
