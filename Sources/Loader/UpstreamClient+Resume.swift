import Foundation
import HLS
import LoaderCore
import NIOConcurrencyHelpers
import NIOCore

/// What happened to a body that broke after its head went to the caller (DECISIONS.md, "A body that breaks is resumed").
public enum BodyBreak: Sendable, Equatable {
    /// The body stopped after `at` bytes: `cause` says how (cut, reset, read timeout).
    case broken(cause: String, at: Int)
    /// The rest arrived: resumed at byte `at` of the body, `after` seconds after the break (`cause`), in `attempts` requests;
    /// `from`: the host of the copy that gave it, when not the one that broke; `failed`: what the last request before the one
    /// that gave it said, when there was one.
    case resumed(cause: String, at: Int, after: Double, attempts: Int, from: String? = nil, failed: String? = nil)
    /// No request could give the rest within the budget (or the object changed): the body ends short at `at` bytes.
    case gaveUp(cause: String, at: Int, after: Double)
}

extension UpstreamClient {
    /// `get`, except that a 2xx body that breaks after its head went to `onHead` is continued from the byte where it stopped,
    /// for at most `budget` seconds: `onBody` sees one body, slower, never a short one unless the budget runs out (then the
    /// error says so). `onBreak` hears of each break and how it ended. `copies` gives other URLs of the same bytes (a
    /// redundant host): once the URL that broke has failed `BodyResume.copiesAfter` resumptions they take turns with it, each
    /// asked under the same If-Range, so a copy whose validator differs is never stitched in.
    public func getResuming(
        _ url: String, range: String? = nil, keepBody: Int = Int.max, retries: Int? = nil, cache use: CacheUse = .none,
        budget: Double, copies: @escaping @Sendable () async -> [String] = { [] },
        onBreak: @escaping @Sendable (BodyBreak) -> Void = { _ in },
        onHead: @escaping @Sendable (UpstreamHead) -> Void = { _ in },
        onBody: @escaping @Sendable (ByteBuffer) -> Void = { _ in },
        onReadEnd: @escaping @Sendable () -> Void = {}
    ) async throws(UpstreamError) -> UpstreamResponse {
        let stall = Self.stallAfter(budget: budget, readTimeout: options.readTimeout)
        guard Self.stallAfter == stall else {
            return try await stalling(stall) { () async throws(UpstreamError) -> UpstreamResponse in
                try await getResuming(
                    url, range: range, keepBody: keepBody, retries: retries, cache: use, budget: budget, copies: copies, onBreak: onBreak,
                    onHead: onHead, onBody: onBody, onReadEnd: onReadEnd)
            }
        }
        let clock = options.clock
        let progress = NIOLockedValueBox(BodyProgress(keep: keepBody))
        let start = clock.now
        func elapsed() -> Double { clock.now - start }
        let first: UpstreamError
        do {
            var r = try await get(
                url, range: range, keepBody: keepBody, retries: retries, cache: use,
                onHead: { h in
                    progress.withLockedValue { $0.head = h }
                    onHead(h)
                },
                onBody: { b in
                    progress.withLockedValue { $0.took(b, at: clock.now) }
                    onBody(b)
                }, onReadEnd: onReadEnd)
            r.seconds = elapsed()
            return r
        } catch {
            first = error
        }
        let (head, delivered) = progress.withLockedValue { ($0.head, $0.delivered) }
        guard let head, (200..<300).contains(head.status), budget > 0, Self.resumable(first.cause) else { throw first }
        // The break is counted from the last byte that came (a stall is noticed only a read timeout later).
        let brokeAt = progress.withLockedValue { $0.lastByteAt }.map { $0 - start } ?? elapsed()
        var plan = BodyResume.after(status: head.status, headers: head.header, range: range, since: brokeAt, budget: budget)
        onBreak(.broken(cause: Self.breakCause(first), at: delivered))
        var last = first
        var tries = 0
        var others: [String]?
        while let wait = plan.next(at: elapsed()) {
            if wait > 0 { await clock.sleep(wait) }
            if Task.isCancelled { break }
            tries += 1
            // The URL that broke first; after it failed a few times, the copies in turn with it.
            if tries > BodyResume.copiesAfter, others == nil { others = await copies() }
            let source = BodyResume.source(attempt: tries, broke: head.url, copies: others ?? [])
            let copy = source != head.url
            let at = progress.withLockedValue { $0.delivered }
            let ask = plan.request(delivered: at)
            let verdict = NIOLockedValueBox<BodyResume.Answer?>(nil)
            let end = plan.last.map { $0 - plan.origin + 1 }
            let judge = plan
            let r: UpstreamResponse
            do {
                r = try await network(
                    source, range: ask.range, extraHeaders: ask.ifRange.map { [("If-Range", $0)] } ?? [], keepBody: 0, retries: 0,
                    secret: false,
                    onHead: { h in
                        let v = judge.judge(status: h.status, headers: h.header, delivered: at)
                        verdict.withLockedValue { $0 = v }
                        if case .continues(let skip) = v { progress.withLockedValue { $0.skip = skip } }
                    },
                    onBody: { b in
                        guard case .continues = verdict.withLockedValue({ $0 }) else { return }
                        let out = progress.withLockedValue { $0.resumed(b, end: end, at: clock.now) }
                        if let out { onBody(out) }
                    }, onReadEnd: onReadEnd)
            } catch {
                last = error
                if Self.resumable(error.cause) { continue }
                break
            }
            switch verdict.withLockedValue({ $0 }) ?? plan.judge(status: r.head.status, headers: r.head.header, delivered: at) {
            case .changed(let why) where copy:
                // Another copy that is not the same object: not this one, and the URL that broke may still answer.
                last = UpstreamError(cause: first.cause, detail: "\(source): resuming at byte \(at): not the same object (\(why))")
            case .changed(let why):
                let now = progress.withLockedValue { $0.delivered }
                onBreak(.gaveUp(cause: why, at: now, after: elapsed() - brokeAt))
                var out = UpstreamError(cause: .truncated, detail: "\(url): body broke after \(now) bytes and cannot be resumed: \(why)")
                out.head = head
                throw out
            case .unusable(let why):
                last = UpstreamError(cause: first.cause, detail: "\(url): resuming at byte \(at): \(why)")
            case .continues:
                let (now, kept) = progress.withLockedValue { ($0.delivered, $0.kept) }
                if let end, now < end {
                    // The answer ended early without an error (a close-delimited body): resume again from there.
                    last = UpstreamError(cause: .truncated, detail: "\(url): body truncated at \(now) of \(end) bytes")
                    continue
                }
                onBreak(
                    .resumed(
                        cause: Self.breakCause(first), at: delivered, after: elapsed() - brokeAt, attempts: tries,
                        from: copy ? URLComponents(string: source)?.host : nil, failed: tries > 1 ? last.detail : nil))
                return UpstreamResponse(head: head, body: kept, bytes: now, seconds: elapsed())
            }
        }
        let now = progress.withLockedValue { $0.delivered }
        let waited = elapsed() - brokeAt
        onBreak(.gaveUp(cause: Self.breakCause(last), at: now, after: waited))
        var out = UpstreamError(
            cause: first.cause,
            detail: "\(first.detail); no request gave the rest within \(fixed(waited, 1)) s (\(tries) tried, last: \(last.detail))")
        out.head = head
        throw out
    }

    /// Seconds without a byte, once a body's head came, after which it is taken as stalled and resumed: a third of the time it
    /// has to resume in, when that is shorter than the read timeout — a live body's budget (one and a half target durations)
    /// is, and a stall noticed only at the read timeout could never be resumed within it (DECISIONS.md, "A body that breaks
    /// is resumed"). Nil: the read timeout.
    static func stallAfter(budget: Double, readTimeout: Double) -> Double? {
        let s = max(1, budget / 3)
        return s < readTimeout ? s : nil
    }

    /// What a stalled body's error says.
    static func stallText(_ seconds: Double) -> String { "no byte for \(fixed(seconds, 1)) s" }

    /// The stall time the requests `body` makes have (`stallAfter`), through the task they run in.
    @TaskLocal static var stallAfter: Double?

    func stalling<T>(_ stall: Double?, _ body: () async throws(UpstreamError) -> T) async throws(UpstreamError) -> T {
        do {
            return try await Self.$stallAfter.withValue(stall) { try await body() }
        } catch let e as UpstreamError {
            throw e
        } catch {
            throw UpstreamError(cause: .protocolError, detail: "\(error)")
        }
    }

    /// Breaks a Range request may get past: a cut or reset connection, a body that stopped coming.
    static func resumable(_ c: UpstreamError.Cause) -> Bool { c == .truncated || c == .timeout || c == .connect }

    static func breakCause(_ e: UpstreamError) -> String {
        switch e.cause {
        case .timeout:
            // A stall found before the read timeout says how long it waited (`stallAfter`).
            guard let r = e.detail.range(of: ": no byte for ") else { return "stalled (no byte for the read timeout)" }
            return "stalled (\(e.detail[e.detail.index(r.lowerBound, offsetBy: 2)...]))"
        case .connect: return "connection failed"
        default: return e.detail.contains("connection failed") ? "cut (the connection was lost)" : "cut short"
        }
    }
}

/// The bytes of one body handed on so far, across its requests.
struct BodyProgress: Sendable {
    let keep: Int
    var head: UpstreamHead?
    var delivered = 0
    var kept: [UInt8] = []
    /// Bytes of the current answer still to drop before the rest begins (an origin that ignored the Range).
    var skip = 0
    /// When the last byte arrived (the client's clock).
    var lastByteAt: Double?

    init(keep: Int) { self.keep = keep }

    mutating func took(_ b: ByteBuffer, at now: Double) {
        delivered += b.readableBytes
        lastByteAt = now
        if kept.count < keep { kept += b.readableBytesView.prefix(keep - kept.count) }
    }

    /// What of `b`, a chunk of a resumed answer, continues the body (nil: nothing yet); never past `end` bytes in all.
    mutating func resumed(_ b: ByteBuffer, end: Int?, at now: Double) -> ByteBuffer? {
        var b = b
        if skip > 0 {
            let n = min(skip, b.readableBytes)
            b.moveReaderIndex(forwardBy: n)
            skip -= n
        }
        if let end { b = b.getSlice(at: b.readerIndex, length: min(b.readableBytes, max(0, end - delivered))) ?? b }
        guard b.readableBytes > 0 else { return nil }
        took(b, at: now)
        return b
    }
}
