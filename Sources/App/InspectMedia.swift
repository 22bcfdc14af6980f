import Foundation
import HLS
import HLSReport
import Loader
import JSONValue
import MediaFormats
import Session

/// `hlstui inspect --media`: the media read and measured against what the playlists declare (docs/VALIDATION.md): each
/// variant's segments (all, or `sample` spread over it), their peak and average bit rate against BANDWIDTH and
/// AVERAGE-BANDWIDTH, the video codec from the bytes against CODECS. A live playlist is measured over its current window,
/// and with `--duration` over the reloads of that many seconds more (`LiveWatching`).
enum InspectMedia {
    /// What a run has measured so far, and what it could not.
    struct Measured {
        var measures: [VariantMeasure] = []
        var audio: [VariantMeasure] = []
        var subtitles: [SubtitleMeasure] = []
        var iframes: [IFrameMeasure] = []
        /// What a live watch goes on reading: each variant's and audio rendition's playlist, its meter and the window read.
        var watched: [LiveWatched] = []
        var errors: [String] = []
        var live: LiveWatchSummary?
        var liveErrors: [String] = []
    }

    static func run(_ request: InspectRequest, text: String) async -> InspectOutcome {
        // One client for the run: its connections are kept alive from one segment to the next.
        var req = request
        req.client = req.client ?? (try? PlaylistSource.makeClient(timeout: req.timeout, upstream: req.upstream))
        defer { if request.client == nil { req.client?.shutdown() } }
        let parsed = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: req.imports, url: req.source))
        // A playlist the RFC says a client must fail to parse (an undefined variable, …) names URIs nobody serves: the cause is
        // said once, not a wrong answer per segment.
        if let e = parsed.errors.first {
            let line = "media: not measured: \(req.source): line \(e.line ?? 0): \(e.message)"
            return InspectOutcome(stdout: "", stderr: line + "\n", status: 2)
        }
        var run = Measured()
        let entries = await measureVariants(parsed, req, into: &run)
        await measureRenditions(parsed, first: entries.first?.url, req, into: &run)
        // `--duration S` on live: the playlists read again for S seconds, each reload held to the reload rules, its new
        // segments measured (docs/VALIDATION.md).
        if let seconds = req.mediaDuration { await watchLive(seconds, parsed, req, into: &run) }
        for (i, v) in (parsed.playlist.multivariant?.iFrameVariants ?? []).enumerated() {
            guard let u = resolve(v.uri, against: req.source) else { continue }
            let name = "#\(i) " + (v.resolution.map { "\($0.height)p" } ?? "\((v.bandwidth ?? 0) / 1000)k")
            do {
                run.iframes.append(try await measureIFrames(u, name: name, sample: req.mediaSample, variables: parsed.variables, req))
            } catch {
                run.errors.append("I-frames \(name): \(error.description)")
            }
        }
        return report(run, req)
    }

    /// Each variant's media playlist (or the one media playlist) read and measured; the entries measured.
    static func measureVariants(_ parsed: ParseResult, _ req: InspectRequest, into run: inout Measured) async -> [(
        index: Int, name: String, url: String, variant: Variant?
    )] {
        var entries: [(index: Int, name: String, url: String, variant: Variant?)] = []
        if let m = parsed.playlist.multivariant {
            for (i, v) in m.variants.enumerated() {
                guard let u = resolve(v.uri, against: req.source) else { continue }
                entries.append((i, v.resolution.map { "\($0.height)p" } ?? "\((v.bandwidth ?? 0) / 1000)k", u, v))
            }
        } else {
            entries.append((0, "media playlist", req.source, nil))
        }
        for e in entries {
            do {
                let (meter, playlist) = try await metered(e.url, sample: req.mediaSample, variables: parsed.variables, req)
                var m = meter.result
                run.watched.append(
                    LiveWatched(
                        slot: .variant(run.measures.count), index: e.index,
                        name: e.variant == nil ? e.name : "#\(e.index) \(e.name) playlist", variant: true, meter: meter,
                        playlist: playlist))
                m.index = e.index
                m.name = e.name
                // In a multivariant playlist the tag holds for every segment of every media playlist (RFC 8216bis §4.4.2.1).
                m.independentSegments = m.independentSegments || parsed.playlist.independentSegments
                if let v = e.variant {
                    m.bandwidth = v.bandwidth
                    m.averageBandwidth = v.averageBandwidth
                    m.codecs = v.codecs
                    m.supplementalCodecs = v.supplementalCodecs
                    m.audioGroup = v.audio
                    m.resolution = v.resolution
                    m.frameRate = v.frameRate
                    m.videoRange = v.videoRange
                    m.closedCaptions = v.closedCaptions
                    m.separateAudio =
                        v.audio.map { g in parsed.playlist.multivariant?.renditions.contains { $0.groupID == g && $0.uri != nil } ?? false }
                        ?? false
                }
                run.measures.append(m)
            } catch {
                run.errors.append("#\(e.index) \(e.name): \(error.description)")
            }
        }
        return entries
    }

    /// The subtitle renditions (their cues against the media of `first`, the first variant) and the audio renditions of their
    /// own (RFC 8216bis §4.4.6.1), measured as the variants are, their timestamps held against the variants'
    /// (`MediaChecks.renditionFindings`).
    static func measureRenditions(_ parsed: ParseResult, first: String?, _ req: InspectRequest, into run: inout Measured) async {
        guard let m = parsed.playlist.multivariant else { return }
        if let first {
            for r in m.renditions where r.type == "SUBTITLES" {
                guard let uri = r.uri, let u = resolve(uri, against: req.source) else { continue }
                do {
                    run.subtitles.append(
                        try await measureSubtitles(
                            u, name: AudioRenditions.label(r), media: first, sample: req.mediaSample, variables: parsed.variables, req))
                } catch {
                    run.errors.append("subtitles \(r.name): \(error.description)")
                }
            }
        }
        for r in m.renditions where r.type == "AUDIO" {
            guard let uri = r.uri, let u = resolve(uri, against: req.source) else { continue }
            do {
                let (meter, playlist) = try await metered(u, sample: req.mediaSample, variables: parsed.variables, req)
                var a = meter.result
                let index = run.measures.count + run.audio.count
                run.watched.append(
                    LiveWatched(
                        slot: .audio(run.audio.count), index: index, name: "audio \(AudioRenditions.label(r)) playlist",
                        variant: false, meter: meter, playlist: playlist))
                a.name = "audio " + AudioRenditions.label(r)
                a.audioGroup = r.groupID
                a.index = index
                run.audio.append(a)
            } catch {
                run.errors.append("audio \(r.name): \(error.description)")
            }
        }
    }

    /// `--duration S` on live: every live playlist read again for `seconds` (`LiveWatching`), the new segments' figures added
    /// to their measures.
    static func watchLive(_ seconds: Double, _ parsed: ParseResult, _ req: InspectRequest, into run: inout Measured) async {
        // A live stream's subtitle renditions and I-frame playlists keep the reload rules too (their media is read once).
        if run.watched.contains(where: { $0.playlist?.isLive == true }), let m = parsed.playlist.multivariant {
            // Numbered as their findings are (`MediaChecks.findings`): after the variants and audio renditions.
            let base = run.measures.count + run.audio.count
            for (k, r) in m.renditions.filter({ $0.type == "SUBTITLES" && $0.uri != nil }).enumerated() {
                guard let u = resolve(r.uri ?? "", against: req.source) else { continue }
                run.watched.append(
                    LiveWatched(
                        slot: .rulesOnly(url: u), index: base + k, name: "subtitles \(AudioRenditions.label(r)) playlist",
                        variant: false, meter: nil, playlist: nil))
            }
            for (i, v) in m.iFrameVariants.enumerated() {
                guard let u = resolve(v.uri, against: req.source) else { continue }
                let name = "#\(i) " + (v.resolution.map { "\($0.height)p" } ?? "\((v.bandwidth ?? 0) / 1000)k")
                run.watched.append(
                    LiveWatched(
                        slot: .rulesOnly(url: u), index: base + run.subtitles.count + i, name: "I-frames \(name) playlist",
                        variant: false, meter: nil, playlist: nil))
            }
        }
        // On a terminal, one line saying how far the watch is, written over and cleared at its end.
        let onTerminal = req.progressOnTerminal
        let w = await LiveWatching.watch(
            seconds, &run.watched, variables: parsed.variables, req,
            progress: onTerminal ? { FileHandle.standardError.write(Data(("\r\u{1B}[K" + $0).utf8)) } : nil)
        if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        run.live = w.summary
        run.liveErrors = w.errors
        for x in run.watched {
            switch x.slot {
            case .variant(let i): x.meter?.apply(to: &run.measures[i])
            case .audio(let i): x.meter?.apply(to: &run.audio[i])
            case .rulesOnly: break
            }
        }
    }

    /// The findings and the report of a run: text or JSON, the HTML page when asked; exit 1 on a must-fix finding or a read
    /// that failed, 2 when nothing could be measured.
    static func report(_ run: Measured, _ req: InspectRequest) -> InspectOutcome {
        let (measures, audio, subtitles, iframes, live) = (run.measures, run.audio, run.subtitles, run.iframes, run.live)
        let findings = MediaChecks.findings(measures, audio: audio, subtitles: subtitles, iframes: iframes, live: live)
        let status: Int32 =
            !run.errors.isEmpty && measures.isEmpty
            ? 2 : findings.contains(where: \.must) || !run.errors.isEmpty || !run.liveErrors.isEmpty ? 1 : 0
        var errorLines = run.errors.map { "media: cannot measure \($0)" } + run.liveErrors
        if let path = req.mediaHTML {
            let page = MediaHTML.render(
                source: req.source, generated: ISO8601DateFormatter().string(from: Date()), measures: measures + audio,
                subtitles: subtitles, iframes: iframes, live: live)
            do {
                try page.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                errorLines.append("media: the HTML report could not be written to \(path): \(error.localizedDescription)")
            }
        }
        if req.json {
            var doc = MediaChecks.json(measures, audio: audio, subtitles: subtitles, iframes: iframes, live: live)
            if case .object(var f) = doc {
                f.insert(("source", .string(req.source)), at: 0)
                f.append(("errors", .array((run.errors + run.liveErrors).map { .string($0) })))
                doc = .object(f)
            }
            return InspectOutcome(stdout: doc.prettyText + "\n", stderr: "", status: status)
        }
        let lines = [req.source] + MediaChecks.text(measures, audio: audio, subtitles: subtitles, iframes: iframes, live: live) + errorLines
        return InspectOutcome(stdout: lines.joined(separator: "\n") + "\n", stderr: "", status: status)
    }

    /// One media playlist's segments measured: all of them, or `sample` spread evenly; sizes from EXT-X-BYTERANGE where it
    /// gives them, else from the bytes fetched.
    /// `variables`: the multivariant playlist's, for the media playlist's EXT-X-DEFINE IMPORT (RFC 8216bis §4.4.2.3).
    static func measure(_ url: String, sample: Int?, variables: [String: String] = [:], _ req: InspectRequest) async throws(SourceError)
        -> VariantMeasure
    {
        try await metered(url, sample: sample, variables: variables, req).meter.result
    }

    /// `measure`, with the meter kept (to measure the segments a live playlist adds) and the playlist as read.
    static func metered(_ url: String, sample: Int?, variables: [String: String] = [:], _ req: InspectRequest) async throws(SourceError)
        -> (meter: MediaMeter, playlist: MediaPlaylist)
    {
        let text = try await PlaylistSource.load(url, timeout: req.timeout, upstream: req.upstream, client: req.client)
        let playlist = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: variables, url: url)).playlist
        guard let m = playlist.media else { throw SourceError("\(url): not a media playlist") }
        let segs = m.segments.filter { !$0.gap }
        guard !segs.isEmpty else { throw SourceError("\(url): no segments") }
        let chosen: [Segment]
        if let n = sample, n > 0, n < segs.count {
            chosen = (0..<n).map { segs[$0 * (segs.count - 1) / max(1, n - 1)] }
        } else {
            chosen = segs
        }
        var meter = MediaMeter(url: url)
        meter.independentSegments = playlist.independentSegments
        meter.listed = Set(segs.map(\.mediaSequence))
        for s in chosen { try await meter.add(s, req) }
        // A live watch measures what comes after this window; the segments a sample left out stay so.
        meter.lastMSN = segs.last?.mediaSequence
        return (meter, m)
    }

    /// A subtitle rendition's WebVTT segments read (all, or `sample` spread over it), each against the media's clock at the
    /// same place: the segment of `media` (the first variant) there, its first timestamp read from its bytes.
    static func measureSubtitles(
        _ url: String, name: String, media: String, sample: Int?, variables: [String: String] = [:], _ req: InspectRequest
    ) async throws(SourceError) -> SubtitleMeasure {
        let text = try await PlaylistSource.load(url, timeout: req.timeout, upstream: req.upstream, client: req.client)
        guard let m = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: variables, url: url)).playlist.media
        else { throw SourceError("\(url): not a media playlist") }
        let video = PlaylistParser.parseLenient(
            try await PlaylistSource.load(media, timeout: req.timeout, upstream: req.upstream, client: req.client),
            options: ParseOptions(importedVariables: variables, url: media)
        ).playlist.media
        let starts = Timeline.startTimes(m)
        let indexes = Array(m.segments.indices)
        let chosen: [Int]
        if let n = sample, n > 0, n < indexes.count {
            chosen = (0..<n).map { indexes[$0 * (indexes.count - 1) / max(1, n - 1)] }
        } else {
            chosen = indexes
        }
        var tracks: [String: [MP4Track]] = [:]
        var files: [String: [UInt8]] = [:]
        var out: [SubtitleSegmentMeasure] = []
        for i in chosen {
            let s = m.segments[i]
            guard let u = resolve(s.uri, against: url) else { continue }
            let body = [UInt8](try await read(u, req))
            // IMSC1 in fragmented MP4 (§3.1.5): its TTML documents' cues, on the media timeline; else WebVTT (§3.1.4).
            let imsc = FragmentedMP4.startsLikeMP4(Array(body.prefix(64)))
            let ttml = imsc ? TimedTextMP4.documents(segment: body).map(TTML.parse).flatMap(\.cues) : []
            let doc = imsc ? WebVTT() : WebVTT.parse(String(decoding: body, as: UTF8.self))
            var at: Double?
            // The media's clock at the segment's start: by PDT when both carry it, else by position.
            if let v = video {
                let vStarts = Timeline.startTimes(v)
                var j: Int?
                var into = 0.0
                if let p = s.effectiveProgramDateTime,
                    let k = v.segments.firstIndex(where: { vs in
                        vs.effectiveProgramDateTime.map { p.seconds(since: $0) > -0.05 && p.seconds(since: $0) < vs.duration - 0.05 }
                            ?? false
                    })
                {
                    (j, into) = (k, p.seconds(since: v.segments[k].effectiveProgramDateTime!))
                } else if !m.isLive, let k = Timeline.segmentIndex(at: starts[i] + 0.01, in: v) {
                    (j, into) = (k, starts[i] - vStarts[k])
                }
                if let j, let vu = resolve(v.segments[j].uri, against: media), !v.segments[j].gap {
                    // A byte-range segment is its range of the file (RFC 8216bis §4.4.4.2), not the file's start.
                    if files[vu] == nil { files[vu] = [UInt8](try await read(vu, req)) }
                    var bytes = files[vu] ?? []
                    if let r = v.segments[j].byteRange, r.offset + r.length <= bytes.count {
                        bytes = Array(bytes[r.offset..<(r.offset + r.length)])
                    }
                    if bytes.first == 0x47 {
                        at = TransportStream.probe(bytes).firstPTS.map { Double($0) / 90_000 + into }
                    } else if let map = v.segments[j].map, let mu = resolve(map.uri, against: media) {
                        if tracks[mu] == nil { tracks[mu] = FragmentedMP4.tracks(initSection: [UInt8](try await read(mu, req))) }
                        at = FragmentedMP4.firstTime(segment: bytes, tracks: tracks[mu] ?? []).map { $0 + into }
                    }
                }
            }
            let cues =
                imsc
                ? ttml.map { $0.start...max($0.start, $0.end) }
                : doc.cues.map { doc.mediaTime($0.start)...max(doc.mediaTime($0.start), doc.mediaTime($0.end)) }
            var measured = SubtitleSegmentMeasure(
                msn: s.mediaSequence, position: starts[i], duration: s.duration, hasHeader: imsc || doc.hasHeader,
                hasMap: imsc || doc.timestampMap != nil, cues: cues, mediaTime: at)
            measured.imsc = imsc
            out.append(measured)
        }
        return SubtitleMeasure(
            name: name, segments: out, listed: m.segments.count, duration: m.totalDuration, mediaDuration: video?.totalDuration,
            targetDuration: m.targetDuration, live: m.isLive)
    }

    /// A segment's or init section's bytes, from a URL (the Loader's client) or a file.
    /// `range`: those bytes of it only.
    static func read(_ pathOrURL: String, range: ByteRange? = nil, _ req: InspectRequest) async throws(SourceError) -> Data {
        if PlaylistSource.isURL(pathOrURL) {
            return try await PlaylistSource.fetch(pathOrURL, range: range, timeout: req.timeout, upstream: req.upstream, client: req.client)
        }
        guard let d = FileManager.default.contents(atPath: pathOrURL) else { throw SourceError("\(pathOrURL): cannot be read") }
        guard let range else { return d }
        guard range.offset + range.length <= d.count else { throw SourceError("\(pathOrURL): shorter than the range") }
        return d.subdata(in: range.offset..<(range.offset + range.length))
    }

    /// An I-frame playlist's ranges read (all, or `sample` spread over them), each held to open with an independent frame
    /// (RFC 8216bis §4.4.3.6).
    static func measureIFrames(_ url: String, name: String, sample: Int?, variables: [String: String], _ req: InspectRequest)
        async throws(SourceError) -> IFrameMeasure
    {
        let text = try await PlaylistSource.load(url, timeout: req.timeout, upstream: req.upstream, client: req.client)
        guard let m = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: variables, url: url)).playlist.media
        else { throw SourceError("\(url): not a media playlist") }
        let segs = m.segments.filter { !$0.gap }
        let chosen: [Segment]
        if let n = sample, n > 0, n < segs.count {
            chosen = (0..<n).map { segs[$0 * (segs.count - 1) / max(1, n - 1)] }
        } else {
            chosen = segs
        }
        var out = IFrameMeasure(name: name, measured: 0, listed: segs.count)
        var tracks: [String: [MP4Track]] = [:]
        for s in chosen {
            guard let u = resolve(s.uri, against: url) else { continue }
            let bytes = [UInt8](try await read(u, range: s.byteRange, req))
            out.measured += 1
            let independent: Bool
            if let map = s.map, let mu = resolve(map.uri, against: url) {
                if tracks[mu] == nil { tracks[mu] = FragmentedMP4.tracks(initSection: [UInt8](try await read(mu, req))) }
                independent = FragmentSplit.opensWithSync(segment: bytes, tracks: tracks[mu] ?? []) ?? false
            } else {
                independent = TransportStream.opensIndependently(bytes) ?? false
            }
            if !independent { out.dependent.append(s.mediaSequence) }
        }
        return out
    }

    static func resolve(_ uri: String, against base: String) -> String? {
        if PlaylistSource.isURL(uri) { return uri }
        if PlaylistSource.isURL(base) { return URL(string: uri, relativeTo: URL(string: base))?.absoluteString }
        return URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent(uri).path
    }
}
