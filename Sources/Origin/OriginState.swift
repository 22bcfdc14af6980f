import CMCD
import Foundation
import JSONValue
import NIOConcurrencyHelpers

/// A fault switched on by `/control/fault`: what it does, where, and how many more times.
public struct Fault: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Answer with `status` instead of the resource.
        case status
        /// Wait `ms` before answering.
        case slow
        /// Send the headers and part of the body (`bytes`, else a quarter), then nothing (for `hold` seconds, else a minute).
        case stall
        /// Promise the whole body, send part of it (`bytes`, else half), close.
        case truncate
        /// Send the headers, then the body a byte every `ms` milliseconds (else 3000): never silent for a read timeout, never
        /// done (a proxy or origin that dribbles).
        case trickle
        /// Answer a Range request with the whole resource (200), as an origin that ignores Range does.
        case norange
        /// The resource's ETag changes (as when an object is replaced): an If-Range naming the old one gets the whole resource.
        case etag
        /// The live playlist stops updating.
        case freeze
        /// The live media sequence restarts at 0.
        case reset
        /// The live encoder loses its clock: segments published while it lasts (`for=` seconds, else until cleared) carry no
        /// PDT, with a discontinuity where PDT stops and where it comes back.
        case nopdt
        /// The live playlist lists its segments under other URIs while it lasts (the same MSNs, the same media): what a
        /// packager that renames segments it has already published does (RFC 8216bis §6.2.1 forbids it).
        case uriswap
        /// WebVTT subtitle segments whose X-TIMESTAMP-MAP is `ms` milliseconds off the media's timestamps (a packager that
        /// took the wrong PTS for the map).
        case vttshift
        /// WebVTT subtitle segments without their X-TIMESTAMP-MAP.
        case vttnomap
        /// WebVTT subtitle segments without the WEBVTT signature.
        case vttnoheader

        /// Changes a WebVTT segment's text: taken only by subtitle requests.
        var isWebVTT: Bool { self == .vttshift || self == .vttnomap || self == .vttnoheader }

        /// Changes what a live playlist lists rather than how a request is answered.
        var isLive: Bool { self == .freeze || self == .reset || self == .nopdt || self == .uriswap }
    }

    public enum Target: String, Sendable, CaseIterable {
        case segment, key, playlist, initSection = "init", any
    }

    public var id: Int
    public var kind: Kind
    public var target: Target
    public var status: Int
    public var ms: Int
    public var scenario: String?
    public var rendition: String?
    public var msn: Int?
    /// How many more requests it applies to; nil for all.
    public var remaining: Int?
    /// When the fault starts (seconds since 1970): when it was switched on, or later (`after=`); a freeze holds the window
    /// as it was then.
    public var since: Double
    /// A timed outage: the fault applies until this moment (seconds since 1970), then ends by itself; nil for no end.
    public var until: Double?
    /// Only requests of this client (`?client=` on the playlist, kept on every URI it lists); nil for every client.
    public var client: String?
    /// Only requests sent to this host (one of `OriginServer.hosts`): an outage of one CDN of several; nil for every host.
    public var host: String?
    /// stall, truncate: the bytes of the body sent before the break.
    public var bytes: Int?
    /// stall: seconds of silence before the connection closes.
    public var hold: Double?

    public init(
        id: Int, kind: Kind, target: Target, status: Int, ms: Int, scenario: String?, rendition: String?, msn: Int?,
        remaining: Int?, since: Double, until: Double? = nil
    ) {
        (self.id, self.kind, self.target, self.status, self.ms) = (id, kind, target, status, ms)
        (self.scenario, self.rendition, self.msn, self.remaining, self.since, self.until) = (
            scenario, rendition, msn, remaining, since, until
        )
    }

    public var json: JSONValue {
        .object([
            ("id", .int(id)), ("kind", .string(kind.rawValue)), ("target", .string(target.rawValue)), ("status", .int(status)),
            ("ms", .int(ms)), ("scenario", .string(scenario)), ("rendition", .string(rendition)), ("msn", .int(msn)),
            ("remaining", .int(remaining)), ("until", until.map { .double($0) } ?? .null), ("client", .string(client)),
            ("host", .string(host)), ("bytes", .int(bytes)), ("hold", hold.map { .double($0) } ?? .null),
        ])
    }
}

/// One request the origin answered.
public struct RequestRecord: Sendable {
    public var time: Double
    public var wall: Double
    public var method: String
    public var path: String
    public var range: String?
    public var status: Int
    public var bytes: Int
    public var durationMs: Double
    public var tls: Bool
    public var scenario: String?
    public var rendition: String?
    public var kind: String
    public var msn: Int?
    public var pdt: String?
    public var mediaTime: Double?
    public var gap: Bool
    public var fault: String?
    public var userAgent: String? = nil
    /// The host the request was sent to.
    public var host: String? = nil
    /// The CMCD the request carried (normalized: keys sorted), and what CTA-5004 says of it (docs/CMCD.md).
    public var cmcd: String? = nil
    public var cmcdFindings: [String] = []

    public var json: JSONValue {
        .object([
            ("t", .double(time)), ("wall", .string(DateTimeText.iso(wall))), ("method", .string(method)), ("path", .string(path)),
            ("range", .string(range)), ("status", .int(status)), ("bytes", .int(bytes)), ("durationMs", .double(durationMs)),
            ("tls", .bool(tls)), ("scenario", .string(scenario)), ("rendition", .string(rendition)), ("kind", .string(kind)),
            ("msn", .int(msn)), ("pdt", .string(pdt)), ("mediaTime", .double(mediaTime)), ("gap", .bool(gap)), ("fault", .string(fault)),
            ("userAgent", .string(userAgent)), ("host", .string(host)), ("cmcd", .string(cmcd)),
            ("cmcdFindings", cmcd == nil ? .null : .array(cmcdFindings.map { .string($0) })),
        ])
    }

    /// One line for the terminal.
    public var line: String {
        let r = range.map { " [\($0)]" } ?? ""
        let f = fault.map { " fault=\($0)" } ?? ""
        let c = cmcdFindings.isEmpty ? "" : " CMCD: " + cmcdFindings.joined(separator: "; ")
        return String(
            format: "%8.3f %@ %@%@ %d %d B %.1f ms%@%@%@", time, tls ? "https" : "http ", path, r, status, bytes, durationMs,
            gap ? " GAP" : "", f, c)
    }
}

enum DateTimeText {
    static func iso(_ seconds: Double) -> String {
        let d = Date(timeIntervalSince1970: seconds)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }
}

/// The origin's mutable state: faults, key latency, the request log. Safe to share across event loops.
public final class OriginState: Sendable {
    struct Inner {
        var faults: [Fault] = []
        var nextID = 1
        var keyLatencyMs = 0
        var keyFormat = "binary"
        var cmsdMaxKbps: Int?
        var log: [RequestRecord] = []
        var steering = SteeringSettings()
    }

    private let box = NIOLockedValueBox(Inner())
    /// The players whose CMCD the origin has read, by `sid` (`OriginCMCD`, `/control/players`).
    let cmcdPlayers = NIOLockedValueBox(CMCDPlayers())
    public let startedAt: Double
    /// Keeps at most this many records.
    public let logLimit = 20_000
    let onRequest: (@Sendable (RequestRecord) -> Void)?

    public init(startedAt: Double, keyLatencyMs: Int = 0, onRequest: (@Sendable (RequestRecord) -> Void)? = nil) {
        self.startedAt = startedAt
        self.onRequest = onRequest
        box.withLockedValue { $0.keyLatencyMs = keyLatencyMs }
    }

    public var keyLatencyMs: Int {
        get { box.withLockedValue { $0.keyLatencyMs } }
        set { box.withLockedValue { $0.keyLatencyMs = newValue } }
    }

    /// `/control/cmsd?mb=KBPS`: every scenario answer carries CMSD with this maximum suggested bitrate (nil: none).
    public var cmsdMaxKbps: Int? {
        get { box.withLockedValue { $0.cmsdMaxKbps } }
        set { box.withLockedValue { $0.cmsdMaxKbps = newValue } }
    }

    /// How keys are written: `binary` (16 bytes), `newline` (17 bytes, a key saved in text mode) or `hex` (32 hex digits).
    public var keyFormat: String {
        get { box.withLockedValue { $0.keyFormat } }
        set { box.withLockedValue { $0.keyFormat = newValue } }
    }

    public var faults: [Fault] { box.withLockedValue { $0.faults } }

    /// What the `steered` scenario's steering server answers (`/control/steering`).
    public var steering: SteeringSettings {
        get { box.withLockedValue { $0.steering } }
        set { box.withLockedValue { $0.steering = newValue } }
    }

    /// Adds a fault and returns it with its id.
    @discardableResult
    /// Switches fault `f` on at `now` (seconds since 1970). A fault that changes what a live playlist lists starts no earlier
    /// than that: a freeze dated before it would hold a window older than one already served, and the stream would go back.
    public func add(_ f: Fault, now: Double? = nil) -> Fault {
        box.withLockedValue { s in
            var f = f
            if let now, f.kind.isLive, f.since < now { f.since = now }
            f.id = s.nextID
            s.nextID += 1
            s.faults.append(f)
            return f
        }
    }

    public func clearFaults() { box.withLockedValue { $0.faults.removeAll() } }

    /// Forgets the request log (a process that runs the origin beside many sessions, as the restarts benchmark does).
    public func clearLog() { box.withLockedValue { $0.log.removeAll() } }

    /// The first request fault matching, consuming one use of it.
    func takeFault(
        target: Fault.Target, scenario: String?, rendition: String?, msn: Int?, client: String?, host: String? = nil,
        subtitle: Bool = false, now: Double
    ) -> Fault? {
        box.withLockedValue { s in
            guard
                let i = s.faults.firstIndex(where: { f in
                    !f.kind.isLive && (!f.kind.isWebVTT || subtitle)
                        && (f.target == .any || f.target == target)
                        && (f.scenario == nil || f.scenario == scenario)
                        && (f.rendition == nil || f.rendition == rendition)
                        && (f.msn == nil || f.msn == msn)
                        && (f.client == nil || f.client == client)
                        && (f.host == nil || f.host == host)
                        && (f.remaining ?? 1) > 0
                        && f.since <= now && (f.until.map { now < $0 } ?? true)
                })
            else { return nil }
            let f = s.faults[i]
            if let r = f.remaining { s.faults[i].remaining = r - 1 }
            return f
        }
    }

    /// Freeze/reset faults switched on for `scenario`.
    func liveFaults(_ scenario: String, client: String?) -> [Fault] {
        box.withLockedValue { s in
            s.faults.filter {
                $0.kind.isLive && ($0.scenario == nil || $0.scenario == scenario) && ($0.client == nil || $0.client == client)
            }
        }
    }

    func record(_ r: RequestRecord) {
        box.withLockedValue { s in
            s.log.append(r)
            if s.log.count > logLimit { s.log.removeFirst(s.log.count - logLimit) }
        }
        onRequest?(r)
    }

    /// Records from index `since` on.
    public func log(since: Int = 0) -> [RequestRecord] {
        box.withLockedValue { s in since < s.log.count ? Array(s.log[max(0, since)...]) : [] }
    }
}

/// How the origin's steering server answers (docs/STEERING.md): the priority, the TTL, a clone, or a refusal.
public struct SteeringSettings: Sendable, Equatable {
    /// PATHWAY-PRIORITY.
    public var priority = ["cdn-a", "cdn-b"]
    /// TTL, seconds.
    public var ttl = 10
    /// 200 answers the manifest; 410, 429 (with `retryAfter`) or any other status answers that instead.
    public var status = 200
    public var retryAfter: Int?
    /// Adds PATHWAY-CLONES: "cdn-c", cdn-a's variants on the third loopback host.
    public var clone = false

    public init() {}

    public var json: JSONValue {
        .object([
            ("priority", .array(priority.map { .string($0) })), ("ttl", .int(ttl)), ("status", .int(status)),
            ("retryAfter", .int(retryAfter)), ("clone", .bool(clone)),
        ])
    }
}
