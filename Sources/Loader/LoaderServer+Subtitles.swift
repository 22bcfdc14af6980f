import HLS
import LoaderCore
import LoaderEvents
import NIOConcurrencyHelpers

/// The subtitle rendition shown is read by hlstui, not by the player (DECISIONS.md, "Subtitles read by hlstui"): these reads
/// are the Loader's own, in the request log like every request the origin sees.
extension LoaderServer {
    /// A subtitle rendition's media playlist at `url`, parsed with the multivariant playlist's variables; the URL it was read at
    /// (after redirects) comes back with it.
    public func readSubtitlePlaylist(_ url: String) async -> Result<(url: String, playlist: MediaPlaylist), UpstreamError> {
        let variables = table.withLockedValue { $0.variables }
        do throws(UpstreamError) {
            let r = try await read(url, kind: .media, rung: nil)
            guard r.head.status == 200 else { throw UpstreamError(cause: .protocolError, detail: "HTTP \(r.head.status)") }
            let parsed = PlaylistParser.parseLenient(
                String(decoding: r.body, as: UTF8.self), options: ParseOptions(importedVariables: variables, url: r.head.url))
            guard let m = parsed.playlist.media else {
                throw UpstreamError(cause: .protocolError, detail: "not a media playlist")
            }
            emit(.playlist(PlaylistEvent(url: r.head.url, rung: nil, rendition: "SUBTITLES", playlist: m, received: now)))
            return .success((r.head.url, m))
        } catch {
            return .failure(error)
        }
    }

    /// One subtitle segment, whole: a body that breaks is resumed from where it stopped, as the player's segments are.
    public func readSubtitleSegment(_ url: String, range: ByteRange?) async -> Result<[UInt8], UpstreamError> {
        let t0 = now
        let header = range.map { "bytes=\($0.offset)-\($0.offset + $0.length - 1)" }
        let r: UpstreamResponse
        do throws(UpstreamError) {
            r = try await client.getResuming(url, range: header, cache: .media, budget: 10)
        } catch {
            record(.segment, url, rung: nil, since: t0, status: 502, prefetch: true, outcome: .failed(error.description))
            return .failure(error)
        }
        let ok = (200..<300).contains(r.head.status)
        record(
            .segment, url, rung: nil, since: t0, head: r.head, bytes: r.body.count, status: r.head.status, prefetch: true,
            outcome: ok ? .ok : .failed("HTTP \(r.head.status)"), range: header)
        guard ok else { return .failure(UpstreamError(cause: .protocolError, detail: "HTTP \(r.head.status)")) }
        return .success(r.body)
    }
}
