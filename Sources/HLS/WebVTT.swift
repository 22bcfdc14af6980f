/// One WebVTT subtitle segment (RFC 8216bis §3.1.4; the format: W3C WebVTT), as hlstui reads it to show the cue at the
/// playhead: its header, its X-TIMESTAMP-MAP and its cues as plain text. Regions, styles and cue settings are read past (a
/// terminal line shows no position or colour of a cue). Hand-written: no Swift WebVTT library is available here, and what
/// HLS needs of the format is small (DECISIONS.md, "Subtitles read by hlstui").
public struct WebVTT: Sendable, Equatable {
    /// X-TIMESTAMP-MAP (RFC 8216bis §3.1.4): cue time `local` is media time `mpegts` (a 90 kHz MPEG-2 timestamp).
    public struct TimestampMap: Sendable, Equatable {
        public var mpegts: Int64
        public var local: Double
        public init(mpegts: Int64, local: Double) {
            self.mpegts = mpegts
            self.local = local
        }
    }

    public struct Cue: Sendable, Equatable {
        public var id: String?
        /// Cue times as the segment writes them (seconds, on the WebVTT clock).
        public var start: Double
        public var end: Double
        /// The payload's lines, tags taken out and character references decoded.
        public var lines: [String]
        public init(id: String? = nil, start: Double, end: Double, lines: [String]) {
            self.id = id
            self.start = start
            self.end = end
            self.lines = lines
        }
    }

    /// The first line is the `WEBVTT` signature.
    public var hasHeader = false
    public var timestampMap: TimestampMap?
    public var cues: [Cue] = []
    /// What is wrong with the text, one line each (an unreadable timing line, a cue that ends before it starts, …).
    public var problems: [String] = []

    public init() {}

    /// Media time (seconds of the 90 kHz clock) of WebVTT time `local`: through X-TIMESTAMP-MAP, or — without one — cue time 0
    /// is media time 0 (RFC 8216bis §3.1.4).
    public func mediaTime(_ local: Double) -> Double {
        guard let m = timestampMap else { return local }
        return local - m.local + Double(m.mpegts) / 90_000
    }

    /// The MPEG-2 timestamp wraps after 2^33 ticks (about 26.5 hours); a player's clock runs on past it.
    public static let wrapSeconds = Double(Int64(1) << 33) / 90_000

    public static func parse(_ text: String) -> WebVTT {
        var doc = WebVTT()
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map(String.init)
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        guard let first = lines.first, first == "WEBVTT" || first.hasPrefix("WEBVTT ") || first.hasPrefix("WEBVTT\t") else {
            doc.problems.append("no WEBVTT signature on the first line")
            // A header without its signature: its map is still read, and the cues after it.
            var i = 0
            while i < lines.count, lines[i].hasPrefix("X-TIMESTAMP-MAP=") {
                doc.readMap(String(lines[i].dropFirst("X-TIMESTAMP-MAP=".count)))
                i += 1
            }
            doc.readBlocks(lines[i...])
            return doc
        }
        doc.hasHeader = true
        var i = 1
        // The header runs to the first blank line.
        while i < lines.count, !lines[i].isEmpty {
            if lines[i].hasPrefix("X-TIMESTAMP-MAP=") { doc.readMap(String(lines[i].dropFirst("X-TIMESTAMP-MAP=".count))) }
            i += 1
        }
        doc.readBlocks(lines[i...])
        return doc
    }

    mutating func readMap(_ value: String) {
        var mpegts: Int64?
        var local: Double?
        for field in value.split(separator: ",") {
            let f = Self.trimmed(field)
            if f.hasPrefix("MPEGTS:") { mpegts = Int64(f.dropFirst(7)) }
            if f.hasPrefix("LOCAL:") { local = Self.timestamp(String(f.dropFirst(6))) }
        }
        guard let mpegts, let local else {
            problems.append("X-TIMESTAMP-MAP unreadable: \(value)")
            return
        }
        timestampMap = TimestampMap(mpegts: mpegts, local: local)
    }

    /// Blocks separated by blank lines: cues (an optional identifier, the timing line, the payload); NOTE, STYLE and REGION
    /// blocks are read past.
    mutating func readBlocks(_ lines: ArraySlice<String>) {
        var block: [String] = []
        for line in lines + [""] {
            if Self.trimmed(line).isEmpty {
                if !block.isEmpty { readBlock(block) }
                block = []
            } else {
                block.append(line)
            }
        }
    }

    mutating func readBlock(_ block: [String]) {
        guard let first = block.first else { return }
        if first == "NOTE" || first.hasPrefix("NOTE ") || first.hasPrefix("NOTE\t") || first == "STYLE" || first == "REGION" { return }
        guard let timing = block.firstIndex(where: { $0.contains("-->") }), timing <= 1 else {
            problems.append("a block without a timing line: \(first.prefix(40))")
            return
        }
        let line = block[timing]
        guard let arrow = line.firstRange(of: "-->") else { return }
        let startText = Self.trimmed(line[..<arrow.lowerBound])
        let endText = line[arrow.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        guard let start = Self.timestamp(startText), let endText, let end = Self.timestamp(endText) else {
            problems.append("timing line unreadable: \(block[timing])")
            return
        }
        if end < start { problems.append("cue ends before it starts: \(block[timing])") }
        let id = timing == 1 ? block[0] : nil
        cues.append(Cue(id: id, start: start, end: end, lines: block[(timing + 1)...].map(Self.plainText)))
    }

    /// `hh:mm:ss.ttt` or `mm:ss.ttt` (hours may have more than two digits) in seconds.
    public static func timestamp(_ s: String) -> Double? {
        let fields = s.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3, let last = fields.last else { return nil }
        let sec = last.split(separator: ".", omittingEmptySubsequences: false)
        guard sec.count == 2, sec[0].count == 2, sec[1].count == 3, let whole = Int(sec[0]), let ms = Int(sec[1]), whole < 60 else {
            return nil
        }
        guard let minutes = Int(fields[fields.count - 2]), fields[fields.count - 2].count == 2, minutes < 60 else { return nil }
        var hours = 0
        if fields.count == 3 {
            guard let h = Int(fields[0]), fields[0].count >= 2 else { return nil }
            hours = h
        }
        return Double(hours * 3600 + minutes * 60 + whole) + Double(ms) / 1000
    }

    /// A payload line as plain text: tags (`<i>`, `<c.yellow>`, `<v Anna>`, timestamps) taken out, character references decoded.
    public static func plainText(_ line: String) -> String {
        var out = ""
        var inTag = false
        for c in line {
            if inTag {
                if c == ">" { inTag = false }
            } else if c == "<" {
                inTag = true
            } else {
                out.append(c)
            }
        }
        guard out.contains("&") else { return out }
        let references = [
            ("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", "\u{00A0}"), ("&lrm;", "\u{200E}"), ("&rlm;", "\u{200F}"), ("&quot;", "\""),
            ("&apos;", "'"), ("&amp;", "&"),
        ]
        for (from, to) in references { out = out.replacing(from, with: to) }
        return out
    }

    static func trimmed(_ s: some StringProtocol) -> String {
        String(s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
