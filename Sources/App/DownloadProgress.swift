import Foundation
import Offline

/// What `hlstui download` shows while it runs: per rendition the segments and bytes stored, the rate and the time left. On a
/// terminal the block is redrawn in place twice a second; otherwise a plain line per rendition every ten seconds and at the end.
struct DownloadProgress {
    struct Row {
        var name: String
        var expected = 0
        var done = 0
        var bytes = 0
        /// Seconds of media stored.
        var seconds = 0.0
        /// (time, bytes) of the last few seconds, for the rate.
        var recent: [(Double, Int)] = []
    }
    var rows: [Row]
    let interactive: Bool
    /// A live capture: media arrives in real time, so the line counts seconds of media against the goal (nil: until ENDLIST).
    var live = false
    var goal: Double?
    var started = 0.0
    var drawn = 0
    var lastPlain = 0.0

    init(names: [String], interactive: Bool) {
        rows = names.map { Row(name: $0) }
        self.interactive = interactive
    }

    mutating func start(now: Double) {
        started = now
        lastPlain = now
    }

    mutating func expect(_ i: Int, segments: Int) { rows[i].expected = segments }

    mutating func add(_ i: Int, bytes: Int, seconds: Double, now: Double) {
        rows[i].done += 1
        rows[i].bytes += bytes
        rows[i].seconds += seconds
        rows[i].recent.append((now, bytes))
        rows[i].recent.removeAll { now - $0.0 > 5 }
    }

    /// Bytes per second over the last five seconds (or since the start, when younger).
    func rate(_ r: Row, now: Double) -> Double {
        let window = max(0.5, min(5, now - started))
        return Double(r.recent.filter { now - $0.0 <= 5 }.reduce(0) { $0 + $1.1 }) / window
    }

    func line(_ r: Row, now: Double) -> String {
        let width = rows.map(\.name.count).max() ?? 0
        let rate = rate(r, now: now)
        var eta = "–"
        if r.done >= r.expected, r.expected > 0 {
            eta = "done"
        } else if r.done > 0, rate > 0 {
            let perSegment = Double(r.bytes) / Double(r.done)
            eta = span(Double(r.expected - r.done) * perSegment / rate)
        }
        let name = r.name.padding(toLength: width, withPad: " ", startingAt: 0)
        if live {
            let of = goal.map { "of \(Int($0)) s" } ?? "(until ENDLIST)"
            let left = goal.map { max(0, $0 - r.seconds) }
            let eta = left.map { $0 <= 0 ? "done" : span($0) } ?? "–"
            return "\(name)  \(String(format: "%.1f", r.seconds)) s \(of)  \(r.done) segments  \(byteSize(r.bytes))  ETA \(eta)"
        }
        return "\(name)  \(r.done)/\(r.expected) segments  \(byteSize(r.bytes))  \(byteSize(Int(rate)))/s  ETA \(eta)"
    }

    mutating func draw(now: Double, say: (String) -> Void) {
        if interactive {
            // Up over the block drawn last, then each line cleared and written again.
            var out = drawn > 0 ? "\u{1B}[\(drawn)A" : ""
            for r in rows { out += "\r\u{1B}[K" + line(r, now: now) + "\n" }
            FileHandle.standardOutput.write(Data(out.utf8))
            drawn = rows.count
        } else if now - lastPlain >= 10 {
            lastPlain = now
            for r in rows { say(line(r, now: now)) }
        }
    }

    mutating func finish(now: Double, say: (String) -> Void) {
        if interactive {
            draw(now: now, say: say)
        } else {
            for r in rows { say(line(r, now: now)) }
        }
    }
}
