import LoaderCore
import LoaderEvents
import Foundation
import JSONValue
import Loader
import HLS

/// Parses the command-line forms of Loader options.
public enum LoaderFlags {
    /// `URI=HEX` pairs for `--key`.
    public static func keys(_ pairs: [String]) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for p in pairs {
            guard let eq = p.lastIndex(of: "=") else { throw CLIFlagError("--key takes URI=HEX, got \(p)") }
            let hex = Array(p[p.index(after: eq)...].utf8)
            guard let (key, _) = try? KeyMaterial.decode(hex), hex.count >= 32 else {
                throw CLIFlagError("--key \(p[..<eq]): the key must be 32 hex digits")
            }
            out[String(p[..<eq])] = key
        }
        return out
    }

    /// `Name: value` pairs for `--header`.
    public static func headers(_ lines: [String]) throws -> [(String, String)] {
        try lines.map { h in
            guard let c = h.firstIndex(of: ":") else { throw CLIFlagError("--header takes \"Name: value\", got \(h)") }
            return (
                String(h[..<c]).trimmingCharacters(in: .whitespaces), String(h[h.index(after: c)...]).trimmingCharacters(in: .whitespaces)
            )
        }
    }
}

/// A bad flag value, in one line.
public struct CLIFlagError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// Runs `hlstui proxy`: the Loader alone, for any player, printing its events.
public enum ProxyRunner {
    /// One event as a line for people; `insecure` marks every line when TLS checks are off.
    public static func line(_ e: LoaderEvent, insecure: Bool) -> String {
        let flag = insecure ? "[INSECURE TLS] " : ""
        switch e {
        case .request(let r):
            let pts = r.firstPTS.map { String(format: " pts=%.3f", $0) } ?? ""
            let ttfb = r.ttfbMs.map { String(format: " ttfb=%.1fms", $0) } ?? ""
            return String(
                format: "%@%8.3f %@ %@ %d %d B%@ %.1fms%@%@%@%@", flag, r.start, r.kind.rawValue, r.msn.map { "msn=\($0)" } ?? "-",
                r.status,
                r.bytes, ttfb,
                r.durationMs, pts, r.local ? " local" : "", (r.outcome == .gap ? " GAP" : r.failure.map { " error=\($0)" } ?? ""),
                r.cache.map { " cache=\($0.rawValue)" + (r.savedBytes > 0 ? " saved=\(r.savedBytes)" : "") } ?? "")
        case .key(let k):
            let what = k.error ?? "fingerprint \(k.fingerprint ?? "?")"
            return String(
                format: "%@%8.3f key %@ %@ %.1fms %@%@ (%@)", flag, k.requested, k.uri, what, k.latencyMs,
                k.prefetch ? "prefetch" : "on-demand",
                k.repair.map { ", \($0)" } ?? "", k.source)
        case .diagnostic(let d):
            return "\(flag)error: \(d)"
        case .firstPTS(let rung, let msn, let seconds):
            return "\(flag)first PTS rung \(rung.map(String.init) ?? "-") msn \(msn): \(seconds)"
        case .mediaStart(let rung, let msn, let video, let audio, let independent):
            let av = video.flatMap { v in audio.map { SegmentMediaRules.audio($0 - v) } }.map { ", audio \($0)" } ?? ""
            let opens = independent.map { $0 ? ", opens independently" : ", opens without an independent frame" } ?? ""
            return
                "\(flag)media of msn \(msn) rung \(rung.map(String.init) ?? "-"): video from \(video.map { fixed($0, 3) } ?? "-")\(av)\(opens)"
        case .segmentStarted(let rung, let msn, let at):
            return String(format: "%@%8.3f segment %d of rung %@ started", flag, at, msn, rung.map(String.init) ?? "-")
        case .gapFilled(let msn, let gapRung, let by):
            return "\(flag)GAP msn \(msn) of rung \(gapRung) served from rung \(by)"
        case .failover(let msn, let failed, let by, let cause):
            return "\(flag)msn \(msn) of rung \(failed) failed (\(cause)): "
                + (by.map { "served from rung \($0)" } ?? "no other rung has it")
        case .recovered(let rung, let down, let cause):
            return "\(flag)rung \(rung) answers again after \(String(format: "%.1f", down)) s (it failed with \(cause))"
        case .resume(let r):
            return "\(flag)\(r.text)"
        case .playerCMCD(let c):
            // One line per request: the player's session so far, then what CTA-5004 says of this request's CMCD.
            let msn = c.msn.map { " msn=\($0)" } ?? ""
            return String(format: "%@%8.3f player %@ %@%@", flag, c.at, c.summary, c.kind.rawValue, msn)
                + (c.findings.isEmpty ? "" : "\n" + c.findings.map { "\(flag)         CMCD \($0)" }.joined(separator: "\n"))
        case .reload(let r):
            return String(
                format: "%@reload %@%@%@ held %.0f ms, %d bytes%@", flag, r.url, r.blockedFor.map { " blocked for msn \($0)" } ?? "",
                r.delta ? " delta" : "", r.holdSeconds * 1000, r.bytes,
                r.wholeBytes > r.bytes ? " (\(r.wholeBytes - r.bytes) saved, \(r.skipped) segments skipped)" : "")
        case .timedMetadata(let m):
            return String(format: "%@metadata msn=%d at %.3f s %@ ", flag, m.msn, m.time, m.scheme)
                + m.frames.map { "\($0.id) \($0.text)" }.joined(separator: "; ")
        case .captionData(let c):
            return String(format: "%@captions msn=%d %d pictures", flag, c.msn, c.samples.count)
        case .playlist(let p):
            return String(
                format: "%@%8.3f playlist %@ msn=%d segments=%d%@", flag, p.received, p.url, p.playlist.mediaSequence,
                p.playlist.segments.count,
                p.playlist.endList ? " endlist" : "")
        }
    }

    /// The JSON Lines form, with the insecure flag in every object.
    public static func json(_ e: LoaderEvent, insecure: Bool) -> String {
        var fields: [(String, JSONValue)] = []
        if case .object(let f) = e.json { fields = f }
        if insecure { fields.append(("insecureTLS", .bool(true))) }
        return JSONValue.object(fields).text
    }
}
