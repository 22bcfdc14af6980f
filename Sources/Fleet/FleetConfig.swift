import Yams

/// A fleet file (docs/METRICS.md): the streams one process watches, each a headless session.
public struct FleetConfig: Sendable, Equatable {
    public struct Stream: Sendable, Equatable {
        /// The `stream` label: letters, digits, `_ . -`; unique in the file.
        public var name: String
        /// One URL, or up to four started and kept in sync.
        public var urls: [String]
        /// false: the player demuxes and decodes audio but decodes no video (delivery is watched, not the picture).
        public var video = true
        /// A resolution cap (the variant's height), as `--max-resolution`.
        public var maxResolution: Int?
        /// TLS certificates not checked (said at the start, as `--insecure` is).
        public var insecure = false
        /// As `--latency`: every pane follows the wall clock less this (docs/SYNC.md).
        public var latency: Latency?
    }

    /// `latency:` — seconds behind the wall clock, or the smallest every pane of the stream can hold.
    public enum Latency: Sendable, Equatable {
        case seconds(Double)
        case auto
    }

    /// Where `/metrics` is served ("HOST:PORT"); `--metrics` overrides it.
    public var metrics: String?
    public var streams: [Stream]

    /// The file's text, checked: every problem is one line naming the stream (or the line) and what is wrong.
    public static func parse(_ text: String) throws -> FleetConfig {
        let file: File
        do { file = try YAMLDecoder().decode(File.self, from: text) } catch let e as DecodingError {
            throw FleetError(description: "fleet file: \(Self.describe(e))")
        } catch {
            throw FleetError(description: "fleet file: \(error)")
        }
        guard let entries = file.streams, !entries.isEmpty else { throw FleetError(description: "fleet file: no streams") }
        var seen: Set<String> = []
        var streams: [Stream] = []
        for (i, e) in entries.enumerated() {
            let at = "stream \(i + 1)"
            guard let name = e.name, !name.isEmpty else { throw FleetError(description: "fleet file: \(at) has no name") }
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) else {
                throw FleetError(description: "fleet file: \(at): name \"\(name)\" may hold only letters, digits, _ . -")
            }
            guard seen.insert(name).inserted else { throw FleetError(description: "fleet file: two streams are named \(name)") }
            let urls = (e.url.map { [$0] } ?? []) + (e.urls ?? [])
            guard !urls.isEmpty else { throw FleetError(description: "fleet file: \(name) has no url") }
            guard urls.count <= 4 else { throw FleetError(description: "fleet file: \(name) lists \(urls.count) urls, at most four") }
            for u in urls where !(u.hasPrefix("http://") || u.hasPrefix("https://")) {
                throw FleetError(description: "fleet file: \(name): \(u) is not an http(s) URL")
            }
            if let r = e.maxResolution, r <= 0 {
                throw FleetError(description: "fleet file: \(name): maxResolution takes a height in lines, got \(r)")
            }
            var latency: Latency?
            if let l = e.latency {
                if l == "auto" {
                    latency = .auto
                } else if let v = Double(l), v.isFinite, v >= 0, v <= 86_400 {
                    latency = .seconds(v)
                } else {
                    throw FleetError(
                        description: "fleet file: \(name): latency takes seconds behind the wall clock (0 to 86400) or auto, got \(l)")
                }
            }
            var stream = Stream(
                name: name, urls: urls, video: e.video ?? true, maxResolution: e.maxResolution, insecure: e.insecure ?? false)
            stream.latency = latency
            streams.append(stream)
        }
        return FleetConfig(metrics: file.metrics, streams: streams)
    }

    private struct File: Decodable {
        var metrics: String?
        var streams: [Entry]?
    }

    private struct Entry: Decodable {
        var name: String?
        var url: String?
        var urls: [String]?
        var video: Bool?
        var maxResolution: Int?
        var insecure: Bool?
        var latency: String?
    }

    /// A decoding error in one line: where, and what.
    static func describe(_ e: DecodingError) -> String {
        func path(_ c: DecodingError.Context) -> String {
            let p = c.codingPath.map { $0.intValue.map { "[\($0 + 1)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "" : "\(p): "
        }
        switch e {
        case .typeMismatch(let t, let c): return "\(path(c))expected \(t)"
        case .valueNotFound(let t, let c): return "\(path(c))expected \(t)"
        case .keyNotFound(let k, let c): return "\(path(c))missing \(k.stringValue)"
        case .dataCorrupted(let c): return "\(path(c))\(c.underlyingError.map { "\($0)" } ?? c.debugDescription)"
        @unknown default: return "\(e)"
        }
    }
}

public struct FleetError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// When a fleet starts a session again: 1 s after the first failure, doubling to a minute; a session that ran a minute or
/// more before it ended starts the count again.
public struct RestartBackoff: Sendable, Equatable {
    public static let first = 1.0
    public static let longest = 60.0
    /// How long a session must run to be called healthy again.
    public static let healthy = 60.0
    public private(set) var next = first

    public init() {}

    /// The delay before the next start, given how long the session that just ended ran.
    public mutating func delay(after ran: Double) -> Double {
        if ran >= Self.healthy { next = Self.first }
        defer { next = min(Self.longest, next * 2) }
        return next
    }
}
