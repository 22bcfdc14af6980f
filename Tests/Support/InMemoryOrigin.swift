import Foundation
import Loader
import NIOConcurrencyHelpers
import Origin

/// Virtual time for the Loader (`LoaderClock`): a sleep returns at once, the clock moved on to its end. Time passes only as
/// the code under test waits, so a test of a 10 s read timeout or a backoff takes no wall time, and the same steps happen in
/// the same order however loaded the machine is. Concurrent waits overlap: each ends at its own deadline, and the clock
/// never goes back.
public final class VirtualClock: LoaderClock, @unchecked Sendable {
    private let time = NIOLockedValueBox(0.0)
    public init() {}
    public var now: Double { time.withLockedValue { $0 } }
    public func sleep(_ seconds: Double) async {
        guard seconds > 0, !Task.isCancelled else { return }
        let deadline = now + seconds
        time.withLockedValue { t in t = max(t, deadline) }
        await Task.yield()
    }
}

/// The embedded origin's answers carried in memory (`UpstreamTransport`): the same responder and the same framing (Range,
/// If-Range, ETag) as over a socket, each delivery (a body cut, stalled, paced, a refusal, silence) as the client would meet
/// it, timed on `clock`. With it, a Loader test runs without a socket to the origin and, on a `VirtualClock`, without waiting
/// (docs/TESTING.md).
public struct InMemoryOrigin: UpstreamTransport {
    public let responder: any OriginResponder
    public let clock: any LoaderClock
    /// The origin's wall clock at the transport's clock's zero (seconds since 1970): live scenarios are computed from it.
    public let epoch: Double

    public init(responder: any OriginResponder, clock: any LoaderClock, epoch: Double = Date().timeIntervalSince1970) {
        self.responder = responder
        self.clock = clock
        self.epoch = epoch - clock.now
    }

    /// An http URL for this transport's origin (any host: the transport answers them all).
    public static let base = "http://origin.test"

    /// What the client meets, in order: a wait, a piece of the answer, a failure.
    enum Step {
        case wait(Double)
        case part(UpstreamPart)
        case fail(UpstreamError)
    }

    /// The answer is produced as the client reads it (each step when the client asks for the next), so time passes in a
    /// silence only once the client has taken everything before it, as over a socket.
    public func send(_ request: UpstreamRequest, readTimeout: Double) -> AsyncThrowingStream<UpstreamPart, any Error> {
        let box = NIOLockedValueBox<[Step]?>(nil)
        return AsyncThrowingStream(unfolding: { [self] in
            var steps = box.withLockedValue { $0 } ?? self.steps(request, readTimeout: readTimeout)
            defer { box.withLockedValue { $0 = steps } }
            while !steps.isEmpty {
                switch steps.removeFirst() {
                case .wait(let seconds): await clock.sleep(seconds)
                case .part(let p): return p
                case .fail(let e): throw e
                }
            }
            return nil
        })
    }

    func steps(_ request: UpstreamRequest, readTimeout: Double) -> [Step] {
        guard let u = URLComponents(string: request.url) else {
            return [.fail(UpstreamError(cause: .badURL, detail: "\(request.url): not a URL"))]
        }
        let target = u.percentEncodedPath + (u.percentEncodedQuery.map { "?\($0)" } ?? "")
        let a = OriginHTTP.answer(
            responder, target: target.isEmpty ? "/" : target, range: request.header("range"), ifRange: request.header("if-range"),
            authority: u.host.map { h in u.port.map { "\(h):\($0)" } ?? h }, now: epoch + clock.now, headers: request.headers)
        let refused = UpstreamError(cause: .connect, detail: "\(request.url): the origin closed the connection before answering")
        let silent = UpstreamError(cause: .timeout, detail: "\(request.url): no data from the origin for too long (read timeout)")
        // Once the head came, a silence ends at the request's stall time when it has one (`UpstreamRequest.stallAfter`).
        let stallAfter = request.stallAfter ?? readTimeout
        let stalled =
            request.stallAfter.map { UpstreamError(cause: .timeout, detail: "\(request.url): no byte for \(String(format: "%.1f", $0)) s") }
            ?? silent
        func cut(_ n: Int) -> UpstreamError {
            UpstreamError(cause: .truncated, detail: "\(request.url): body truncated at \(n) of \(a.body.count) bytes")
        }
        /// The first `n` bytes, then: the rest never comes. A body sent whole is whole, however the connection ends after it.
        func first(_ n: Int, then end: [Step]) -> [Step] {
            let n = min(n, a.body.count)
            let some: [Step] = n > 0 ? [.part(.body(Array(a.body.prefix(n))))] : []
            return n == a.body.count ? some + [.part(.end)] : some + end
        }
        var steps: [Step] = []
        switch a.delivery {
        case .refuse: return [.fail(refused)]
        case .silent(let seconds): return [.wait(min(seconds, readTimeout)), .fail(seconds >= readTimeout ? silent : refused)]
        default: break
        }
        if a.delay > 0 { steps.append(.wait(a.delay)) }
        steps.append(.part(.head(status: a.status, headers: a.headers)))
        switch a.delivery {
        case .normal, .refuse, .silent:
            if !a.body.isEmpty { steps.append(.part(.body(a.body))) }
            steps.append(.part(.end))
        case .paced(let rate):
            // 64 KB at a time, each when the link would have carried everything before it.
            var offset = 0
            while offset < a.body.count {
                let end = min(a.body.count, offset + 65_536)
                steps += [.wait(Double(end - offset) / Double(max(1, rate))), .part(.body(Array(a.body[offset..<end])))]
                offset = end
            }
            steps.append(.part(.end))
        case .cut(let n): steps += first(n, then: [.fail(cut(min(n, a.body.count)))])
        case .hang(let n, let seconds):
            // Silence: the client gives up after its read timeout, or the origin closes first.
            steps += first(n, then: [.wait(min(seconds, stallAfter)), .fail(seconds >= stallAfter ? stalled : cut(n))])
        case .truncate: steps += first(a.body.count / 2, then: [.fail(cut(a.body.count / 2))])
        case .stall: steps += first(a.body.count / 4, then: [.wait(stallAfter), .fail(stalled)])
        case .trickle(let interval):
            // A byte at once, then one every interval; silent for a read timeout if the interval is that long; closed after a minute.
            guard interval < stallAfter else { return steps + first(1, then: [.wait(stallAfter), .fail(stalled)]) }
            let n = min(a.body.count, 1 + Int(60 / interval))
            for (i, byte) in a.body.prefix(n).enumerated() {
                if i > 0 { steps.append(.wait(interval)) }
                steps.append(.part(.body([byte])))
            }
            steps += n == a.body.count ? [.part(.end)] : [.fail(cut(n))]
        }
        return steps
    }
}
