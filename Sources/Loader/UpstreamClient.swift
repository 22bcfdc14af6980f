import LoaderEvents
import LoaderCore
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// How the Loader talks to origins.
public struct UpstreamOptions: Sendable {
    public var userAgent = "hlstui/0.1"
    /// Extra request headers (`--header "Name: value"`), e.g. tokens or cookies.
    public var headers: [(String, String)] = []
    public var connectTimeout: Double = 5
    /// Seconds without a byte before a response is abandoned.
    public var readTimeout: Double = 10
    /// Retries for failed connections and 5xx answers (GET is idempotent), with doubling backoff from `retryBackoff`.
    public var retries = 2
    public var retryBackoff: Double = 0.2
    public var maxRedirects = 5
    public var tls = TLSOptions()
    /// Sees every exchange with an origin, each attempt on its own, with its whole body (a recording, `--record`).
    public var tap: (@Sendable (UpstreamExchange) -> Void)?
    /// The disk cache (`--cache`), shared by every client of the session.
    public var cache: DiskCache?
    /// The time retries, resumption and every duration are kept in (real time unless a test gives its own).
    public var clock: any LoaderClock = SystemClock()
    /// How an exchange reaches an origin: nil is the network (TCP, TLS); a test may answer in memory (`UpstreamTransport`).
    public var transport: (any UpstreamTransport)?
    /// What each request carries on the wire besides, by the URL it asks for (CMCD, docs/CMCD.md); the cache, the recording
    /// and the request log keep the URL as asked.
    public var decorate: (@Sendable (String) -> WireDecoration?)?
    public init() {}
}

/// Headers and a query argument one request carries on the wire, and one line saying what they were for the request log.
public struct WireDecoration: Sendable {
    public var headers: [(String, String)]
    /// `name=value`, percent-encoded, added to the URL's query.
    public var query: String?
    public var label: String

    public init(headers: [(String, String)] = [], query: String? = nil, label: String) {
        self.headers = headers
        self.query = query
        self.label = label
    }

    /// `url` with the query argument added.
    public func applied(to url: String) -> String {
        guard let query else { return url }
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        let base = url[..<hash]
        return base + (base.contains("?") ? "&" : "?") + query + url[hash...]
    }
}

/// Why an upstream request failed, in one line naming the cause.
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    public enum Cause: String, Sendable {
        case connect, timeout, truncated, tls, redirect, protocolError = "protocol", badURL = "url", offline
        /// Bytes kept coming, but the body did not arrive whole in the time it had (`get(whole:)`).
        case slow
    }
    public var cause: Cause
    public var detail: String
    /// What came before the failure, when an answer had begun (a truncated body): its head and the bytes received.
    public var head: UpstreamHead?
    public var partial: [UInt8] = []
    public var description: String { detail }

    public init(cause: Cause, detail: String) {
        self.cause = cause
        self.detail = detail
    }
}

/// An upstream answer's head and timing.
public struct UpstreamHead: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    /// The URL finally answered, after redirects.
    public var url: String
    public var redirects: Int
    public var retries: Int
    /// Seconds from the request to the first byte of the answer.
    public var ttfb: Double
    /// With `--cache`: how the cache took part, and the bytes it saved asking for.
    public var cache: CacheOutcome?
    public var savedBytes = 0
    /// Answered from a read the Loader had just made itself (a prewarmed playlist): no request went to the origin for it.
    public var reused = false
    /// What the request carried on the wire besides (`WireDecoration.label`: the CMCD sent).
    public var sent: String?

    public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// The status with its reason phrase, as a one-line cause ("HTTP 404 Not Found").
    public var statusLine: String { "HTTP \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)" }
}

/// A finished upstream request: head, body and totals.
public struct UpstreamResponse: Sendable {
    public var head: UpstreamHead
    /// The body, or its first `keepBody` bytes.
    public var body: [UInt8]
    /// Bytes received in all.
    public var bytes: Int
    public var seconds: Double
}

/// A small HTTP/1.1 client on SwiftNIO: keep-alive connection reuse per origin, bounded redirects, timeouts, retries with backoff,
/// custom headers, and TLS checked by `TLSVerifier` so every refusal names its cause.
public final class UpstreamClient: Sendable {
    public let options: UpstreamOptions
    let group: any EventLoopGroup
    let verifier: TLSVerifier?
    let sslContext: NIOSSLContext?
    let pool = NIOLockedValueBox(Pool())

    /// Idle connections by origin, and every connection open (idle or in use), so `shutdown` closes them all.
    struct Pool {
        var idle: [String: [any Channel]] = [:]
        var open: [ObjectIdentifier: any Channel] = [:]
        var closed = false
    }

    public init(group: any EventLoopGroup, options: UpstreamOptions = UpstreamOptions()) throws {
        self.group = group
        self.options = options
        let v = try TLSVerifier(options: options.tls)
        verifier = options.tls.insecure ? nil : v
        sslContext = try v.context()
    }

    struct Target {
        var tls: Bool
        var host: String
        var port: Int
        var pathAndQuery: String
        var key: String { "\(tls ? "https" : "http")://\(host):\(port)" }
    }

    static func target(_ url: String) throws(UpstreamError) -> Target {
        guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = u.host, !host.isEmpty
        else {
            throw UpstreamError(cause: .badURL, detail: "\(url): not an http(s) URL")
        }
        let tls = scheme == "https"
        var path = u.percentEncodedPath.isEmpty ? "/" : u.percentEncodedPath
        if let q = u.percentEncodedQuery { path += "?" + q }
        return Target(tls: tls, host: host, port: u.port ?? (tls ? 443 : 80), pathAndQuery: path)
    }

    /// GETs `url`, following redirects and retrying; `onHead` and `onBody` see a successful (2xx) answer as it arrives, `onReadEnd`
    /// after each batch of reads. An error status is retried (5xx) and returned, never streamed: the caller answers for it once.
    /// With a disk cache, `cache` says what the answer is for (UpstreamClient+Cache.swift). `whole`: the body must arrive whole
    /// within the read timeout of its head — by default for playlists and keys, which a reader waits for whole (DECISIONS.md,
    /// "A playlist arrives whole within the read timeout").
    public func get(
        _ url: String, range: String? = nil, keepBody: Int = Int.max, retries: Int? = nil, secret: Bool = false,
        cache use: CacheUse = .none, whole: Bool? = nil,
        onHead: @escaping @Sendable (UpstreamHead) -> Void = { _ in },
        onBody: @escaping @Sendable (ByteBuffer) -> Void = { _ in },
        onReadEnd: @escaping @Sendable () -> Void = {}
    ) async throws(UpstreamError) -> UpstreamResponse {
        let within = whole ?? (use == .playlist || use == .key) ? options.readTimeout : nil
        if let cache = options.cache, use != .none || cache.options.offline {
            return try await cached(
                cache, use: use, url, range: range, keepBody: keepBody, retries: retries, secret: secret, within: within, onHead: onHead,
                onBody: onBody, onReadEnd: onReadEnd)
        }
        return try await network(
            url, range: range, keepBody: keepBody, retries: retries, secret: secret, within: within, onHead: onHead, onBody: onBody,
            onReadEnd: onReadEnd)
    }

    /// `get` from the origin itself.
    func network(
        _ url: String, range: String?, extraHeaders: [(String, String)] = [], keepBody: Int, retries: Int?, secret: Bool,
        within: Double? = nil,
        onHead: @escaping @Sendable (UpstreamHead) -> Void,
        onBody: @escaping @Sendable (ByteBuffer) -> Void,
        onReadEnd: @escaping @Sendable () -> Void
    ) async throws(UpstreamError) -> UpstreamResponse {
        // Once a head went to the caller the answer cannot start again: a truncated stream is not retried.
        let streamed = NIOLockedValueBox(false)
        let streaming = Streaming(
            onHead: { h in
                streamed.withLockedValue { $0 = true }; onHead(h)
            }, onBody: onBody, onReadEnd: onReadEnd)
        var current = url
        var redirects = 0
        var attempt = 0
        let start = options.clock.now
        while true {
            if Task.isCancelled { throw UpstreamError(cause: .connect, detail: "\(url): cancelled") }
            do {
                let r = try await once(
                    current, range: range, extraHeaders: extraHeaders, start: start, redirects: redirects, retries: attempt,
                    keepBody: keepBody, secret: secret, within: within,
                    streaming: streaming)
                if [301, 302, 303, 307, 308].contains(r.head.status), let loc = r.head.header("location") {
                    redirects += 1
                    guard redirects <= options.maxRedirects else {
                        throw UpstreamError(cause: .redirect, detail: "\(url): more than \(options.maxRedirects) redirects")
                    }
                    current = URL(string: loc, relativeTo: URL(string: current))?.absoluteString ?? loc
                    continue
                }
                let allowed = retries ?? options.retries
                if r.head.status >= 500 && attempt < allowed {
                    attempt += 1
                    await options.clock.sleep(options.retryBackoff * Double(1 << (attempt - 1)))
                    continue
                }
                return r
            } catch let e as UpstreamError {
                // Retry what may pass on a second try; never TLS refusals or bad URLs.
                if (e.cause == .connect || (e.cause == .truncated && !streamed.withLockedValue { $0 }))
                    && attempt < (retries ?? options.retries)
                {
                    attempt += 1
                    await options.clock.sleep(options.retryBackoff * Double(1 << (attempt - 1)))
                    continue
                }
                throw e
            } catch {
                throw UpstreamError(cause: .protocolError, detail: "\(url): \(error)")
            }
        }
    }

    func once(
        _ url: String, range: String?, extraHeaders: [(String, String)], start: Double, redirects: Int, retries: Int, keepBody: Int,
        secret: Bool, within: Double?,
        streaming: Streaming
    ) async throws -> UpstreamResponse {
        guard let tap = options.tap else {
            return try await attempt(
                url, range: range, extraHeaders: extraHeaders, start: start, redirects: redirects, retries: retries, keepBody: keepBody,
                within: within, streaming: streaming)
        }
        // Recorded: the whole body is kept for the recording, the caller still gets what it asked to keep.
        let sent = Date()
        let sentAt = options.clock.now
        func record(_ head: UpstreamHead?, _ body: [UInt8], bytes: Int, failure: UpstreamError?) {
            tap(
                UpstreamExchange(
                    url: url, range: range, attempt: retries, secret: secret, sent: sent.timeIntervalSince1970, status: head?.status,
                    headers: head?.headers ?? [], ttfb: head?.ttfb, seconds: options.clock.now - sentAt, bytes: bytes,
                    failure: failure?.cause.rawValue, detail: failure?.detail, body: body))
        }
        do {
            var r = try await attempt(
                url, range: range, extraHeaders: extraHeaders, start: start, redirects: redirects, retries: retries, keepBody: .max,
                within: within, streaming: streaming)
            record(r.head, r.body, bytes: r.bytes, failure: nil)
            if r.body.count > keepBody { r.body = Array(r.body.prefix(keepBody)) }
            return r
        } catch let e as UpstreamError {
            record(e.head, e.partial, bytes: e.partial.count, failure: e)
            throw e
        } catch {
            record(nil, [], bytes: 0, failure: UpstreamError(cause: .protocolError, detail: "\(url): \(error)"))
            throw error
        }
    }

    func attempt(
        _ url: String, range: String?, extraHeaders: [(String, String)], start: Double, redirects: Int, retries: Int, keepBody: Int,
        within: Double?, streaming: Streaming
    ) async throws -> UpstreamResponse {
        let t = try UpstreamClient.target(url)
        do {
            return try await exchange(
                url, t, range: range, extraHeaders: extraHeaders, start: start, redirects: redirects, retries: retries, keepBody: keepBody,
                within: within, streaming: streaming)
        } catch let e as UpstreamError where t.tls && e.cause == .connect && !e.detail.contains("client certificate") {
            // A TLS 1.3 server that refuses a client certificate may just close after the handshake: say what that can mean.
            let hint =
                options.tls.clientCertificate == nil
                ? "if the origin requires a client certificate, give one with --client-cert FILE.p12"
                : "the origin may have refused our client certificate"
            throw UpstreamError(cause: e.cause, detail: "\(e.detail) (\(hint))")
        }
    }

    func exchange(
        _ url: String, _ t: Target, range: String?, extraHeaders: [(String, String)], start: Double, redirects: Int, retries: Int,
        keepBody: Int, within: Double?,
        streaming: Streaming
    ) async throws -> UpstreamResponse {
        let decoration = options.decorate?(url)
        if let transport = options.transport {
            var headers: [(String, String)] = [("User-Agent", options.userAgent), ("Accept", "*/*")]
            if let range { headers.append(("Range", range)) }
            headers += options.headers + extraHeaders + (decoration?.headers ?? [])
            let exchange = Exchange(
                url: url, redirects: redirects, retries: retries, sent: options.clock.now, clock: options.clock, keepBody: keepBody,
                streaming: streaming, decoration: decoration?.label, within: within, stallAfter: Self.stallAfter)
            let wire = decoration?.applied(to: url) ?? url
            var r = try await exchange.run(
                transport.send(UpstreamRequest(url: wire, headers: headers, stallAfter: Self.stallAfter), readTimeout: options.readTimeout))
            r.seconds = options.clock.now - start
            return r
        }
        let channel = try await connection(t, url: url)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: t.port == (t.tls ? 443 : 80) ? t.host : "\(t.host):\(t.port)")
        headers.add(name: "User-Agent", value: options.userAgent)
        headers.add(name: "Accept", value: "*/*")
        headers.add(name: "Connection", value: "keep-alive")
        if let range { headers.add(name: "Range", value: range) }
        for (k, v) in options.headers + extraHeaders + (decoration?.headers ?? []) { headers.add(name: k, value: v) }
        let exchange = Exchange(
            url: url, redirects: redirects, retries: retries, sent: options.clock.now, clock: options.clock, keepBody: keepBody,
            streaming: streaming, decoration: decoration?.label, within: within, stallAfter: Self.stallAfter)
        // Look the handler up first: on a connection that closed meanwhile this throws, and a promise made before it would leak (a NIO trap).
        let handler: UpstreamHandler
        do { handler = try await channel.pipeline.handler(type: UpstreamHandler.self).get() } catch {
            channel.close(promise: nil)
            throw UpstreamError(cause: .connect, detail: "\(url): the connection closed before the request")
        }
        let promise = channel.eventLoop.makePromise(of: UpstreamResponse.self)
        let head = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: decoration?.applied(to: t.pathAndQuery) ?? t.pathAndQuery, headers: headers)
        channel.eventLoop.execute {
            handler.start(exchange, promise: promise)
            guard channel.isActive else {
                let why = handler.lastError.withLockedValue { $0 }
                handler.finish(
                    .failure(
                        UpstreamError(
                            cause: why?.hasPrefix("TLS") == true ? .tls : .connect,
                            detail: "\(url): " + (why ?? "the connection closed before the request"))))
                return
            }
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            let written = channel.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenFailure { _ in
                handler.finish(.failure(UpstreamError(cause: .connect, detail: "\(url): the request could not be sent")))
            }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: written)
        }
        do {
            // A cancelled task (a Loader stopping, a player gone) ends its exchange at once: the connection closes.
            var r = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            r.seconds = options.clock.now - start
            if handler.reusable { release(channel, key: t.key) } else { channel.close(promise: nil) }
            return r
        } catch {
            channel.close(promise: nil)
            throw error
        }
    }

    /// An idle pooled connection to the origin, or a new one.
    func connection(_ t: Target, url: String) async throws -> any Channel {
        while let c = pool.withLockedValue({ p -> (any Channel)? in p.idle[t.key]?.popLast() }) {
            if c.isActive { return c }
        }
        guard !pool.withLockedValue({ $0.closed }) else {
            throw UpstreamError(cause: .connect, detail: "\(url): the client was shut down")
        }
        let verifier = self.verifier
        let ssl = t.tls ? sslContext : nil
        let readTimeout = options.readTimeout
        let host = t.host
        let verifyFailure = NIOLockedValueBox<TLSFailure?>(nil)
        let waiter = HandshakeWaiter()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.milliseconds(Int64(options.connectTimeout * 1000)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 16_384, maximum: 262_144))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let ssl {
                        let handler: NIOSSLClientHandler
                        let sni = host.allSatisfy({ $0.isNumber || $0 == "." || $0 == ":" }) ? nil : host
                        if let verifier {
                            handler = try NIOSSLClientHandler(context: ssl, serverHostname: sni) { chain, promise in
                                let p = promise
                                Task {
                                    if let failure = await verifier.verify(chain, host: host) {
                                        verifyFailure.withLockedValue { $0 = failure }
                                        p.succeed(.failed)
                                    } else {
                                        p.succeed(.certificateVerified)
                                    }
                                }
                            }
                        } else {
                            handler = try NIOSSLClientHandler(context: ssl, serverHostname: sni)
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(waiter)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        UpstreamHandler(verifyFailure: verifyFailure, readTimeout: .milliseconds(Int64(readTimeout * 1000))))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: t.host, port: t.port).get()
        } catch {
            throw UpstreamError(
                cause: .connect, detail: "\(url): cannot connect to \(t.host):\(t.port) (\(UpstreamClient.describe(error)))")
        }
        let id = ObjectIdentifier(channel)
        let kept = pool.withLockedValue { p -> Bool in
            guard !p.closed else { return false }
            p.open[id] = channel
            return true
        }
        guard kept else {
            channel.close(promise: nil)
            throw UpstreamError(cause: .connect, detail: "\(url): the client was shut down")
        }
        channel.closeFuture.whenComplete { [pool] _ in _ = pool.withLockedValue { $0.open.removeValue(forKey: id) } }
        guard t.tls else { return channel }
        // Wait for the handshake so a refused certificate is reported as such, not as a failed request; for no longer than
        // the read timeout (a server that accepts the connection and never answers the handshake was waited for forever).
        let handshakeDeadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(readTimeout * 1000))) {
            waiter.complete(HandshakeWaiter.NoAnswer(seconds: readTimeout))
        }
        do {
            try await waiter.future.get()
            handshakeDeadline.cancel()
            return channel
        } catch {
            handshakeDeadline.cancel()
            channel.close(promise: nil)
            if let f = verifyFailure.withLockedValue({ $0 }) { throw UpstreamError(cause: .tls, detail: "\(url): \(f)") }
            if let e = error as? HandshakeWaiter.NoAnswer {
                throw UpstreamError(cause: .timeout, detail: "\(url): no answer to the TLS handshake within \(Int(e.seconds.rounded())) s")
            }
            throw UpstreamError(cause: .tls, detail: "\(url): TLS handshake failed (\(error))")
        }
    }

    func release(_ c: any Channel, key: String) {
        let keep = pool.withLockedValue { p -> Bool in
            var list = p.idle[key] ?? []
            guard !p.closed, list.count < 8 else { return false }
            list.append(c)
            p.idle[key] = list
            return true
        }
        if !keep { c.close(promise: nil) }
    }

    static func describe(_ error: any Error) -> String {
        let s = "\(error)"
        if s.contains("connectTimeout") { return "connection timed out" }
        if s.contains("connection refused") || s.contains("Connection refused") || s.contains("ECONNREFUSED") {
            return "connection refused"
        }
        return s
    }

    /// Closes every connection, idle or in use (a request in flight fails), and opens no new one.
    public func shutdown() {
        let all = pool.withLockedValue { p -> [any Channel] in
            p.closed = true
            p.idle = [:]
            return Array(p.open.values)
        }
        for c in all { c.close(promise: nil) }
    }

    /// Returns once every connection the client opened is closed.
    public func closed() async {
        for c in pool.withLockedValue({ Array($0.open.values) }) { try? await c.closeFuture.get() }
    }

    /// How many connections are open (for tests: none after `shutdown`).
    public var openConnections: Int { pool.withLockedValue { $0.open.count } }
}
