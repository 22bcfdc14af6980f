import CMCD
import HLS
import LoaderEvents
import Session

// The request log and the message log. Built from the session and drawn, both pure.

/// One line of the request log or the message log, and how it is drawn.
public struct LogLine: Sendable, Equatable {
    public var text: String
    public var role: Role
}

extension DashboardModel {
    static func size(_ n: Int) -> String {
        n >= 1_048_576 ? fixed(Double(n) / 1_048_576, 1) + "M" : (n >= 1024 ? fixed(Double(n) / 1024, 1) + "k" : "\(n)")
    }

    /// With `--cache`: how the cache took part, and what it saved asking for ("hit 58.0k saved", "resumed 4.0k saved", "miss").
    public static func cacheNote(_ r: RequestEvent) -> String? {
        guard let c = r.cache else { return nil }
        return r.savedBytes > 0 ? "\(c.rawValue) \(size(r.savedBytes)) saved" : c.rawValue
    }

    /// The CMCD a request carried, without the keys that are the same for the whole session (sid, cid, sf, st, v).
    public static func cmcdNote(_ r: RequestEvent) -> String? {
        guard let text = r.cmcd else { return nil }
        let session: Set<String> = ["sid", "cid", "sf", "st", "v"]
        let kept = CMCD.read(headers: [], url: "?CMCD=" + CMCD.percentEncode(text)).data
        var shown = CMCDData()
        for k in kept.keys where !session.contains(k) { shown[k] = kept[k] }
        return CMCD.serialize(shown)
    }

    static func requestLine(_ r: RequestEvent, pathway: String? = nil) -> LogLine {
        let bytes = size(r.bytes)
        let ttfb = pad(r.ttfbMs.map { fixed($0, 1) } ?? "-", 6, right: true)
        let name = r.url.split(separator: "/").last.map(String.init) ?? r.url
        var text =
            pad(fixed(r.start, 3), 8, right: true) + " " + pad(r.kind.rawValue, 7) + " " + pad(r.rung.map { "r\($0)" } ?? "-", 3) + " "
        text +=
            pad(r.msn.map(String.init) ?? "-", 9, right: true) + " " + pad(String(r.status), 3, right: true) + " "
            + pad(bytes, 7, right: true) + " "
        text +=
            ttfb + " " + pad(fixed(r.durationMs, 1), 7, right: true) + " " + name + (pathway.map { " @\($0)" } ?? "")
            + (r.range.map { " \($0)" } ?? "")
            + (r.outcome == .gap ? "  GAP" : r.failure.map { "  \($0)" } ?? "") + (cacheNote(r).map { "  \($0)" } ?? "")
            + (r.cmsd.map { "  CMSD \($0.summary)" } ?? "") + (cmcdNote(r).map { "  CMCD \($0)" } ?? "")
        let role: Role = r.outcome == .gap ? .gap : (r.failure != nil || r.status >= 400 ? .bad : (r.local ? .dim : .normal))
        return LogLine(text: text, role: role)
    }
}

extension Dashboard {
    static func log(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let first = m.logFirst
        let more = m.logTotal == 0 ? "" : "\(first + 1)-\(min(m.logTotal, first + rows - 2))/\(m.logTotal) newest first"
        title(m.ui.showMessages ? "Messages" : "Requests", into: &c, y: &y, right: more)
        if !m.ui.showMessages {
            c.put(0, y, fit("       t kind    rung       msn  st   bytes   ttfb      ms name", c.width), .dim)
            y += 1
        }
        let end = y + rows - (m.ui.showMessages ? 1 : 2)
        for line in m.logLines {
            guard y < end else { break }
            c.put(0, y, fit(line.text, c.width), line.role)
            y += 1
        }
        y = end
    }
}
