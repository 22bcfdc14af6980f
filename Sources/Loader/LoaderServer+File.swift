import LoaderEvents
import Foundation
import HLS
import LoaderCore
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore

/// What the Loader learned of a progressive file when it opened it.
public struct ProgressiveFile: Sendable, Equatable {
    public var length: Int
    public var layout: MP4Layout
    /// The origin answers Range requests with the whole file (200): the player cannot seek, the cache keeps it only whole.
    public var ignoresRange: Bool

    /// A URL whose path names an MP4 file.
    public static func named(_ url: String) -> Bool {
        let path = (URLComponents(string: url)?.path ?? url).lowercased()
        return [".mp4", ".m4v", ".m4a", ".mov"].contains(where: path.hasSuffix)
    }
}

/// A progressive file's length and type, as the origin gave them.
struct RemoteFile: Sendable {
    var length: Int
    var contentType: String?
    var ignoresRange = false
}

/// Why a range of a progressive file could not be read: the status the player is given and the one-line cause.
struct FileFailure: Error {
    var status: Int
    var cause: String
}

/// A progressive file played through the Loader (DECISIONS.md "Progressive files"): the player's range requests are served
/// piece by piece — the pieces the disk cache holds from disk, the rest asked of the origin by Range, 256 kB first, then
/// doubling up to 4 MB — each piece sent only once the player took in the one before (its connection is the back-pressure: a
/// player that stops reading, or closes to seek, stops the reading upstream within one piece).
extension LoaderServer {
    /// The first piece asked of the origin for one of the player's requests, and the largest (pieces double in between).
    static let filePieces = (first: 256 << 10, largest: 4 << 20)

    /// Opens a progressive file: its length from the first range, its layout from a few more (`MP4Layout.scan`); the player
    /// is then given the file itself, and hlstui a one-segment playlist that stands for it.
    func openFile(_ url: String) async throws(UpstreamError) -> OpenedStream {
        func read(_ r: Range<Int>) async throws(UpstreamError) -> [UInt8] {
            let got = NIOLockedValueBox<[UInt8]>([])
            do {
                try await pump(url, r, prefetch: true) { b in
                    got.withLockedValue { $0 += b.readableBytesView }
                } drained: {
                    true
                }
            } catch {
                throw UpstreamError(cause: error.status == 504 ? .offline : .protocolError, detail: error.cause)
            }
            return got.withLockedValue { $0 }
        }
        let first = try await read(0..<65_536)
        guard let remote = table.withLockedValue({ $0.files[url] }) else {
            throw UpstreamError(cause: .protocolError, detail: "\(url): the origin did not say the file's length")
        }
        let layout = try await MP4Layout.scan(size: remote.length, first: first) { r throws(UpstreamError) in try await read(r) }
        guard layout.startsLikeMP4 else {
            throw UpstreamError(cause: .protocolError, detail: "\(url): not an MP4 file (no ftyp, moov or mdat box at its start)")
        }
        if layout.moov == nil {
            throw UpstreamError(cause: .protocolError, detail: "\(url): no moov box: no player can play this file")
        }
        if let b = layout.broken { throw UpstreamError(cause: .protocolError, detail: "\(url): \(b)") }
        // What costs the player, said once as the file opens.
        if remote.ignoresRange {
            emit(
                .diagnostic(
                    "\(url): the origin answers Range requests with the whole file (200): the player cannot seek, nor resume a cut download"
                ))
        }
        if let m = layout.moov, layout.moovFirst == false {
            emit(
                .diagnostic(
                    "\(url): moov at the end: the player needs a second round trip (bytes=\(m.offset)-\(m.offset + m.size - 1)) before its first frame"
                ))
        }
        // The playlist hlstui reads: one segment, the whole file (RFC 8216bis §4.4.3.5: a VOD playlist that ended).
        var media = MediaPlaylist()
        let seconds = layout.duration ?? 0
        media.targetDuration = max(1, Int(seconds.rounded(.up)))
        media.playlistType = "VOD"
        media.endList = true
        media.segments = [Segment(uri: url, duration: seconds)]
        var playlist = Playlist(body: .media(media))
        playlist.version = 3
        // The movie timeline starts at 0 (ISO/IEC 14496-12 §8.6.1): the player's time is the file's time.
        emit(.firstPTS(rung: 0, msn: 0, seconds: 0))
        var opened = OpenedStream(playerURL: "", url: url, playlist: playlist, diagnostics: [])
        opened.file = ProgressiveFile(length: remote.length, layout: layout, ignoresRange: remote.ignoresRange)
        return opened
    }

    /// Answers one of the player's requests for a progressive file (a Range or the whole).
    func file(_ res: Resource, range: String?, writer: ResponseWriter) async {
        let url = res.upstream
        guard let remote = table.withLockedValue({ $0.files[url] }) else {
            writer.text(404, "hlstui loader: no such file")
            return
        }
        guard let span = RequestedSpan(range: range), let bounds = span.bounds(length: remote.length),
            let head = CachePolicy.head(
                headers: [("Content-Type", remote.contentType ?? "video/mp4"), ("Accept-Ranges", "bytes")], length: remote.length,
                span: span)
        else {
            writer.send(416, [("Content-Range", "bytes */\(remote.length)")], [])
            return
        }
        let headSent = NIOLockedValueBox(false)
        do throws(FileFailure) {
            try await pump(url, bounds, prefetch: false) { b in
                if !headSent.withLockedValue({ s in
                    defer { s = true }
                    return s
                }) {
                    writer.head(head.status, headers: head.headers)
                }
                writer.chunk(b)
            } drained: {
                await writer.drained()
            }
            if !headSent.withLockedValue({ $0 }) { writer.head(head.status, headers: head.headers) }
            writer.end()
        } catch {
            // Nothing sent yet: the player gets the status and the cause; else a cut body, as the origin's would be.
            writer.abort(error.status, "hlstui loader: \(error.cause)")
        }
    }

    /// Reads `r` of the file at `url` piece by piece into `deliver`, awaiting `drained` after each piece (false: the reader
    /// went away, nothing more is read); each piece is one request event.
    func pump(
        _ url: String, _ r: Range<Int>, prefetch: Bool, deliver: @escaping @Sendable (ByteBuffer) -> Void,
        drained: () async -> Bool
    ) async throws(FileFailure) {
        let store = options.upstream.cache?.spanFile(url)
        let offline = options.upstream.cache?.options.offline ?? false
        if let store, let length = store.length, table.withLockedValue({ $0.files[url] }) == nil, offline || store.spans.covers(r) {
            // What an earlier session read says the file's length (offline, or a read the cache holds whole).
            table.withLockedValue { $0.files[url] = RemoteFile(length: length, contentType: store.contentType) }
        }
        let plan = (store?.spans ?? SpanSet()).plan(r, first: Self.filePieces.first, largest: Self.filePieces.largest)
        for piece in plan {
            let t0 = now
            switch piece {
            case .held(let p):
                guard let bytes = store?.read(p) else {
                    try await fetch(url, p, store: store, offline: offline, prefetch: prefetch, deliver: deliver)
                    break
                }
                deliver(ByteBuffer(bytes: bytes))
                var head = UpstreamHead(status: 206, headers: [], url: url, redirects: 0, retries: 0, ttfb: 0)
                (head.cache, head.savedBytes) = (.hit, bytes.count)
                record(
                    .file, url, rung: 0, since: t0, head: head, bytes: bytes.count, status: 206, prefetch: prefetch, outcome: .ok,
                    range: Self.rangeText(p))
            case .fetch(let p):
                try await fetch(url, p, store: store, offline: offline, prefetch: prefetch, deliver: deliver)
            }
            guard await drained() else { return }
        }
    }

    static func rangeText(_ r: Range<Int>) -> String { "bytes=\(r.lowerBound)-\(r.upperBound - 1)" }

    /// Asks the origin for `r` (a piece of the file), keeping what arrives in the cache and handing the bytes inside `r` on;
    /// learns the file's length from the answer. An origin that ignores Range sends the whole file: what falls in `r` is used.
    func fetch(
        _ url: String, _ r: Range<Int>, store: SpanFile?, offline: Bool, prefetch: Bool, deliver: @escaping @Sendable (ByteBuffer) -> Void
    ) async throws(FileFailure) {
        let t0 = now
        let range = Self.rangeText(r)
        if offline {
            let cause = "\(url): \(range) not in the cache (--offline plays only what the cache holds)"
            record(.file, url, rung: 0, since: t0, status: 504, prefetch: prefetch, outcome: .failed(cause), range: range)
            throw FileFailure(status: 504, cause: cause)
        }
        let at = NIOLockedValueBox(r.lowerBound)
        let delivered = NIOLockedValueBox(0)
        var answer: UpstreamResponse
        do throws(UpstreamError) {
            answer = try await client.get(
                url, range: range, keepBody: 0,
                onHead: { [self] h in
                    let whole = h.status == 200
                    let cr = ContentRange(h.header("content-range"))
                    guard let length = whole ? h.header("content-length").flatMap({ Int($0) }) : cr?.total else { return }
                    at.withLockedValue { $0 = whole ? 0 : (cr?.first ?? r.lowerBound) }
                    table.withLockedValue {
                        $0.files[url] = RemoteFile(length: length, contentType: h.header("content-type"), ignoresRange: whole)
                    }
                    store?.learn(length: length, headers: h.headers)
                },
                onBody: { b in
                    let off = at.withLockedValue { a in
                        defer { a += b.readableBytes }
                        return a
                    }
                    if let store, b.withUnsafeReadableBytes({ store.write($0, at: off) }) {
                        self.tasks.spawn { await store.delayedSave() }
                    }
                    let lo = max(off, r.lowerBound)
                    let hi = min(off + b.readableBytes, r.upperBound)
                    if lo < hi, let slice = b.getSlice(at: b.readerIndex + lo - off, length: hi - lo) {
                        delivered.withLockedValue { $0 += slice.readableBytes }
                        deliver(slice)
                    }
                })
        } catch {
            store?.save()
            record(
                .file, url, rung: 0, since: t0, head: error.head, status: 502, prefetch: prefetch, outcome: .failed(error.description),
                range: range)
            throw FileFailure(status: error.cause == .offline ? 504 : 502, cause: error.description)
        }
        store?.save()
        if store != nil { answer.head.cache = .miss }
        func report(_ outcome: RequestOutcome) {
            record(
                .file, url, rung: 0, since: t0, head: answer.head, bytes: answer.bytes, status: answer.head.status, prefetch: prefetch,
                outcome: outcome, range: range)
        }
        guard (200..<300).contains(answer.head.status) else {
            report(.failed(answer.head.statusLine))
            throw FileFailure(status: answer.head.status, cause: "\(url): \(range): \(answer.head.statusLine)")
        }
        let got = delivered.withLockedValue { $0 }
        let length = table.withLockedValue { $0.files[url]?.length } ?? Int.max
        if got < r.count && r.upperBound <= length {
            report(.failed("\(got) of \(r.count) bytes"))
            throw FileFailure(status: 502, cause: "\(url): \(range): the origin sent \(got) of \(r.count) bytes")
        }
        report(.ok)
    }
}
