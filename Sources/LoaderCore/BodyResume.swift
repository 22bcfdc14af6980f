import Foundation
/// How a body that broke after its head went to the player is continued from the byte where it stopped (DECISIONS.md, "A body
/// that breaks is resumed"): a Range request for the rest, guarded by If-Range so a changed object is never stitched to the
/// bytes already sent (RFC 9110 §13.1.5, §14.2). Pure: the Loader's client does the requests and keeps the time.
public struct BodyResume: Sendable, Equatable {
    /// What the first answer said of the object: its validators and the span it covers.
    public let etag: String?
    public let lastModified: String?
    /// The first byte of the object the first answer started at (0, or the start of the Range asked for).
    public let origin: Int
    /// The last byte of the object the answer ends with, when known (a Range's end, or the length less one).
    public let last: Int?
    /// When the first break happened, and how long the resumption may take in all (seconds, the caller's clock).
    public let since: Double
    public let budget: Double
    public private(set) var attempts = 0

    public init(etag: String?, lastModified: String?, origin: Int, last: Int?, since: Double, budget: Double) {
        // A weak ETag names an equivalent representation, not the same bytes: it cannot guard a byte range (RFC 9110 §13.1.5).
        self.etag = etag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
        self.lastModified = lastModified
        (self.origin, self.last, self.since, self.budget) = (origin, last, since, budget)
    }

    /// The policy for an answer whose head reads `status` with these headers, to a request for `range` (nil: the whole object).
    public static func after(
        status: Int, headers: (String) -> String?, range: String?, since: Double, budget: Double
    ) -> BodyResume {
        let asked = range.flatMap(Self.span)
        let cr = status == 206 ? ContentRange(headers("content-range")) : nil
        let length = headers("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let origin = cr?.first ?? asked?.first ?? 0
        let last = cr?.last ?? asked?.last ?? length.map { origin + $0 - 1 }
        return BodyResume(
            etag: headers("etag"), lastModified: headers("last-modified"), origin: origin, last: last, since: since, budget: budget)
    }

    /// The validator an If-Range carries: the strong ETag, else the Last-Modified date; nil when the origin gave neither.
    public var validator: String? { etag ?? lastModified }

    /// The request that continues after `delivered` bytes of the body: its Range header and If-Range value.
    public func request(delivered: Int) -> (range: String, ifRange: String?) {
        let from = origin + delivered
        return ("bytes=\(from)-\(last.map(String.init) ?? "")", validator)
    }

    /// What an answer to `request(delivered:)` means.
    public enum Answer: Sendable, Equatable {
        /// The rest of the same object: skip this many bytes of its body (0 for a 206 from the byte asked for; the bytes already
        /// sent when an origin ignored the Range and sent the same object whole).
        case continues(skip: Int)
        /// Not the same object any more (another validator or length): nothing can be stitched.
        case changed(String)
        /// An answer that carries none of the rest (an error status, a range elsewhere): worth another try within the budget.
        case unusable(String)
    }

    public func judge(status: Int, headers: (String) -> String?, delivered: Int) -> Answer {
        let from = origin + delivered
        let etag = headers("etag")
        let lastModified = headers("last-modified")
        // The validator the answer carries must be the first one's whenever the first had one (strong comparison for ETags).
        if let mine = self.etag, let theirs = etag, theirs != mine {
            return .changed("the object changed (ETag \(mine) → \(theirs))")
        }
        if self.etag == nil, let mine = lastModified, let theirs = self.lastModified, theirs != mine {
            return .changed("the object changed (Last-Modified \(theirs) → \(mine))")
        }
        switch status {
        case 206:
            guard let cr = ContentRange(headers("content-range")) else { return .unusable("a 206 without Content-Range") }
            if let last, let total = cr.total, total <= last { return .changed("the object is \(total) bytes now, shorter than before") }
            guard cr.first == from else { return .unusable("a range from byte \(cr.first) where \(from) was asked for") }
            return .continues(skip: 0)
        case 200:
            // The whole object again: an origin that ignores Range, or one whose If-Range failed (the object changed). Only
            // the first can be stitched, and only a validator tells them apart; the length must agree as well.
            guard validator != nil else {
                return .changed("the origin answered the range with the whole object and no validator to tell it is the same")
            }
            if origin == 0, let last, let length = headers("content-length").flatMap({ Int($0) }), length != last + 1 {
                return .changed("the object is \(length) bytes now, \(last + 1) before")
            }
            return .continues(skip: from)
        case 412, 416:
            return .changed("HTTP \(status) to the range (the object is not the one begun)")
        default:
            return .unusable("HTTP \(status)")
        }
    }

    /// The wait before the next try at `now`, or nil when the budget is spent (counting the wait).
    public mutating func next(at now: Double) -> Double? {
        let wait = attempts == 0 ? 0 : min(2, 0.25 * Double(1 << min(attempts - 1, 3)))
        guard now + wait - since <= budget else { return nil }
        attempts += 1
        return wait
    }

    /// `bytes=a-b` or `bytes=a-` of a Range header: the first and (when given) last byte.
    static func span(_ range: String) -> (first: Int, last: Int?)? {
        let r = range.trimmingCharacters(in: .whitespaces)
        guard r.lowercased().hasPrefix("bytes="), !r.contains(",") else { return nil }
        let parts = r.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
        let b = parts[1].trimmingCharacters(in: .whitespaces)
        return (a, b.isEmpty ? nil : Int(b))
    }
}

extension BodyResume {
    /// How long a broken body may take to resume. VOD: `hold`, as long as a failing VOD segment is held (a segment is never
    /// skipped while its origin may answer). Live: one and a half target durations, about what a player at HOLD-BACK still
    /// has buffered ahead of the segment (RFC 8216bis §6.3.3: three target durations from the end); past that the player is
    /// better served by the next segment than by waiting.
    public static func budget(complete: Bool, hold: Double, targetDuration: Int?) -> Double {
        complete ? hold : 1.5 * Double(targetDuration ?? 6)
    }

    /// Resumptions the URL that broke gets to itself before other copies of the same bytes take turns with it: a connection
    /// cut once is most often answered on the next request; a host that keeps failing is not.
    public static let copiesAfter = 2

    /// Where resumption `attempt` (1, 2, …) asks: the URL that broke, then, from `copiesAfter + 1` on, the copies and it in
    /// turn (each under the first answer's If-Range, so only the same object continues the body).
    public static func source(attempt: Int, broke url: String, copies: [String]) -> String {
        guard attempt > copiesAfter else { return url }
        let turn = [url] + copies.filter { $0 != url }
        return turn[(attempt - copiesAfter) % turn.count]
    }
}
