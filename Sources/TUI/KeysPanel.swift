import HLS
import LoaderEvents
import Session

// The key timeline: each key over the segments it covers. Built from the session and drawn, both pure.

/// One key on the key timeline.
public struct KeyRow: Sendable, Equatable {
    public var start: Double?
    public var end: Double?
    public var role: Role
    public var text: String
}

extension DashboardModel {
    static func keyRows(_ s: SessionState) -> [KeyRow] {
        // The latest event per key URI, in the order keys were first seen.
        var order: [String] = []
        var latest: [String: KeyEvent] = [:]
        for k in s.keys {
            if latest[k.uri] == nil { order.append(k.uri) }
            latest[k.uri] = k
        }
        let events = order.compactMap { latest[$0] }
        let m = s.playingMedia
        let starts = m.map(Timeline.startTimes) ?? []
        return events.enumerated().map { i, k in
            // A key applies until the next EXT-X-KEY (RFC 8216bis §4.4.4.4): up to where the next key starts, however few of
            // its segments were known when it was fetched.
            let next = events.indices.contains(i + 1) ? events[i + 1].firstMSN : nil
            let last = k.lastMSN.map { b in next.map { max(b, $0 - 1) } ?? b }
            var start: Double?
            var end: Double?
            if let m, let a = k.firstMSN, let b = last {
                let i = max(a, m.mediaSequence) - m.mediaSequence
                let j = min(b - m.mediaSequence, m.segments.count - 1)
                if i <= j, starts.indices.contains(i), starts.indices.contains(j) {
                    start = starts[i]
                    end = starts[j] + m.segments[j].duration
                }
            }
            let range = k.firstMSN.map { a in "msn \(a)–\(last ?? a)" } ?? "msn ?"
            let what = k.error.map { "FAILED \($0)" } ?? "fp \(k.fingerprint ?? "?")"
            // A downloaded key's countdown right after what it covers: it must fit an 80-column key row.
            let text =
                "\(what) \(range)\(persisted(k, wall: s.sample.wall)) \(fixed(k.latencyMs, 0))ms \(k.prefetch ? "prefetch" : "on-demand")\(k.spreadMs.map { " spread \(fixed($0 / 1000, 1))s" } ?? "")\(k.repair.map { " repaired(\($0))" } ?? "") \(k.method)"
            return KeyRow(
                start: start, end: end, role: k.error != nil ? .keyFailed : (k.prefetch ? .keyPrefetch : .keyOnDemand), text: text)
        }
    }

    /// A key kept with a download: its countdown to the clock that ends it first, from the wall time of the latest sample.
    static func persisted(_ k: KeyEvent, wall: DateTime?) -> String {
        guard k.source == "download" else { return "" }
        guard let at = k.expires, let clock = k.expiresClock else { return " stored · no expiry" }
        guard let now = wall?.seconds else { return " stored · \(clock) expiry" }
        let left = at - now
        guard left > 0 else { return " stored · EXPIRED (\(clock))" }
        let s = Int(left)
        let text =
            s >= 86400 ? "\(s / 86400)d \(s % 86400 / 3600)h" : s >= 3600 ? "\(s / 3600)h \(s % 3600 / 60)m" : "\(s / 60)m \(s % 60)s"
        return " stored · \(clock) \(text) left"
    }
}

extension Dashboard {
    /// The `count` key rows a screen has room for: from the key in force at the playhead on (a live stream rotating its keys
    /// has many more than fit, the first ones long gone from the window), else the newest.
    static func shownKeys(_ rows: [KeyRow], playhead: Double?, count: Int) -> (rows: ArraySlice<KeyRow>, fromPlayhead: Bool) {
        guard rows.count > count else { return (rows[...], false) }
        // The key in force at the playhead: the last one to start at or before it (a key applies until the next EXT-X-KEY,
        // RFC 8216bis §4.4.4.4).
        let at = playhead.flatMap { p in rows.lastIndex { k in k.start.map { $0 <= p } == true } }
        let first = min(at ?? rows.count - count, rows.count - count)
        return (rows[first..<(first + count)], at != nil)
    }

    static func keys(
        _ shown: (rows: ArraySlice<KeyRow>, fromPlayhead: Bool), of all: Int, playhead t: TimelineModel?, into c: inout Canvas, y: inout Int
    ) {
        let rows = shown.rows
        let which = shown.fromPlayhead ? "from the playhead's" : "the newest"
        title("Keys", into: &c, y: &y, right: rows.count < all ? "\(rows.count) of \(all), \(which)" : "")
        let barWidth = max(10, c.width >= 100 ? c.width / 4 : c.width / 3)
        let textWidth = c.width - barWidth - 3
        for k in rows {
            c.put(1, y, fit(k.text, textWidth), k.role)
            let x0 = c.width - barWidth - 1
            c.put(x0, y, String(repeating: "·", count: barWidth), .dim)
            if let t, t.length > 0 {
                if let a = k.start, let b = k.end {
                    let i = column(a, length: t.length, width: barWidth)
                    let j = column(max(a, b - 0.001), length: t.length, width: barWidth)
                    c.put(x0 + i, y, String(repeating: "▬", count: j - i + 1), k.role)
                    if i > 0 { c.put(x0 + i, y, "│", .border) }
                }
                if let p = t.playhead { c.put(x0 + column(p, length: t.length, width: barWidth), y, "┃", .playhead) }
            }
            y += 1
        }
    }
}
