import LoaderCore
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// Reads one response at a time off a pooled connection. The read timeout is the exchange's own: from the request on, and
/// again from each read (a pooled connection's idle time before the request counts for nothing; a timer of the connection's
/// life, as NIO's `IdleStateHandler` keeps, gave a request sent after 9.9 s of idleness a tenth of a second).
/// Unchecked: NIO calls a handler on its channel's event loop only, and its state is touched there alone.
final class UpstreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    var exchange: Exchange?
    var promise: EventLoopPromise<UpstreamResponse>?
    var reusable = false
    let verifyFailure: NIOLockedValueBox<TLSFailure?>
    let readTimeout: TimeAmount
    /// The pipeline context (set when the handler is added) and the exchange's read timer; both used on the event loop only.
    var context: ChannelHandlerContext?
    var readTimer: Scheduled<Void>?
    /// The time the exchange's body has to arrive whole, from its head (`Exchange.within`).
    var wholeTimer: Scheduled<Void>?

    init(verifyFailure: NIOLockedValueBox<TLSFailure?>, readTimeout: TimeAmount) {
        self.verifyFailure = verifyFailure
        self.readTimeout = readTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        readTimer?.cancel()
        wholeTimer?.cancel()
        self.context = nil
    }

    func start(_ e: Exchange, promise p: EventLoopPromise<UpstreamResponse>) {
        exchange = e
        promise = p
        reusable = false
        armReadTimer()
    }

    /// No byte for `readTimeout` from now on fails the exchange — once the head came, for the exchange's `stallAfter` when
    /// it has one.
    func armReadTimer() {
        readTimer?.cancel()
        guard let context, let e = exchange else { return }
        let stall = e.head == nil ? nil : e.stallAfter
        let wait = stall.map { TimeAmount.nanoseconds(Int64($0 * 1e9)) } ?? readTimeout
        readTimer = context.eventLoop.scheduleTask(in: wait) { [self] in readTimedOut(stall: stall) }
    }

    func readTimedOut(stall: Double?) {
        guard let e = exchange else { return }
        reusable = false
        let detail =
            stall.map { "\(e.url): \(UpstreamClient.stallText($0))" } ?? "\(e.url): no data from the origin for too long (read timeout)"
        finish(.failure(UpstreamError(cause: .timeout, detail: detail)))
        context?.close(promise: nil)
    }

    /// The body did not arrive whole in the time it had (`Exchange.within`): the exchange fails naming the rate it came at.
    func notWholeInTime() {
        guard let e = exchange else { return }
        reusable = false
        finish(.failure(e.notWhole()))
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let e = exchange else { return }
        switch unwrapInboundIn(data) {
        case .head(let h):
            reusable = h.isKeepAlive
            e.receivedHead(status: Int(h.status.code), headers: h.headers.map { ($0.name, $0.value) })
            if let within = e.within {
                wholeTimer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(within * 1e9))) { [self] in notWholeInTime() }
            }
        case .body(let b):
            e.receivedBody(b)
        case .end:
            finish(.success(()))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        exchange?.streaming.onReadEnd()
        armReadTimer()
        context.fireChannelReadComplete()
    }

    func finish(_ r: Result<Void, UpstreamError>) {
        guard let e = exchange, let p = promise else { return }
        readTimer?.cancel()
        readTimer = nil
        wholeTimer?.cancel()
        wholeTimer = nil
        exchange = nil
        promise = nil
        switch r {
        case .success:
            let result = e.ended()
            if case .failure = result { reusable = false }
            p.completeWith(result.mapError { $0 as any Error })
        case .failure(let err):
            p.fail(e.failed(err))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let e = exchange {
            // A close-delimited body ends here; any other was cut, or never came.
            switch e.closed() {
            case .success: finish(.success(()))
            case .failure(let err): finish(.failure(err))
            }
        }
        reusable = false
        context.fireChannelInactive()
    }

    /// What a TLS alert from the server means for the user, when it is about our client certificate (mutual TLS).
    static func clientCertificateProblem(_ error: any Error) -> String? {
        let text = "\(error)".uppercased()
        if text.contains("CERTIFICATE_REQUIRED") {
            return "TLS: the origin requires a client certificate (give one with --client-cert FILE.p12)"
        }
        if text.contains("ALERT_BAD_CERTIFICATE") || text.contains("ALERT_UNKNOWN_CA") || text.contains("CERTIFICATE_UNKNOWN") {
            return "TLS: the origin refused our client certificate (\(error))"
        }
        return nil
    }

    /// The last error the connection saw, for failures noticed only when the next request starts.
    let lastError = NIOLockedValueBox<String?>(nil)

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let url = exchange?.url ?? ""
        let mtls = UpstreamHandler.clientCertificateProblem(error)
        lastError.withLockedValue { $0 = mtls ?? "\(error)" }
        if let f = verifyFailure.withLockedValue({ $0 }) {
            finish(.failure(UpstreamError(cause: .tls, detail: "\(url): \(f)")))
        } else if let mtls {
            finish(.failure(UpstreamError(cause: .tls, detail: "\(url): \(mtls)")))
        } else if error is NIOSSLError || "\(error)".contains("SSL") {
            finish(.failure(UpstreamError(cause: .tls, detail: "\(url): TLS handshake failed (\(error))")))
        } else if "\(error)".contains("invalidEOFState") {
            finish(.failure(UpstreamError(cause: .truncated, detail: "\(url): body truncated, the connection closed mid-answer")))
        } else if "\(error)".contains("HTTPParserError") {
            finish(.failure(UpstreamError(cause: .protocolError, detail: "\(url): the origin's answer is not valid HTTP (\(error))")))
        } else {
            finish(
                .failure(UpstreamError(cause: .truncated, detail: "\(url): body truncated, the connection failed mid-answer (\(error))")))
        }
        reusable = false
        context.close(promise: nil)
    }
}

/// Completes when the TLS handshake (verification included) has, or fails when it cannot; added right behind the TLS handler.
final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    /// The server said nothing to the handshake for this long.
    struct NoAnswer: Error { var seconds: Double }
    /// The handshake's promise (made when the handler is added) and whether it was completed.
    private let outcome = NIOLockedValueBox<(promise: EventLoopPromise<Void>?, done: Bool)>((nil, false))

    /// Completes with the handshake; valid once the channel is set up.
    var future: EventLoopFuture<Void> { outcome.withLockedValue { $0.promise! }.futureResult }

    func handlerAdded(context: ChannelHandlerContext) {
        let p = context.eventLoop.makePromise(of: Void.self)
        outcome.withLockedValue { $0.promise = p }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { complete(nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func complete(_ error: (any Error)?) {
        guard
            let p = outcome.withLockedValue({ o -> EventLoopPromise<Void>? in
                guard !o.done else { return nil }
                o.done = true
                return o.promise
            })
        else { return }
        if let error { p.fail(error) } else { p.succeed(()) }
    }
}
