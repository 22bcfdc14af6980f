import Crypto
import Foundation

/// What a cached answer is for: it decides whether it is kept, when it is served, and whether it is sealed (DECISIONS.md
/// "The Loader's disk cache").
public enum CacheUse: Sendable, Equatable {
    /// Not cached (a live media playlist's reload is always asked of the origin, unless offline).
    case none
    /// Segments, partial segments and init sections: immutable once published, resumable by Range when cut.
    case media
    /// Playlists: kept, but served from the cache only when final (EXT-X-ENDLIST: it can no longer change, RFC 8216bis
    /// §4.4.3.4) or when the session is offline.
    case playlist
    /// Keys: kept sealed (AES-GCM under the user's vault key), never in the clear.
    case key
}

/// Which bytes of a resource a request asks for: all of it (no Range, or `bytes=0-`, which FFmpeg sends by default), or a
/// span (RFC 9110 §14.1.2, one range only).
public enum RequestedSpan: Sendable, Equatable {
    case whole(asRange: Bool)
    case from(Int)
    case span(Int, Int)

    public init?(range: String?) {
        guard let range else {
            self = .whole(asRange: false)
            return
        }
        let r = range.trimmingCharacters(in: .whitespaces)
        guard r.lowercased().hasPrefix("bytes="), !r.contains(",") else { return nil }
        let parts = r.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2, let a = Int(parts[0]), a >= 0 else { return nil }
        if parts[1].isEmpty {
            self = a == 0 ? .whole(asRange: true) : .from(a)
        } else {
            guard let b = Int(parts[1]), b >= a else { return nil }
            self = .span(a, b)
        }
    }

    /// The bytes of a resource of `length` bytes this asks for, or nil when it cannot be satisfied.
    public func bounds(length: Int) -> Range<Int>? {
        switch self {
        case .whole: return 0..<length
        case .from(let a): return a < length ? a..<length : nil
        case .span(let a, let b): return a < length ? a..<min(b + 1, length) : nil
        }
    }

    /// True when the answer is a 206 with Content-Range (any Range header was sent).
    public var partialAnswer: Bool {
        if case .whole(false) = self { return false }
        return true
    }
}

/// `Content-Range: bytes FIRST-LAST/TOTAL` (RFC 9110 §14.4).
public struct ContentRange: Sendable, Equatable {
    public var first: Int
    public var last: Int
    public var total: Int?

    public init(first: Int, last: Int, total: Int?) {
        (self.first, self.last, self.total) = (first, last, total)
    }

    public init?(_ header: String?) {
        guard let h = header?.trimmingCharacters(in: .whitespaces), h.lowercased().hasPrefix("bytes ") else { return nil }
        let rest = h.dropFirst(6).split(separator: "/", maxSplits: 1).map(String.init)
        let span = rest.first?.split(separator: "-").compactMap { Int($0) } ?? []
        guard span.count == 2, span[0] <= span[1] else { return nil }
        (first, last) = (span[0], span[1])
        total = rest.count == 2 ? Int(rest[1]) : nil
    }

    public var header: String { "bytes \(first)-\(last)/\(total.map(String.init) ?? "*")" }
}

/// The cache's pure rules: keys, sizes, what is served, what is evicted, the head a cached answer is given.
public enum CachePolicy {
    /// The cache key: the URL with the named query parameters taken out (tokens and expiry times that change per session
    /// but not the bytes), and the span when it is not the whole resource.
    public static func key(url: String, span: RequestedSpan, ignoring names: Set<String>) -> String {
        var base = url
        if !names.isEmpty, var c = URLComponents(string: url), let items = c.percentEncodedQueryItems {
            let kept = items.filter { !names.contains($0.name.lowercased()) }
            c.percentEncodedQueryItems = kept.isEmpty ? nil : kept
            base = c.string ?? url
        }
        switch span {
        case .whole: return base
        case .from(let a): return base + "#bytes=\(a)-"
        case .span(let a, let b): return base + "#bytes=\(a)-\(b)"
        }
    }

    /// The file name of a key: the hex SHA-256 of it (so a URL's text never names a file).
    public static func fileName(_ key: String) -> String {
        SHA256.hash(data: Array(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Bytes in "2G", "500M", "64k" or "1048576" (binary units); nil when it is not a size.
    public static func size(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(
            of: "B", with: "")
        let units: [Character: Double] = ["K": 1024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
        var number = Substring(t)
        var scale = 1.0
        if let last = t.last, let u = units[last] {
            scale = u
            number = t.dropLast()
        }
        guard let v = Double(number), v > 0, v.isFinite else { return nil }
        return Int(v * scale)
    }

    /// Whether a stored playlist may be served without asking the origin.
    public static func servesPlaylist(final: Bool, offline: Bool) -> Bool { final || offline }

    /// True when a playlist's text says it will not change (EXT-X-ENDLIST, RFC 8216bis §4.4.3.4).
    public static func isFinal(playlist body: [UInt8]) -> Bool {
        String(decoding: body, as: UTF8.self).contains("#EXT-X-ENDLIST")
    }

    /// One stored answer as eviction sees it.
    public struct Stored: Sendable, Equatable {
        public var name: String
        public var bytes: Int
        public var lastUse: Double
        public init(name: String, bytes: Int, lastUse: Double) {
            (self.name, self.bytes, self.lastUse) = (name, bytes, lastUse)
        }
    }

    /// What to remove so the cache fits `limit` bytes: the least recently used first, never one named in `keep` (being written
    /// or just served).
    public static func evict(_ stored: [Stored], limit: Int, keep: Set<String> = []) -> [String] {
        var total = stored.reduce(0) { $0 + $1.bytes }
        guard total > limit else { return [] }
        var out: [String] = []
        for s in stored.sorted(by: { ($0.lastUse, $0.name) < ($1.lastUse, $1.name) }) where !keep.contains(s.name) {
            guard total > limit else { break }
            out.append(s.name)
            total -= s.bytes
        }
        return out
    }

    /// The head a stored answer is served with for `span`: 200 with the whole length for a request without Range, 206 with
    /// its Content-Range otherwise (what the origin would have answered). `headers` are the origin's, whose length and
    /// range fields are replaced.
    public static func head(headers: [(String, String)], length: Int, span: RequestedSpan) -> (status: Int, headers: [(String, String)])? {
        guard let b = span.bounds(length: length) else { return nil }
        var h = headers.filter { !["content-length", "content-range", "transfer-encoding"].contains($0.0.lowercased()) }
        h.append(("Content-Length", String(b.count)))
        guard span.partialAnswer else { return (200, h) }
        h.append(("Content-Range", ContentRange(first: b.lowerBound, last: b.upperBound - 1, total: length).header))
        return (206, h)
    }
}

/// Sealing key bytes for storage (the cache, downloads): AES-256-GCM under the user's vault key, so a copied folder holds no
/// key in the clear (DECISIONS.md "The Loader's disk cache").
public enum KeySeal {
    public static func seal(_ clear: [UInt8], with vault: SymmetricKey) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(clear, using: vault).combined else { throw KeyError(description: "sealing failed") }
        return Array(combined)
    }

    public static func open(_ sealed: [UInt8], with vault: SymmetricKey) throws -> [UInt8] {
        Array(try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: vault))
    }
}
