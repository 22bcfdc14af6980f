import Foundation
import HLS
import HLSReport
import JSONValue
import MediaFormats

/// `hlstui inspect --media`: the media read and measured against what the playlists declare (docs/VALIDATION.md): each
/// variant's segments (all, or `sample` spread over it), their peak and average bit rate against BANDWIDTH and
/// AVERAGE-BANDWIDTH, the video codec from the bytes against CODECS. A live playlist is measured over its current window.
enum InspectMedia {
    static func run(_ req: InspectRequest, text: String) async -> InspectOutcome {
        let parsed = PlaylistParser.parseLenient(text, options: ParseOptions(importedVariables: req.imports, url: req.source))
        var entries: [(index: Int, name: String, url: String, variant: Variant?)] = []
        if let m = parsed.playlist.multivariant {
            for (i, v) in m.variants.enumerated() {
                guard let u = resolve(v.uri, against: req.source) else { continue }
                entries.append((i, v.resolution.map { "\($0.height)p" } ?? "\((v.bandwidth ?? 0) / 1000)k", u, v))
            }
        } else {
            entries.append((0, "media playlist", req.source, nil))
        }
        var measures: [VariantMeasure] = []
        var errors: [String] = []
        for e in entries {
            do {
                var m = try await measure(e.url, sample: req.mediaSample, req)
                m.index = e.index
                m.name = e.name
                if let v = e.variant {
                    m.bandwidth = v.bandwidth
                    m.averageBandwidth = v.averageBandwidth
                    m.codecs = v.codecs
                    m.separateAudio =
                        v.audio.map { g in parsed.playlist.multivariant?.renditions.contains { $0.groupID == g && $0.uri != nil } ?? false }
                        ?? false
                }
                measures.append(m)
            } catch {
                errors.append("#\(e.index) \(e.name): \(error.description)")
            }
        }
        let findings = measures.flatMap(MediaChecks.findings)
        let status: Int32 = !errors.isEmpty && measures.isEmpty ? 2 : findings.contains(where: \.must) || !errors.isEmpty ? 1 : 0
        let errorLines = errors.map { "media: cannot measure \($0)" }
        if req.json {
            var doc = MediaChecks.json(measures)
            if case .object(var f) = doc {
                f.insert(("source", .string(req.source)), at: 0)
                f.append(("errors", .array(errors.map { .string($0) })))
                doc = .object(f)
            }
            return InspectOutcome(stdout: doc.prettyText + "\n", stderr: "", status: status)
        }
        return InspectOutcome(
            stdout: ([req.source] + MediaChecks.text(measures) + errorLines).joined(separator: "\n") + "\n", stderr: "", status: status)
    }

    /// One media playlist's segments measured: all of them, or `sample` spread evenly; sizes from EXT-X-BYTERANGE where it
    /// gives them, else from the bytes fetched.
    static func measure(_ url: String, sample: Int?, _ req: InspectRequest) async throws(SourceError) -> VariantMeasure {
        let text = try await PlaylistSource.load(url, timeout: req.timeout, upstream: req.upstream)
        guard let m = PlaylistParser.parseLenient(text, options: ParseOptions(url: url)).playlist.media else {
            throw SourceError("\(url): not a media playlist")
        }
        let segs = m.segments.filter { !$0.gap }
        guard !segs.isEmpty else { throw SourceError("\(url): no segments") }
        let chosen: [Segment]
        if let n = sample, n > 0, n < segs.count {
            chosen = (0..<n).map { segs[$0 * (segs.count - 1) / max(1, n - 1)] }
        } else {
            chosen = segs
        }
        var peak = 0.0
        var peakMSN: Int?
        var bytes = 0
        var seconds = 0.0
        var codec: String?
        for s in chosen {
            guard s.duration > 0, let u = resolve(s.uri, against: url) else { continue }
            let size: Int
            if let r = s.byteRange {
                size = r.length
            } else {
                let body = try await read(u, req)
                size = body.count
                if codec == nil, s.map == nil { codec = H264.codecString(annexB: [UInt8](body.prefix(65_536))) }
            }
            if codec == nil, let map = s.map, let mu = resolve(map.uri, against: url) {
                codec = H264.codecString(initSection: [UInt8](try await read(mu, req)))
            }
            let rate = Double(size * 8) / s.duration
            if rate > peak { (peak, peakMSN) = (rate, s.mediaSequence) }
            bytes += size
            seconds += s.duration
        }
        var v = VariantMeasure(
            index: 0, name: "", measured: chosen.count, listed: segs.count, peak: peak,
            average: seconds > 0 ? Double(bytes * 8) / seconds : 0)
        v.peakMSN = peakMSN
        v.videoCodec = codec
        return v
    }

    /// A segment's or init section's bytes, from a URL (the Loader's client) or a file.
    static func read(_ pathOrURL: String, _ req: InspectRequest) async throws(SourceError) -> Data {
        if PlaylistSource.isURL(pathOrURL) {
            return try await PlaylistSource.fetch(pathOrURL, timeout: req.timeout, upstream: req.upstream)
        }
        guard let d = FileManager.default.contents(atPath: pathOrURL) else { throw SourceError("\(pathOrURL): cannot be read") }
        return d
    }

    static func resolve(_ uri: String, against base: String) -> String? {
        if PlaylistSource.isURL(uri) { return uri }
        if PlaylistSource.isURL(base) { return URL(string: uri, relativeTo: URL(string: base))?.absoluteString }
        return URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent(uri).path
    }
}
