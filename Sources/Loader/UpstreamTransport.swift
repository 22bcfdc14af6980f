import LoaderCore
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// What a caller sees of an answer while it arrives.
struct Streaming: Sendable {
    let onHead: @Sendable (UpstreamHead) -> Void
    let onBody: @Sendable (ByteBuffer) -> Void
    let onReadEnd: @Sendable () -> Void
}

/// A GET as a transport sends it.
public struct UpstreamRequest: Sendable {
    public var url: String
    public var headers: [(String, String)]
    /// Once the head came, no byte for this long fails the answer as a stall (nil: the read timeout): a live body's budget
    /// to resume in is shorter than the read timeout (`UpstreamClient.stallAfter`).
    public var stallAfter: Double?
    public init(url: String, headers: [(String, String)], stallAfter: Double? = nil) {
        self.url = url
        self.headers = headers
        self.stallAfter = stallAfter
    }
    public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

/// A piece of an answer as a transport receives it.
public enum UpstreamPart: Sendable {
    case head(status: Int, headers: [(String, String)])
    case body([UInt8])
    /// The answer ended here (a body shorter than its Content-Length was cut, as over a socket).
    case end
}

/// How an exchange reaches an origin when it is not the network (`UpstreamOptions.transport`): the answer as it arrives, the
/// stream finishing after `.end`, or with an `UpstreamError` — `.connect` for a refusal, `.timeout` for silence as long as
/// `readTimeout`, `.truncated` for a connection that closed mid-body. The client's policy (redirects, retries, resumption,
/// the cache) is the same above either transport (DECISIONS.md, "The Loader's clock and transport are injected").
public protocol UpstreamTransport: Sendable {
    func send(_ request: UpstreamRequest, readTimeout: Double) -> AsyncThrowingStream<UpstreamPart, any Error>
}

/// One request/response on a connection. Unchecked: its mutable fields are written by its connection's handler on that
/// channel's event loop only (`UpstreamHandler`).
final class Exchange: @unchecked Sendable {
    let url: String
    let redirects: Int
    let retries: Int
    /// When the request went out (`clock`'s seconds).
    let sent: Double
    let clock: any LoaderClock
    let streaming: Streaming
    var head: UpstreamHead?
    var body: [UInt8] = []
    /// Bytes received, kept or not.
    var received = 0
    let keepBody: Int
    var expected: Int?
    /// What the request carried besides on the wire (`WireDecoration.label`).
    let decoration: String?
    /// Seconds the body has, from the head, to arrive whole; nil: as long as bytes keep coming (DECISIONS.md, "A playlist
    /// arrives whole within the read timeout").
    let within: Double?
    /// When the head came (`clock`'s seconds).
    var headAt: Double?

    /// Once the head came, no byte for this long fails the exchange as a stall (nil: the read timeout; `UpstreamRequest`).
    let stallAfter: Double?
    init(
        url: String, redirects: Int, retries: Int, sent: Double, clock: any LoaderClock, keepBody: Int, streaming: Streaming,
        decoration: String? = nil, within: Double? = nil, stallAfter: Double? = nil
    ) {
        self.decoration = decoration
        self.within = within
        self.stallAfter = stallAfter
        self.clock = clock
        self.url = url
        self.keepBody = keepBody
        self.redirects = redirects
        self.retries = retries
        self.sent = sent
        self.streaming = streaming
    }

    func receivedHead(status: Int, headers: [(String, String)]) {
        headAt = clock.now
        var h = UpstreamHead(status: status, headers: headers, url: url, redirects: redirects, retries: retries, ttfb: clock.now - sent)
        h.sent = decoration
        head = h
        expected = h.header("content-length").flatMap { Int($0) }
        // Only a success is streamed: an error answer may be retried, and is reported whole (never a second head downstream).
        if (200..<300).contains(status) { streaming.onHead(h) }
    }

    func receivedBody(_ b: ByteBuffer) {
        received += b.readableBytes
        if body.count < keepBody { body.append(contentsOf: b.readableBytesView.prefix(keepBody - body.count)) }
        if let h = head, (200..<300).contains(h.status) { streaming.onBody(b) }
    }

    /// The answer once its end came: whole, or truncated when fewer bytes came than its Content-Length promised.
    func ended() -> Result<UpstreamResponse, UpstreamError> {
        guard let head else { return .failure(UpstreamError(cause: .protocolError, detail: "\(url): no response")) }
        if let n = expected, received < n {
            var err = UpstreamError(cause: .truncated, detail: "\(url): body truncated at \(received) of \(n) bytes")
            err.head = head
            err.partial = body
            return .failure(err)
        }
        return .success(UpstreamResponse(head: head, body: body, bytes: received, seconds: 0))
    }

    /// The answer when the connection closed: a close-delimited body ends there; any other is cut, or never came.
    func closed() -> Result<UpstreamResponse, UpstreamError> {
        if head != nil, expected == nil { return ended() }
        if head != nil {
            return .failure(
                failed(UpstreamError(cause: .truncated, detail: "\(url): body truncated at \(received) of \(expected ?? 0) bytes")))
        }
        return .failure(UpstreamError(cause: .connect, detail: "\(url): the origin closed the connection before answering"))
    }

    /// The failure of a body that did not arrive whole within `within` of its head, naming how fast it came.
    func notWhole() -> UpstreamError {
        let seconds = within ?? 0
        let of = expected.map { " of \($0)" } ?? ""
        let rate = Exchange.rate(Double(received) / max(seconds, 0.001))
        return failed(
            UpstreamError(
                cause: .slow,
                detail:
                    "\(url): too slow: \(received)\(of) bytes in the \(Exchange.seconds(seconds)) after its head (\(rate)); a playlist or key must arrive whole within the read timeout"
            ))
    }

    /// Whether the body is past its time to arrive whole (checked as bytes arrive where no timer runs: `run`).
    var pastWithin: Bool {
        guard let within, let headAt else { return false }
        return clock.now - headAt > within
    }

    /// A byte rate as a reader would say it ("0.3 B/s", "12 kB/s", "1.5 MB/s").
    static func rate(_ bytesPerSecond: Double) -> String {
        if bytesPerSecond < 1000 { return String(format: "%.1f B/s", bytesPerSecond) }
        if bytesPerSecond < 1_000_000 { return String(format: "%.0f kB/s", bytesPerSecond / 1000) }
        return String(format: "%.1f MB/s", bytesPerSecond / 1_000_000)
    }

    /// Whole seconds when whole ("10 s"), else with a tenth ("2.5 s").
    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)
    }

    /// `err` with the head and the bytes that came before it.
    func failed(_ err: UpstreamError) -> UpstreamError {
        var err = err
        err.head = err.head ?? head
        if err.partial.isEmpty { err.partial = body }
        return err
    }

    /// Reads an answer off a transport other than the network (`UpstreamTransport`).
    func run(_ parts: AsyncThrowingStream<UpstreamPart, any Error>) async throws(UpstreamError) -> UpstreamResponse {
        do {
            for try await part in parts {
                switch part {
                case .head(let status, let headers): receivedHead(status: status, headers: headers)
                case .body(let b):
                    if pastWithin { throw notWhole() }
                    receivedBody(ByteBuffer(bytes: b))
                    streaming.onReadEnd()
                case .end: return try ended().get()
                }
            }
            return try closed().get()
        } catch let e as UpstreamError {
            throw failed(e)
        } catch {
            throw failed(UpstreamError(cause: .protocolError, detail: "\(url): \(error)"))
        }
    }
}
