/// What hlstui makes of the lines C libraries write straight to stdout and stderr while the dashboard owns the terminal
/// (ALSA, PipeWire, JACK, the runtime): one message-log line per source and cause, never the raw flood; pure.
public struct CapturedOutputFilter: Sendable {
    /// A source already reported: its later lines are folded into the count.
    private var reported: Set<String> = []
    /// Lines seen, for folding exact repeats of unclassified output (bounded).
    private var seen: Set<String> = []
    private var partial = ""
    public private(set) var folded = 0

    public init() {}

    /// Takes a chunk of captured bytes (lines may be cut anywhere) and returns the message-log lines to add.
    public mutating func take(_ chunk: String) -> [(level: LogLevel, text: String)] {
        partial += chunk
        var out: [(LogLevel, String)] = []
        while let nl = partial.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = String(partial[..<nl])
            partial = String(partial[partial.index(after: nl)...])
            if let l = classify(line) { out.append(l) }
        }
        // A library that never ends its line still gets heard once the fragment is long.
        if partial.count > 2000, let l = classify(partial) {
            out.append(l)
            partial = ""
        }
        return out
    }

    private mutating func classify(_ raw: String) -> (LogLevel, String)? {
        let line = String(raw.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard !line.isEmpty else { return nil }
        if line.hasPrefix("ALSA lib ") {
            return once("alsa", "audio (ALSA): \(CapturedOutputFilter.alsaCause(line)) — more ALSA lines folded into this one")
        }
        if CapturedOutputFilter.isPipeWire(line) {
            return once(
                "pipewire", "audio (PipeWire): \(CapturedOutputFilter.pipeWireCause(line)) — more PipeWire lines folded into this one")
        }
        if line.hasPrefix("Cannot connect to server") || line.hasPrefix("jack server") || line.hasPrefix("JackShmReadWritePtr") {
            return once("jack", "audio (JACK): \(line) — more JACK lines folded into this one")
        }
        if seen.contains(line) {
            folded += 1
            return nil
        }
        if seen.count < 1000 { seen.insert(line) }
        let level = line.lowercased().contains("error") || line.hasPrefix("Fatal") ? LogLevel.error : .warn
        return (level, "output of a library: \(line)")
    }

    private mutating func once(_ source: String, _ text: String) -> (LogLevel, String)? {
        guard reported.insert(source).inserted else {
            folded += 1
            return nil
        }
        return (.info, text)
    }

    /// `ALSA lib confmisc.c:855:(parse_card) cannot find card '0'` → `cannot find card '0'`.
    static func alsaCause(_ line: String) -> String {
        let rest = line.dropFirst("ALSA lib ".count)
        guard let close = rest.firstIndex(of: ")"), rest.index(after: close) < rest.endIndex else { return String(rest) }
        return String(rest[rest.index(after: close)...].drop { $0 == " " })
    }

    /// The index just after the last `needle` in `s`.
    static func lastRange(of needle: String, in s: String) -> String.Index? {
        var found: String.Index?
        var i = s.startIndex
        while let r = s[i...].firstRange(of: needle) {
            found = r.upperBound
            i = r.upperBound
        }
        return found
    }

    /// `[W][01226.924827] pw.conf | [ conf.c: 939 try_load_conf()] can't load config client.conf: …`.
    static func isPipeWire(_ line: String) -> Bool {
        line.hasPrefix("[W][") || line.hasPrefix("[E][") || line.hasPrefix("[I][") || line.contains("pw.conf") || line.hasPrefix("pw.")
    }

    static func pipeWireCause(_ line: String) -> String {
        guard let r = CapturedOutputFilter.lastRange(of: "] ", in: line) else { return line }
        return String(line[r...])
    }
}
