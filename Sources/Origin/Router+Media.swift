import HLS
import MediaFormats

extension OriginRouter {
    /// A rung's or rendition's playlist, segment, part, init section or subtitle file.
    func media(_ scenario: Scenario, _ rest: [String], _ req: OriginRequest, now: Double) -> OriginResponse {
        guard rest.count == 2, let model = model(scenario, rest[0]) else { return .text(404, "not found: \(req.path)") }
        let file = rest[1]
        let client = req.query["client"]
        var o = overrides(model, client: client, now: now)
        // A live playlist's own knobs, for cameras as other encoders deliver them: `delay` (s of publishing delay),
        // `window` (segments listed), `pdt` (s added to every PDT), `drift` (ppm the media runs fast against its PDT, from the
        // origin's start), `pdtat=discontinuity` (PDT only on the first segment after each discontinuity).
        if model.scenario.isLive, file.hasSuffix(".m3u8") {
            o.extraDelay = max(0, min(60, Double(req.query["delay"] ?? "") ?? 0))
            // `lag=SECONDS@RENDITION` (carried from the multivariant playlist): that rung's encoder runs behind the others,
            // its playlist ends that much earlier than theirs (RFC 8216bis §6.2.4, docs/VALIDATION.md).
            if let v = req.query["lag"], let at = v.firstIndex(of: "@"), String(v[v.index(after: at)...]) == rest[0],
                let s = Double(v[..<at])
            {
                o.extraDelay = max(0, min(60, o.extraDelay + s))
            }
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
            r = mediaPlaylist(model, rest[0], req, now: now, o)
        case "iframes.m3u8" where scenario.container == .ts && !model.aes && model.rendition.hasVideo:
            var p = model.mediaPlaylist(at: now, overrides: o, iFramesOnly: true)
            if req.query["iframebad"] == "1", case .media(var m) = p.body {
                // Each range moved past its I-frame by its own length: the frames after it, which need it.
                for i in m.segments.indices {
                    if let br = m.segments[i].byteRange {
                        m.segments[i].byteRange = ByteRange(length: br.length, offset: br.offset + br.length)
                    }
                }
                p.body = .media(m)
            }
            r = .playlist(p)
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
                r = segment(model, file, now: now, o, id3: req.query["id3"] == "1", faults: MediaFaults(req.query))
            }
        }
        r.rendition = rest[0]
        return r
    }

    /// A rung's or rendition's playlist at `now`, with the knobs of its query carried out (docs/ORIGIN.md).
    func mediaPlaylist(_ model: StreamModel, _ rendition: String, _ req: OriginRequest, now: Double, _ o: LiveOverrides) -> OriginResponse {
        let client = req.query["client"]
        var p =
            rendition == "subs-en"
            ? model.subtitlePlaylist(at: now, overrides: o)
            : rendition == "subs-imsc"
                ? model.subtitlePlaylist(at: now, overrides: o, imsc: true) : model.mediaPlaylist(at: now, overrides: o)
        if let system = req.query["drm"] { p = Self.protected(p, system: system, rendition: rendition) }
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
        if req.query["interstitials"] == "1" {
            p = OriginInterstitials.add(
                to: p, spoil: req.query["assetlist"], assetSeconds: req.query["assetseconds"].flatMap { Double($0) })
        }
        if let n = req.query["first"].flatMap({ Int($0) }) { p = Self.first(n, of: p) }
        if req.query["id3"] == "1" { p = Self.keeping(query: "id3=1", in: p) }
        if let n = req.query["repeat"].flatMap({ Int($0) }) { p = Self.repeated(p, times: min(1000, n)) }
        for k in MediaFaults.knobs { if let v = req.query[k] { p = Self.keeping(query: "\(k)=\(v)", in: p) } }
        var r = OriginResponse.playlist(client.map { Self.keeping(client: $0, in: p) } ?? p)
        if let kbps = req.query["cmsd"].flatMap({ Int($0) }) {
            r.headers += OriginCMCD.headers(kind: "playlist", live: model.scenario.isLive, maxKbps: max(0, kbps))
        }
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
            let split = { if case .lowLatency(_, let s) = ll.model.scenario.kind { return s } else { return 2 } }()
            let reports = OriginTiming.videoRungs.filter {
                $0 != rung && media.lowLatency($0, ll.model.rendition.container, split: split) != nil
            }
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
            let p = ll.playlist(
                at: at, overrides: o, skip: skip, reports: reports, wrongSkip: fault == "badskip", falseHint: fault == "nohint")
            var r = OriginResponse.playlist(req.query["client"].map { Self.keeping(client: $0, in: p) } ?? p)
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
    func segment(
        _ model: StreamModel, _ file: String, now: Double, _ o: LiveOverrides, id3: Bool = false, faults: MediaFaults = MediaFaults([:])
    ) -> OriginResponse {
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
        if model.rendition.container == .ts { body = faults.apply(body, msn: t.msn, rendition: model.rendition.id) }
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
}

/// Media that breaks a rule on purpose, by query knobs carried from the multivariant playlist to every segment (MPEG-TS
/// only; docs/ORIGIN.md): `nonidr=MSN` that segment opens without its IDR picture; `audioshift=MS@MSN` audio MS
/// milliseconds later against video from that segment on; `tsjump=MSN` every timestamp 10 s later from that segment on,
/// with no EXT-X-DISCONTINUITY (RFC 8216bis §4.4.4.3); `rungshift=MS@RENDITION` every timestamp of that rendition (`v240`)
/// MS milliseconds later than the other variants' (RFC 8216bis §6.2.4). What `inspect --media` checks (docs/VALIDATION.md).
struct MediaFaults: Sendable {
    static let knobs = ["nonidr", "audioshift", "tsjump", "rungshift"]
    var nonIDR: Int?
    var audioShift: (ms: Int, from: Int)?
    var jumpFrom: Int?
    var rungShift: (ms: Int, rendition: String)?

    init(_ query: [String: String]) {
        nonIDR = query["nonidr"].flatMap { Int($0) }
        if let v = query["audioshift"] {
            let parts = v.split(separator: "@").map { Int($0) }
            if let ms = parts.first ?? nil { audioShift = (ms, parts.count > 1 ? parts[1] ?? 0 : 0) }
        }
        jumpFrom = query["tsjump"].flatMap { Int($0) }
        if let v = query["rungshift"] {
            let parts = v.split(separator: "@", maxSplits: 1)
            if parts.count == 2, let ms = Int(parts[0]) { rungShift = (ms, String(parts[1])) }
        }
    }

    func apply(_ bytes: [UInt8], msn: Int, rendition: String) -> [UInt8] {
        var b = bytes
        if let (ms, r) = rungShift, r == rendition { b = TransportStream.shiftingTimestamps(b, by: Int64(ms * 90)) }
        if let (ms, from) = audioShift, msn >= from {
            b = TransportStream.shiftingTimestamps(b, by: Int64(ms * 90), pids: Set(TransportStream.probe(b).audioPIDs))
        }
        if let from = jumpFrom, msn >= from { b = TransportStream.shiftingTimestamps(b, by: 10 * 90_000) }
        if nonIDR == msn { b = TransportStream.droppingFirstVideoAccessUnit(b) }
        return b
    }
}
