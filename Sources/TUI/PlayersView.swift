import CMCD
import HLS
import Session

/// `hlstui proxy --players`: every player that sends CMCD through the proxy as a pane of its own (docs/CMCD.md) — its
/// buffer, bitrate and throughput over time as it reported them, how long it took to start, its stalls and switches, and
/// what CTA-5004 says of what it sent. Pure: the players and the time in, cells out.
public enum PlayersView {
    /// Rows a player's pane takes: title, figures, three plots, findings.
    static let paneRows = 7

    /// The screen for `players` (first seen first) at `now` (the clock their requests were timed in), `entry` the URL players
    /// open, `title` what serves them (`hlstui proxy`, `hlstui origin`).
    public static func render(
        _ players: [CMCDPlayers.Player], entry: String, now: Double, width: Int, height: Int, ascii: Bool = false,
        title: String = "hlstui proxy"
    ) -> Canvas {
        var c = Canvas(width: width, height: height)
        guard width >= 20, height >= 8 else {
            c.put(0, 0, fit("hlstui needs at least 20x8 (now \(width)x\(height))", width), .warn)
            return c
        }
        c.fill(Rect(x: 0, y: 0, width: width, height: 1), .status)
        let count = "\(players.count) player\(players.count == 1 ? "" : "s") sending CMCD"
        c.put(0, 0, fit(" \(title)  \(count)  q quit", width), .status)
        // The URL whole, on a row of its own, so it can be copied (cut only where the screen ends).
        c.put(1, 1, fit("play: " + entry, width - 1))
        var y = 2
        if players.isEmpty {
            c.put(1, 3, fit("no player has sent CMCD yet: open the URL above in a player that sends it", width - 2), .dim)
            c.put(1, 4, fit("(hls.js, Shaka, dash.js, ExoPlayer with CMCD on; mpv and FFmpeg send none)", width - 2), .dim)
            return c
        }
        let room = max(1, (height - 2) / paneRows)
        let shown = players.suffix(room)
        for p in shown {
            pane(p, now: now, into: &c, y: &y, ascii: ascii)
        }
        if players.count > shown.count, y < height - 1 {
            let others = players.prefix(players.count - shown.count).map { String($0.sid.prefix(8)) }.joined(separator: " ")
            c.put(1, y, fit("+ \(players.count - shown.count) earlier: \(others)", width - 2), .dim)
        }
        return c
    }

    static func pane(_ p: CMCDPlayers.Player, now: Double, into c: inout Canvas, y: inout Int, ascii: Bool) {
        let kind = p.streamType == "l" ? "live" : p.streamType == "v" ? "VOD" : "stream type not said"
        let title = "player \(p.sid)" + (p.contentID.map { " · \($0)" } ?? "") + " · \(kind) · \(p.requests) requests"
        let ago = max(0, now - p.lastSeen)
        Dashboard.title(title, into: &c, y: &y, right: ago < 1 ? "now" : "last request \(Int(ago)) s ago")
        let latest = p.latest
        let buffer: String = latest?.buffer.map { fixed($0, 1) + " s" } ?? "-"
        let bitrate: String = p.samples.last { $0.bitrate != nil }?.bitrate.map { Rung.rate($0) + "bps" } ?? "-"
        let throughput: String = p.samples.last { $0.throughput != nil }?.throughput.map { Rung.rate($0) + "bps" } ?? "-"
        let started: String = p.startup.map { "started " + fixed($0, 1) + " s" } ?? "starting"
        // Named as CMCD names them (bl, br, mtp), so they fit 80 columns.
        var figures: [String] = [
            "bl " + buffer, "br " + bitrate, "mtp " + throughput, started, "stalls \(p.stalls)", "switches \(p.switches)",
        ]
        if let r = latest?.rate, r != 1 { figures.append("rate " + fixed(r, 2)) }
        c.put(1, y, fit(figures.joined(separator: "  "), c.width - 2), p.stalls > 0 ? .warn : .normal)
        y += 1
        // Label, one column a second up to now, then the scale's top.
        let labels = 12
        let scaleWidth = 12
        let width = max(1, c.width - labels - scaleWidth - 1)
        for (name, values, format) in series(p, now: now, width: width) {
            let top = Sparkline.top(values, width: width, secondsPerColumn: 1)
            let line = Sparkline.render(values, width: width, rows: 1, secondsPerColumn: 1, top: top, ascii: ascii).first ?? ""
            c.put(1, y, pad(name, labels - 1), .dim)
            c.put(labels, y, line, .accent)
            if top > 0 { c.put(labels + width + 1, y, fit("≤" + format(top), scaleWidth), .dim) }
            y += 1
        }
        let n = p.findings.values.reduce(0, +)
        if n == 0 {
            c.put(1, y, "CTA-5004: nothing to say of what it sent", .good)
        } else {
            let counts = p.findings.keys.sorted().map { "\($0) \(p.findings[$0] ?? 0)" }.joined(separator: ", ")
            c.put(1, y, fit("CTA-5004: \(counts) — \(p.lastFinding ?? "")", c.width - 2), .warn)
        }
        y += 1
    }

    /// The plots: one value a second over the last `width` seconds, each report holding until the next (a player reports
    /// with each request, every segment or so), for at most 10 s.
    static func series(_ p: CMCDPlayers.Player, now: Double, width: Int) -> [(String, [Double?], (Double) -> String)] {
        let start = Int(now) - width + 1
        func line(_ value: (CMCDPlayers.Sample) -> Double?) -> [Double?] {
            var out = [Double?](repeating: nil, count: width)
            var i = 0
            let samples = p.samples.filter { value($0) != nil }
            var last: (at: Double, v: Double)?
            for s in 0..<width {
                let second = Double(start + s)
                while i < samples.count, samples[i].at < second + 1 {
                    last = (samples[i].at, value(samples[i])!)
                    i += 1
                }
                if let l = last, second + 1 - l.at <= 10 { out[s] = l.v }
            }
            return out
        }
        return [
            ("buffer", line(\.buffer), { fixed($0, 1) + " s" }),
            ("bitrate", line { $0.bitrate.map(Double.init) }, { Rung.rate(Int($0)) + "bps" }),
            ("throughput", line { $0.throughput.map(Double.init) }, { Rung.rate(Int($0)) + "bps" }),
        ]
    }
}
