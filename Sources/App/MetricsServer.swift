import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves `GET /metrics` (Prometheus text format 0.0.4) from a `PlaybackMetrics` registry; everything else is 404 and any
/// method but GET/HEAD 405. It serves numbers only: no URL, key or token is ever in a metric (docs/METRICS.md).
public final class MetricsServer: Sendable {
    public let port: Int
    public let host: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// Binds `address` ("HOST:PORT" or ":PORT" for 127.0.0.1); the error names the address and the cause in one line.
    public init(address: String, metrics: PlaybackMetrics) throws {
        guard let (host, port) = Self.parse(address) else {
            throw MetricsServerError(description: "--metrics takes HOST:PORT (e.g. 127.0.0.1:9464), got \(address)")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(MetricsHandler(metrics: metrics))
                }
            }
        do {
            channel = try bootstrap.bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw MetricsServerError(description: "cannot serve metrics on \(host):\(port): \(error)")
        }
        self.group = group
        self.host = host
        self.port = channel.localAddress?.port ?? port
    }

    /// "HOST:PORT", "[v6]:PORT" or ":PORT".
    static func parse(_ address: String) -> (String, Int)? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    public func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Why the endpoint could not be served, in one line.
public struct MetricsServerError: Error, CustomStringConvertible {
    public var description: String
}

/// Unchecked: NIO calls it on its channel's event loop only.
private final class MetricsHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let metrics: PlaybackMetrics
    private var head: HTTPRequestHead?

    init(metrics: PlaybackMetrics) { self.metrics = metrics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let h = head else { return }
            head = nil
            let path = h.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? h.uri
            let (status, type, body): (HTTPResponseStatus, String, [UInt8]) =
                switch (h.method, path) {
                case (.GET, "/metrics"), (.HEAD, "/metrics"): (.ok, "text/plain; version=0.0.4; charset=utf-8", metrics.exposition())
                case (.GET, _), (.HEAD, _): (.notFound, "text/plain; charset=utf-8", Array("hlstui serves /metrics only\n".utf8))
                default: (.methodNotAllowed, "text/plain; charset=utf-8", Array("GET /metrics\n".utf8))
                }
            var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(body.count))])
            if !h.isKeepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: h.version, status: status, headers: headers))), promise: nil)
            if h.method != .HEAD {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            }
            let keepAlive = h.isKeepAlive
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in if !keepAlive { channel.close(promise: nil) } }
        }
    }
}
