import LoaderEvents
import Foundation
import LoaderCore
import NIOConcurrencyHelpers
import NIOCore

/// `get` through the disk cache (`--cache`, DECISIONS.md "The Loader's disk cache"): a hit is answered from disk with the head the
/// origin would have sent; a body cut off earlier is resumed with a Range request for the rest; a miss is kept as it streams.
extension UpstreamClient {
    func cached(
        _ cache: DiskCache, use: CacheUse, _ url: String, range: String?, keepBody: Int, retries: Int?, secret: Bool, within: Double?,
        onHead: @escaping @Sendable (UpstreamHead) -> Void,
        onBody: @escaping @Sendable (ByteBuffer) -> Void,
        onReadEnd: @escaping @Sendable () -> Void
    ) async throws(UpstreamError) -> UpstreamResponse {
        let offline = cache.options.offline
        func plain() async throws(UpstreamError) -> UpstreamResponse {
            try await network(
                url, range: range, keepBody: keepBody, retries: retries, secret: secret, within: within, onHead: onHead, onBody: onBody,
                onReadEnd: onReadEnd)
        }
        guard let span = RequestedSpan(range: range) else {
            if offline { throw UpstreamError(cause: .offline, detail: "\(url): range \(range ?? "") is not served offline") }
            return try await plain()
        }
        let start = options.clock.now
        // A span stored as the origin answered it, else the whole resource (the span cut out of it).
        let exact = cache.key(url, span: span)
        let whole = cache.key(url, span: .whole(asRange: false))
        if let hit = hit(cache, use: use, exact: exact, whole: whole, span: span, offline: offline) {
            var head = UpstreamHead(
                status: hit.status, headers: hit.headers, url: hit.url, redirects: 0, retries: 0, ttfb: options.clock.now - start)
            head.cache = .hit
            head.savedBytes = hit.body.count
            onHead(head)
            // Straight from the file's bytes into the buffers the player is sent, a megabyte at a time.
            var at = hit.body.startIndex
            while at < hit.body.endIndex {
                let end = min(at + 1_048_576, hit.body.endIndex)
                onBody(ByteBuffer(bytes: hit.body[at..<end]))
                at = end
            }
            onReadEnd()
            return UpstreamResponse(
                head: head, body: Array(hit.body.prefix(keepBody)), bytes: hit.body.count, seconds: options.clock.now - start)
        }
        if offline {
            throw UpstreamError(cause: .offline, detail: "\(url): not in the cache (--offline plays only what the cache holds)")
        }
        if use == .key {
            // Keys are small and sealed whole, never written as they stream.
            var r = try await plain()
            if r.head.status == 200 {
                cache.storeSealed(whole, meta: Self.meta(r.head, url: url, range: nil), clear: r.body)
            }
            r.head.cache = .miss
            return r
        }
        if use == .media, span == .whole(asRange: false) || span == .whole(asRange: true),
            case .partial(let name, let meta, let have) = cache.lookup(whole), have > 0
        {
            if let r = try await resume(
                cache, name: name, meta: meta, have: have, key: whole, url, span: span, keepBody: keepBody, retries: retries,
                secret: secret,
                onHead: onHead, onBody: onBody, onReadEnd: onReadEnd)
            {
                return r
            }
        }
        return try await miss(
            cache, use: use, key: exact, url, range: range, keepBody: keepBody, retries: retries, secret: secret, within: within,
            onHead: onHead, onBody: onBody, onReadEnd: onReadEnd)
    }

    /// What the cache can answer for `span` now: nil for a miss, a playlist that may still change (online), or a body that no
    /// longer reads (dropped).
    func hit(_ cache: DiskCache, use: CacheUse, exact: String, whole: String, span: RequestedSpan, offline: Bool) -> (
        status: Int, headers: [(String, String)], url: String, body: ArraySlice<UInt8>
    )? {
        for key in exact == whole ? [whole] : [exact, whole] {
            guard case .complete(let name, let meta) = cache.lookup(key) else { continue }
            if use == .playlist && !CachePolicy.servesPlaylist(final: meta.final, offline: offline) { return nil }
            guard let all = try? cache.body(name, meta: meta) else {
                cache.remove(key)
                continue
            }
            if key != whole { return (meta.status, meta.headerPairs, meta.url, all[...]) }
            guard let h = CachePolicy.head(headers: meta.headerPairs, length: all.count, span: span), let b = span.bounds(length: all.count)
            else { return nil }
            return (h.status, h.headers, meta.url, all[b])
        }
        return nil
    }

    static func feed(_ bytes: ArraySlice<UInt8>, to onBody: @Sendable (ByteBuffer) -> Void) {
        var at = bytes.startIndex
        while at < bytes.endIndex {
            let end = min(at + 65_536, bytes.endIndex)
            onBody(ByteBuffer(bytes: bytes[at..<end]))
            at = end
        }
    }

    /// Asks the origin and keeps the answer as it streams; a body cut off keeps what arrived.
    func miss(
        _ cache: DiskCache, use: CacheUse, key: String, _ url: String, range: String?, keepBody: Int, retries: Int?, secret: Bool,
        within: Double?,
        onHead: @escaping @Sendable (UpstreamHead) -> Void,
        onBody: @escaping @Sendable (ByteBuffer) -> Void,
        onReadEnd: @escaping @Sendable () -> Void
    ) async throws(UpstreamError) -> UpstreamResponse {
        let writer = NIOLockedValueBox<CacheWriter?>(nil)
        let keepAll = use == .playlist ? Int.max : keepBody
        do throws(UpstreamError) {
            var r = try await network(
                url, range: range, keepBody: keepAll, retries: retries, secret: secret, within: within,
                onHead: { h in
                    if h.status == 200 || h.status == 206 {
                        writer.withLockedValue { $0 = cache.writer(key, meta: Self.meta(h, url: url, range: range), append: false) }
                    }
                    onHead(h)
                },
                onBody: { b in
                    writer.withLockedValue { $0 }?.append(b)
                    onBody(b)
                }, onReadEnd: onReadEnd)
            if let w = writer.withLockedValue({ $0 }) {
                w.complete(final: use == .playlist && CachePolicy.isFinal(playlist: r.body))
            } else if use == .playlist, r.head.status == 200,
                let w = cache.writer(key, meta: Self.meta(r.head, url: url, range: range), append: false)
            {
                // Not streamed (a playlist is read whole): kept now.
                w.append(ByteBuffer(bytes: r.body))
                w.complete(final: CachePolicy.isFinal(playlist: r.body))
            }
            if r.body.count > keepBody { r.body = Array(r.body.prefix(keepBody)) }
            r.head.cache = .miss
            return r
        } catch {
            writer.withLockedValue { $0 }?.cut()
            throw error
        }
    }

    /// Serves the bytes a cut body kept and asks only for the rest (`Range: bytes=N-`, with `If-Range` when the origin gave a
    /// validator). Nil when the origin will not resume it (another length, no 206): the partial is dropped and the caller asks
    /// for the whole.
    func resume(
        _ cache: DiskCache, name: String, meta: CacheMeta, have: Int, key: String, _ url: String, span: RequestedSpan, keepBody: Int,
        retries: Int?, secret: Bool,
        onHead: @escaping @Sendable (UpstreamHead) -> Void,
        onBody: @escaping @Sendable (ByteBuffer) -> Void,
        onReadEnd: @escaping @Sendable () -> Void
    ) async throws(UpstreamError) -> UpstreamResponse? {
        guard let data = try? DiskCache.read(cache.path(name, "body")), data.count >= have else {
            cache.remove(key)
            return nil
        }
        let prefix = Array(data.prefix(have))
        let validator = meta.etag ?? meta.lastModified
        let writer = NIOLockedValueBox<CacheWriter?>(nil)
        let refused = NIOLockedValueBox(false)
        let shownHead = NIOLockedValueBox<(Int, [(String, String)])?>(nil)
        do throws(UpstreamError) {
            var r = try await network(
                url, range: "bytes=\(have)-", extraHeaders: validator.map { [("If-Range", $0)] } ?? [], keepBody: keepBody,
                retries: retries,
                secret: secret,
                onHead: { h in
                    let cr = ContentRange(h.header("content-range"))
                    guard h.status == 206, let cr, cr.first == have, let total = cr.total, meta.length == nil || meta.length == total,
                        let w = cache.writer(key, meta: Self.resumed(meta, h, total: total), append: true),
                        let shown = CachePolicy.head(headers: h.headers, length: total, span: span)
                    else {
                        refused.withLockedValue { $0 = true }
                        return
                    }
                    writer.withLockedValue { $0 = w }
                    shownHead.withLockedValue { $0 = (shown.status, shown.headers) }
                    var head = h
                    (head.status, head.headers, head.cache, head.savedBytes) = (shown.status, shown.headers, .resumed, have)
                    onHead(head)
                    Self.feed(prefix[...], to: onBody)
                },
                onBody: { b in
                    guard let w = writer.withLockedValue({ $0 }) else { return }
                    w.append(b)
                    onBody(b)
                }, onReadEnd: onReadEnd)
            guard let w = writer.withLockedValue({ $0 }), !refused.withLockedValue({ $0 }) else {
                // Not a resumption of these bytes (a 200, another length, an error status): start again from nothing.
                cache.remove(key)
                return nil
            }
            w.complete(final: false)
            if let (status, headers) = shownHead.withLockedValue({ $0 }) { (r.head.status, r.head.headers) = (status, headers) }
            r.head.cache = .resumed
            r.head.savedBytes = have
            r.body = Array((prefix + r.body).prefix(keepBody))
            r.bytes += have
            return r
        } catch {
            if let w = writer.withLockedValue({ $0 }) {
                w.cut()
            } else if refused.withLockedValue({ $0 }) {
                cache.remove(key)
            }
            throw error
        }
    }

    static func meta(_ h: UpstreamHead, url: String, range: String?) -> CacheMeta {
        // A `bytes=0-` answer is the whole resource: its length is the Content-Range total.
        let whole = h.status == 206 && RequestedSpan(range: range) == .whole(asRange: true)
        let length = whole ? ContentRange(h.header("content-range"))?.total : h.header("content-length").flatMap { Int($0) }
        return CacheMeta(
            url: url, status: h.status, headers: h.headers.map { [$0.0, $0.1] }, length: length, complete: false, final: false,
            sealed: false,
            etag: h.header("etag"), lastModified: h.header("last-modified"))
    }

    static func resumed(_ m: CacheMeta, _ h: UpstreamHead, total: Int) -> CacheMeta {
        var out = m
        out.length = total
        out.etag = h.header("etag") ?? m.etag
        out.lastModified = h.header("last-modified") ?? m.lastModified
        return out
    }
}
