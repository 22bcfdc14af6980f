import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import HLS

/// The origin on 127.0.0.1: HTTP, and HTTPS with a self-signed certificate when asked.
public final class OriginServer: Sendable {
    /// What answers: the scenarios, or a recording.
    public let router: any OriginResponder
    public let httpPort: Int
    public let httpsPort: Int?
    public let identity: SelfSignedIdentity?
    let group: MultiThreadedEventLoopGroup
    let channels: [any Channel]

    /// The loopback addresses plain HTTP answers on, all on the same port: the first is the origin's own; the others stand for
    /// other CDNs of the same streams (the `steered` scenario's pathways, per-host outages with `/control/fault?host=`).
    public static let hosts = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]

    /// Base URL for plain HTTP, e.g. `http://127.0.0.1:8080`.
    public var httpBase: String { "http://127.0.0.1:\(httpPort)" }
    /// Base URL for HTTPS, when enabled.
    public var httpsBase: String? { httpsPort.map { "https://127.0.0.1:\($0)" } }

    /// Binds and starts serving; port 0 picks a free port.
    public static func start(
        router: any OriginResponder, port: Int = 0, tls: Bool = false, tlsPort: Int = 0, threads: Int = 1,
        identity given: SelfSignedIdentity? = nil, clientCAs: [String]? = nil
    ) throws -> OriginServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        do {
            let http = try bind(group: group, router: router, host: hosts[0], port: port, ssl: nil)
            let bound = http.localAddress?.port ?? port
            let others = try hosts.dropFirst().map { try bind(group: group, router: router, host: $0, port: bound, ssl: nil) }
            var identity: SelfSignedIdentity?
            var https: (any Channel)?
            if tls {
                let id = try given ?? SelfSignedIdentity.make()
                identity = id
                https = try bind(
                    group: group, router: router, host: hosts[0], port: tlsPort, ssl: try id.serverContext(clientCAs: clientCAs))
            }
            return OriginServer(
                router: router, group: group, channels: [http] + others + (https.map { [$0] } ?? []), httpPort: bound,
                httpsPort: https?.localAddress?.port, identity: identity)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    init(
        router: any OriginResponder, group: MultiThreadedEventLoopGroup, channels: [any Channel], httpPort: Int, httpsPort: Int?,
        identity: SelfSignedIdentity?
    ) {
        self.router = router
        self.group = group
        self.channels = channels
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.identity = identity
    }

    static func bind(
        group: MultiThreadedEventLoopGroup, router: any OriginResponder, host: String, port: Int, ssl: NIOSSLContext?
    ) throws -> any Channel {
        try ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 8)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let ssl { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: ssl)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(OriginHTTPHandler(router: router, tls: ssl != nil))
                }
            }
            .bind(host: host, port: port).wait()
    }

    /// Stops listening and closes every connection.
    public func stop() {
        for c in channels { try? c.close().wait() }
        try? group.syncShutdownGracefully()
    }
}

/// Parses `bytes=a-b`, `bytes=a-`, `bytes=-n` against a body of `size` bytes (RFC 9110 §14.1.2).
func byteRange(_ header: String, size: Int) -> Range<Int>?? {
    guard header.hasPrefix("bytes="), !header.contains(",") else { return .some(nil) }
    let spec = header.dropFirst(6)
    let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return .some(nil) }
    if parts[0].isEmpty {
        guard let n = Int(parts[1]), n > 0 else { return .some(nil) }
        return .some(max(0, size - n)..<size)
    }
    guard let a = Int(parts[0]) else { return .some(nil) }
    let b = parts[1].isEmpty ? size - 1 : (Int(parts[1]) ?? -1)
    guard a < size, b >= a else { return nil }
    return .some(a..<min(size, b + 1))
}

/// One connection's handler: reads a request, asks the router, writes (or misbehaves as a fault says).
final class OriginHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let router: any OriginResponder
    let tls: Bool
    var head: HTTPRequestHead?

    init(router: any OriginResponder, tls: Bool) {
        self.router = router
        self.tls = tls
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let h = head else { return }
            head = nil
            handle(context: context, head: h)
        }
    }

    func handle(context: ChannelHandlerContext, head h: HTTPRequestHead) {
        let started = Date().timeIntervalSince1970
        let range = h.headers.first(name: "range")
        let userAgent = h.headers.first(name: "user-agent")
        let requestHeaders = h.headers.map { ($0.name, $0.value) }
        var request = OriginRequest(method: h.method.rawValue, target: h.uri, range: range, tls: tls)
        request.authority = h.headers.first(name: "host")
        let req = request
        let framed = OriginHTTP.frame(
            router.respond(req, now: started), target: h.uri, range: range, ifRange: h.headers.first(name: "if-range"),
            generation: router.state.startedAt)
        let r = framed.response
        let status = HTTPResponseStatus(statusCode: r.status)
        let body = r.body
        var headers = HTTPHeaders(framed.headers)
        let keepAlive = h.isKeepAlive && (r.delivery == .normal || r.delivery.isPaced)
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let headOnly = h.method == .HEAD
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let version = h.version
        let response = r
        let path = h.uri
        let tls = self.tls
        let (finalStatus, finalHeaders, finalBody) = (status, headers, body)
        let send: @Sendable () -> Void = { [router] in
            let (status, headers, body) = (finalStatus, finalHeaders, finalBody)
            let context = loopContext.value
            let part = response.delivery.bytesSent(of: body.count)
            let sent = headOnly ? 0 : part
            // Logged before the first byte goes out: a client that has its answer finds its request in the log.
            let finished = Date().timeIntervalSince1970
            var record = RequestRecord(
                time: started - router.state.startedAt, wall: started, method: h.method.rawValue, path: path, range: range,
                status: response.status, bytes: sent, durationMs: (finished - started) * 1000, tls: tls,
                scenario: response.scenario, rendition: response.rendition, kind: response.kind, msn: response.truth?.msn,
                pdt: response.truth?.pdt.iso8601, mediaTime: response.truth?.mediaTime, gap: response.truth?.gap ?? false,
                fault: response.fault,
                userAgent: userAgent, host: req.host)
            (record.cmcd, record.cmcdFindings) = router.state.checkCMCD(
                headers: requestHeaders, target: path, kind: response.kind, rendition: response.rendition, scenario: response.scenario,
                at: started)
            router.state.record(record)
            switch response.delivery {
            case .refuse:
                context.close(promise: nil)
            case .silent(let seconds):
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) { loopContext.value.close(promise: nil) }
            default:
                context.write(
                    NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
            }
            Self.deliver(
                response.delivery, body: body, part: part, headOnly: headOnly, keepAlive: keepAlive, context: loopContext)
        }
        if r.delayMs > 0 {
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(r.delayMs))) { send() }
        } else {
            send()
        }
    }

    /// Sends the body as `delivery` says, once the head is written (docs/ORIGIN.md): whole, cut, hung, paced, truncated,
    /// trickled or stalled; nothing for a connection refused or left silent.
    static func deliver(
        _ delivery: Delivery, body: [UInt8], part: Int, headOnly: Bool, keepAlive: Bool,
        context loopContext: NIOLoopBound<ChannelHandlerContext>
    ) {
        let context = loopContext.value
        switch delivery {
        case .refuse, .silent: break
        case .cut:
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body.prefix(part))))))
                .whenComplete { _ in loopContext.value.close(promise: nil) }
        case .hang(_, let seconds):
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body.prefix(part))))), promise: nil)
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) { loopContext.value.close(promise: nil) }
        case .normal:
            if !headOnly && !body.isEmpty {
                context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            }
            let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
            if !keepAlive { done.whenComplete { _ in loopContext.value.close(promise: nil) } }
        case .paced(let rate):
            // 64 KB at a time, each when the link would have carried everything before it.
            let start = NIODeadline.now()
            var offset = 0
            while offset < body.count && !headOnly {
                let chunk = ByteBuffer(bytes: body[offset..<min(body.count, offset + 65_536)])
                let due = start + .nanoseconds(Int64(Double(offset) / Double(rate) * 1e9))
                context.eventLoop.scheduleTask(deadline: due) {
                    loopContext.value.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(chunk))), promise: nil)
                }
                offset += chunk.readableBytes
            }
            let due = start + .nanoseconds(Int64(Double(body.count) / Double(rate) * 1e9))
            context.eventLoop.scheduleTask(deadline: due) {
                let done = loopContext.value.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
                if !keepAlive { done.whenComplete { _ in loopContext.value.close(promise: nil) } }
            }
        case .truncate:
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body.prefix(part))))))
                .whenComplete { _ in loopContext.value.close(promise: nil) }
        case .trickle(let interval):
            // A byte every interval while the connection lasts, for a minute at most.
            let end = NIODeadline.now() + .seconds(60)
            OriginHTTPHandler.trickle(body[...], every: .nanoseconds(Int64(interval * 1e9)), until: end, context: loopContext)
        case .stall:
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body.prefix(part))))), promise: nil)
            // Hang until the client gives up; never hold a connection for more than a minute.
            context.eventLoop.scheduleTask(in: .seconds(60)) { loopContext.value.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Writes `rest` a byte at a time, one every `every`, while the connection is open; the end after the last byte, or a
    /// close at `until` (`Delivery.trickle`).
    static func trickle(
        _ rest: ArraySlice<UInt8>, every: TimeAmount, until: NIODeadline, context: NIOLoopBound<ChannelHandlerContext>
    ) {
        let c = context.value
        guard c.channel.isActive else { return }
        guard let byte = rest.first else {
            c.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            return
        }
        guard NIODeadline.now() < until else {
            c.close(promise: nil)
            return
        }
        c.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: [byte])))), promise: nil)
        c.eventLoop.scheduleTask(in: every) { trickle(rest.dropFirst(), every: every, until: until, context: context) }
    }

    /// The ETag of a media resource: its path (without the query, which names clients and faults) and length, under the
    /// origin's start time (FNV-1a, quoted).
    static func etag(path: String, length: Int, generation: Double) -> String {
        OriginHTTP.etag(path: path, length: length, generation: generation)
    }
}

/// What goes on the wire for a responder's answer, whatever carries it (the origin's server, or a test's in-memory transport):
/// the status, the headers and the body after Range, If-Range and the validators are applied.
public enum OriginHTTP {
    /// `r` framed for a request of `target` with these `Range` and `If-Range` headers: `response` has the status and body sent
    /// (206 or 416 for a range), `headers` every header but Connection.
    public static func frame(_ r: OriginResponse, target: String, range: String?, ifRange: String?, generation: Double) -> (
        response: OriginResponse, headers: [(String, String)]
    ) {
        var r = r
        var headers: [(String, String)] = [
            ("Content-Type", r.contentType), ("Accept-Ranges", "bytes"), ("Cache-Control", "no-cache"),
        ]
        headers += r.headers
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
        let ranged = r.kind == "segment" || r.kind == "subtitle" || r.kind == "init" || r.kind == "key"
        // A strong validator for media (RFC 9110 §8.8.3): the same path serves the same bytes for the origin's lifetime, so its
        // length and path name them; the `etag` fault sets another one. A Range under an If-Range that names another
        // validator is answered with the whole resource (RFC 9110 §13.1.5).
        if !r.exact, r.status == 200, ranged, header("etag") == nil {
            headers.append(("ETag", etag(path: target, length: r.body.count, generation: generation)))
        }
        let honoured = !r.ignoresRange && (ifRange == nil || ifRange == header("etag"))
        if let range, honoured, !r.exact, r.status == 200, ranged {
            switch byteRange(range, size: r.body.count) {
            case .some(.some(let rr)):
                headers.append(("Content-Range", "bytes \(rr.lowerBound)-\(rr.upperBound - 1)/\(r.body.count)"))
                r.body = Array(r.body[rr])
                r.status = 206
            case .none:
                headers.append(("Content-Range", "bytes */\(r.body.count)"))
                r.body = []
                r.status = 416
            case .some(.none):
                break
            }
        }
        headers.append(("Content-Length", String(r.body.count)))
        return (r, headers)
    }

    /// An answer as a transport other than the network delivers it (a test's in-memory transport).
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        public var delivery: Delivery
        /// Seconds before the head.
        public var delay: Double
    }

    /// Answers a GET of `target` from `responder` as the origin's server does — framed (`frame`), logged in its state — for a
    /// transport that carries it in memory; `now` is the origin's clock (seconds since 1970).
    public static func answer(
        _ responder: any OriginResponder, target: String, range: String?, ifRange: String?, authority: String?, now: Double,
        headers requestHeaders: [(String, String)] = []
    ) -> Answer {
        var req = OriginRequest(method: "GET", target: target, range: range, tls: false)
        req.authority = authority
        let (r, headers) = frame(
            responder.respond(req, now: now), target: target, range: range, ifRange: ifRange, generation: responder.state.startedAt)
        let sent = r.delivery.bytesSent(of: r.body.count)
        var record = RequestRecord(
            time: now - responder.state.startedAt, wall: now, method: "GET", path: target, range: range, status: r.status, bytes: sent,
            durationMs: 0, tls: false, scenario: r.scenario, rendition: r.rendition, kind: r.kind, msn: r.truth?.msn,
            pdt: r.truth?.pdt.iso8601, mediaTime: r.truth?.mediaTime, gap: r.truth?.gap ?? false, fault: r.fault, userAgent: nil,
            host: req.host)
        (record.cmcd, record.cmcdFindings) = responder.state.checkCMCD(
            headers: requestHeaders, target: target, kind: r.kind, rendition: r.rendition, scenario: r.scenario, at: now)
        responder.state.record(record)
        return Answer(status: r.status, headers: headers, body: r.body, delivery: r.delivery, delay: Double(r.delayMs) / 1000)
    }

    static func etag(path: String, length: Int, generation: Double) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in "\(path.split(separator: "?", maxSplits: 1).first ?? "") \(length) \(generation)".utf8 {
            hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3
        }
        return "\"" + String(hash, radix: 16) + "\""
    }
}
