import LoaderCore
import LoaderEvents
import HLS
import NIOConcurrencyHelpers
import NIOCore

/// A body the Loader read before the player asked for it (`StartReads`), waiting for the player's request: taken once.
final class ReadAhead: Sendable {
    let kind: ResourceKind
    let msn: Int
    let rung: Int?
    /// When the read started, on the Loader's clock.
    let start: Double
    private let state = NIOLockedValueBox(State())

    /// How a body that broke during the read was resumed (`emitBreak`), for its request event.
    let resumed = NIOLockedValueBox<String?>(nil)

    /// Why the read got no answer (the transport's error), for the request event.
    let failure = NIOLockedValueBox<UpstreamError?>(nil)

    struct State {
        /// The answer and when it ended; nil inside while the read is in flight, nil answer when it failed.
        var outcome: (response: UpstreamResponse?, end: Double)?
        var waiters: [CheckedContinuation<(response: UpstreamResponse?, end: Double), Never>] = []
    }

    init(kind: ResourceKind, msn: Int, rung: Int?, start: Double) {
        self.kind = kind
        self.msn = msn
        self.rung = rung
        self.start = start
    }

    func finish(_ r: UpstreamResponse?, at end: Double) {
        let waiters = state.withLockedValue { s -> [CheckedContinuation<(response: UpstreamResponse?, end: Double), Never>] in
            guard s.outcome == nil else { return [] }
            s.outcome = (r, end)
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(returning: (r, end)) }
    }

    /// The answer, once the read has ended.
    func outcome() async -> (response: UpstreamResponse?, end: Double) {
        await withCheckedContinuation { c in
            let done = state.withLockedValue { s -> (response: UpstreamResponse?, end: Double)? in
                if let o = s.outcome { return o }
                s.waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    /// The answer if the read has ended.
    var finished: (response: UpstreamResponse?, end: Double)? { state.withLockedValue { $0.outcome } }
}

extension LoaderServer {
    /// The range FFmpeg asks a whole segment with: a read ahead asks the same, so its answer is the one the player would get.
    static let wholeRange = "bytes=0-"

    /// The first presentation of a stream: the init section and first segments the player will ask for (`StartReads.plan`)
    /// are read now, in parallel, from the media playlist read ahead for it (DECISIONS.md, "Start-up reads ahead").
    func readAheadAtStart(media url: String, playlist: MediaPlaylist? = nil, rung: Int?, startMSN: Int?, spliced: Bool) {
        let m: MediaPlaylist? = table.withLockedValue { t in
            guard !t.startReadsDone else { return nil }
            t.startReadsDone = true
            return playlist ?? t.prewarmed[url]?.playlist
        }
        guard let m else { return }
        for read in StartReads.plan(m, base: url, startMSN: startMSN) {
            if let i = read.part {
                let a = readPart(read.url, range: read.range, msn: read.msn, rung: rung)
                table.withLockedValue { t in
                    if t.startParts?.msn != read.msn { t.startParts = (read.msn, [:]) }
                    t.startParts?.parts[i] = a
                }
                continue
            }
            let ahead = ReadAhead(kind: read.kind, msn: read.msn, rung: rung, start: now)
            table.withLockedValue { $0.readAhead[read.url] = ahead }
            var resource = Resource(upstream: read.url, kind: read.kind, rung: rung, msn: read.msn)
            resource.duration = read.duration
            resource.next = read.next.map { ($0, nil) }
            // Its playlist says how long a broken body may take to resume (`resumeBudget`: VOD or live).
            resource.playlist = spliced ? .splice : .upstream(url)
            let res = resource
            let budget = resumeBudget(res)
            // What its CMCD says (`--cmcd`): as for the player's own request of it.
            noteCMCD(res)
            tasks.spawn { [self] in
                // As the player's own request would be made (`segment`): no retry of a spliced segment, which has other rungs
                // to fail over to; a body that breaks is resumed, and its `resume` events say so.
                do throws(UpstreamError) {
                    let r = try await client.getResuming(
                        read.url, range: Self.wholeRange, retries: spliced ? 0 : nil, cache: .media, budget: budget,
                        copies: { [self] in await redundantCopies(res) },
                        onBreak: { [self] b in ahead.resumed.withLockedValue { $0 = emitBreak(b, res) } })
                    ahead.finish(r, at: now)
                } catch {
                    ahead.failure.withLockedValue { $0 = error }
                    ahead.finish(nil, at: now)
                }
            }
        }
    }

    /// What a read ahead gave the player's request.
    enum TakenRead {
        case answered(ahead: ReadAhead, response: UpstreamResponse, end: Double)
        /// It failed: the player's request failed as it would have (in the request log once, with its cause).
        case failed(cause: String, status: Int)
    }

    /// The read ahead for the player's request of `res` with `range`, taken: nil when there is none or the player asks
    /// another range. It stands for the player's request: a failure is that request's failure, failed over, held or
    /// retried as one (`segment`), not asked again at once.
    func takeReadAhead(_ res: Resource, range: String?) async -> TakenRead? {
        let url = res.upstream
        guard range == Self.wholeRange, let ahead = table.withLockedValue({ $0.readAhead.removeValue(forKey: url) }) else {
            return nil
        }
        let (r, end) = await ahead.outcome()
        if let r, (200..<300).contains(r.head.status), r.body.count == r.bytes { return .answered(ahead: ahead, response: r, end: end) }
        let failure = ahead.failure.withLockedValue { $0 }
        let status = r?.head.status ?? (failure?.cause == .offline ? 504 : 502)
        let error =
            r.map { "HTTP \($0.head.status)" + ($0.head.retries > 0 ? " (after \($0.head.retries) retries)" : "") }
            ?? failure?.description ?? "no answer"
        record(
            res.kind, url, rung: res.rung, msn: res.msn, since: ahead.start, head: r?.head, durationMs: (end - ahead.start) * 1000,
            bytes: r?.bytes ?? 0, status: status, prefetch: true, outcome: .failed(error), resumed: ahead.resumed.withLockedValue { $0 })
        let cause = r == nil ? error : "origin answered \(error) for \(res.kind.rawValue) \(res.msn.map(String.init) ?? "")"
        return .failed(cause: cause, status: status)
    }

    /// Reads ahead no player asked for (a reload came first): each in the request log as the origin saw it, once it ended;
    /// not a delivery to the player (no MSN).
    func dropReadsAhead() {
        let (left, parts) = table.withLockedValue { t in
            defer { (t.readAhead, t.startParts) = ([:], nil) }
            return (t.readAhead, t.startParts)
        }
        if let parts {
            for a in parts.parts.values { tasks.spawn { [self] in await recordAhead(a, msn: parts.msn, delivered: false) } }
        }
        for (url, a) in left {
            guard let (r, end) = a.finished else { continue }
            record(
                a.kind, url, rung: a.rung, since: a.start, head: r?.head, durationMs: (end - a.start) * 1000, bytes: r?.bytes ?? 0,
                status: r?.head.status ?? 502, prefetch: true, outcome: r == nil ? .failed("read ahead at start: no answer") : .ok,
                resumed: a.resumed.withLockedValue { $0 })
        }
    }
}
