import LoaderCore
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Writes one response to the player's connection from any thread (Channel writes are thread-safe); without a channel (`sink`)
/// the answer goes nowhere: a segment the Loader reads on its own account (`LoaderOptions.readsUndecodedVideo`).
final class ResponseWriter: Sendable {
    let channel: (any Channel)?
    let keepAlive: Bool
    let version: HTTPVersion
    let headOnly: Bool
    let started = NIOLockedValueBox(false)
    /// The head went out before the origin answered (`commitHead`): the origin's head is not sent again, the body follows chunked.
    let committed = NIOLockedValueBox(false)

    /// The body as it went out, kept when the Loader reads something of its own from it (`collect`): a segment's closed
    /// captions (`LoaderServer+Captions.swift`).
    let kept = NIOLockedValueBox<[UInt8]?>(nil)

    /// Called as the answer's end goes out (a sink's: what the Loader knows by then, for tests).
    let onEnd: (@Sendable () -> Void)?

    init(channel: (any Channel)?, keepAlive: Bool, version: HTTPVersion, headOnly: Bool, onEnd: (@Sendable () -> Void)? = nil) {
        self.onEnd = onEnd
        self.channel = channel
        self.keepAlive = keepAlive
        self.version = version
        self.headOnly = headOnly
    }

    /// A writer whose answer is read whole and dropped.
    static func sink(onEnd: (@Sendable () -> Void)? = nil) -> ResponseWriter {
        ResponseWriter(channel: nil, keepAlive: true, version: .http1_1, headOnly: false, onEnd: onEnd)
    }

    /// Whether the player is still there to answer (a sink always is).
    var isActive: Bool { channel?.isActive ?? true }

    func send(_ status: Int, _ headers: [(String, String)], _ body: [UInt8]) {
        // A head already sent: the answer can only be cut (the player sees a truncated body).
        if committed.withLockedValue({ $0 }) {
            channel?.close(promise: nil)
            return
        }
        var h = HTTPHeaders(headers)
        h.replaceOrAdd(name: "Content-Length", value: String(body.count))
        h.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel?.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
        if !headOnly && !body.isEmpty { channel?.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        if (200..<300).contains(status) { kept.withLockedValue { $0? += body } }
        finish()
    }

    func finish() {
        guard let channel else { return }
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { let c = channel; done.whenComplete { _ in c.close(promise: nil) } }
    }

    func text(_ status: Int, _ s: String) { send(status, [("Content-Type", "text/plain; charset=utf-8")], Array((s + "\n").utf8)) }
    func playlist(_ s: String) { send(200, [("Content-Type", "application/vnd.apple.mpegurl")], Array(s.utf8)) }
    func bytes(_ status: Int, contentType: String, _ b: [UInt8]) { send(status, [("Content-Type", contentType)], b) }

    /// Sends a 200 head now, its body to follow chunked whenever it comes: FFmpeg 5.1 opens a stream's next segment as soon as
    /// it opens one (HTTP/1.1) and waits for that head before it reads the first, so a segment held back must answer its head.
    func commitHead(contentType: String) {
        committed.withLockedValue { $0 = true }
        streamHead(200, contentType: contentType)
        flush()
    }

    /// Starts a streamed answer with the origin's status and length; a sub-range the origin sent (206) is presented as a whole
    /// resource of `length` bytes (200), or as the player's own range of it (206).
    func head(_ status: Int, _ upstream: UpstreamHead, subrange: (length: Int, relative: ClosedRange<Int>?)? = nil) {
        guard !committed.withLockedValue({ $0 }) else { return }
        started.withLockedValue { $0 = true }
        var h = HTTPHeaders()
        for name in ["Content-Type", "Content-Length", "Content-Range", "Accept-Ranges"] {
            if let v = upstream.header(name) { h.add(name: name, value: v) }
        }
        var status = status
        if let subrange {
            let part = subrange.relative ?? 0...(subrange.length - 1)
            h.replaceOrAdd(name: "Content-Length", value: String(part.count))
            h.remove(name: "Content-Range")
            if subrange.relative != nil {
                h.add(name: "Content-Range", value: "bytes \(part.lowerBound)-\(part.upperBound)/\(subrange.length)")
            }
            status = subrange.relative == nil ? 200 : 206
        }
        h.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel?.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
    }

    /// Starts an answer with these headers (its Content-Length among them); the body follows in chunks.
    func head(_ status: Int, headers: [(String, String)]) {
        guard !committed.withLockedValue({ $0 }) else { return }
        started.withLockedValue { $0 = true }
        var h = HTTPHeaders(headers)
        h.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel?.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
    }

    /// Sends what is queued and returns once the player's connection took it in; false when the player went away (it closed
    /// the connection: a seek). What the Loader reads next for it waits on this.
    func drained() async -> Bool {
        guard !headOnly, let channel else { return true }
        let p = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer())), promise: p)
        do {
            try await p.futureResult.get()
            return true
        } catch {
            return false
        }
    }

    /// Queues a body chunk; `flush` sends what is queued (once per batch of upstream reads, not per chunk).
    func chunk(_ b: ByteBuffer) {
        kept.withLockedValue { $0? += b.readableBytesView }
        guard !headOnly else { return }
        channel?.write(HTTPServerResponsePart.body(.byteBuffer(b)), promise: nil)
    }

    func flush() { channel?.flush() }

    /// Keeps the body from here on (`collected`).
    func collect() { kept.withLockedValue { $0 = [] } }

    /// The body kept so far, kept on; nil when nothing is kept.
    func keptSoFar() -> [UInt8]? { kept.withLockedValue { $0 } }

    /// The body kept since `collect`, and no longer kept.
    func collected() -> [UInt8] {
        kept.withLockedValue { k in
            defer { k = nil }; return k ?? []
        }
    }

    /// Starts an answer whose length is not known yet (chunked transfer encoding).
    func streamHead(_ status: Int, contentType: String) {
        guard !started.withLockedValue({ $0 }) else { return }
        started.withLockedValue { $0 = true }
        var h = HTTPHeaders([("Content-Type", contentType), ("Transfer-Encoding", "chunked")])
        h.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        channel?.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: version, status: .init(statusCode: status), headers: h)), promise: nil)
    }

    func end() {
        onEnd?()
        finish()
    }

    /// Fails the answer: a clean error if nothing was sent yet, else a cut connection (the player sees a truncated body, as it was).
    func abort(_ status: Int, _ s: String) {
        if started.withLockedValue({ $0 }) { channel?.close(promise: nil) } else { text(status, s) }
    }
}

/// Reads player requests and hands them to the Loader. Unchecked: NIO calls it on its channel's event loop only.
final class LoaderHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let loader: @Sendable () -> LoaderServer?
    var head: HTTPRequestHead?

    init(loader: @escaping @Sendable () -> LoaderServer?) { self.loader = loader }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let h = head, let loader = loader() else { return }
            head = nil
            let writer = ResponseWriter(channel: context.channel, keepAlive: h.isKeepAlive, version: h.version, headOnly: h.method == .HEAD)
            let target = h.uri
            let range = h.headers.first(name: "range")
            // A player's CMCD headers (docs/CMCD.md): read, checked and, when hlstui sends none of its own, forwarded.
            let cmcd = h.headers.filter { $0.name.lowercased().hasPrefix("cmcd-") }.map { ($0.name, $0.value) }
            loader.tasks.spawn { await loader.handle(target, range: range, cmcd: cmcd, writer: writer) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
