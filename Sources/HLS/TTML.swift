/// The text of an IMSC1 subtitle document (RFC 8216bis §3.1.5: TTML in fragmented MP4, ISO/IEC 14496-30), as hlstui reads
/// it to show the cue at the playhead: each `<p>` with its time span and its text, times on the track's media timeline
/// (the same clock as the other renditions' timestamps). Styling, regions and images are read past. Hand-written for the
/// reason the WebVTT reader is (DECISIONS.md, "Subtitles read by hlstui"): no XML parser is in the pure modules, and this
/// needs elements, attributes and text only.
public enum TTML {
    public struct Cue: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var lines: [String]
        public init(start: Double, end: Double, lines: [String]) {
            (self.start, self.end, self.lines) = (start, end, lines)
        }
    }

    public struct Document: Sendable, Equatable {
        public var cues: [Cue] = []
        /// What is wrong, one line each (not TTML at all, a time expression unreadable).
        public var problems: [String] = []
    }

    /// The cues of `text`. Times of a `<p>` add to those of the `<body>`, `<div>` and `<span>` around it (TTML2 §10.4: a
    /// child's time is relative to its parent's begin); `end` or `dur` ends it, else its parent's end.
    public static func parse(_ text: String) -> Document {
        var doc = Document()
        guard text.contains("<tt") else {
            doc.problems.append("not a TTML document (no <tt> element)")
            return doc
        }
        var rates = Rates()
        /// Each open element: its name, its begin on the media timeline and its end (nil: open-ended).
        var stack: [(name: String, begin: Double, end: Double?)] = []
        var current: (start: Double, end: Double?, lines: [String])?
        var i = text.startIndex
        while i < text.endIndex {
            guard text[i] == "<" else {
                let next = text[i...].firstIndex(of: "<") ?? text.endIndex
                if current != nil {
                    // XML white space collapses to one space (TTML2 §8.2.10, xml:space default); lines are trimmed at the end.
                    var words = ""
                    for c in decode(String(text[i..<next])) {
                        let space = c == " " || c == "\n" || c == "\r" || c == "\t"
                        if !space { words.append(c) } else if words.last != " " { words.append(" ") }
                    }
                    current!.lines[current!.lines.count - 1] += words
                }
                i = next
                continue
            }
            guard let close = text[i...].firstIndex(of: ">") else { break }
            let tag = text[text.index(after: i)..<close]
            i = text.index(after: close)
            if tag.hasPrefix("?") || tag.hasPrefix("!") { continue }
            if tag.hasPrefix("/") {
                let name = local(String(tag.dropFirst()).trimmingSpaces)
                if name == "p", let c = current {
                    let end = c.end ?? stack.last(where: { $0.name != "p" })?.end
                    let lines = c.lines.map(\.trimmingSpaces).filter { !$0.isEmpty }
                    if let end, !lines.isEmpty { doc.cues.append(Cue(start: c.start, end: end, lines: lines)) }
                    if end == nil { doc.problems.append("a <p> without an end (no end, dur or parent end)") }
                    current = nil
                }
                if let k = stack.lastIndex(where: { $0.name == name }) { stack.removeSubrange(k...) }
                continue
            }
            let selfClosing = tag.hasSuffix("/")
            let body = selfClosing ? tag.dropLast() : tag
            let name = local(String(body.prefix { $0 != " " && $0 != "\t" && $0 != "\n" }))
            let attrs = attributes(String(body))
            if name == "tt" { rates = Rates(attrs) }
            if name == "br", current != nil {
                current!.lines.append("")
                continue
            }
            let parentBegin = stack.last?.begin ?? 0
            let parentEnd = stack.last?.end
            func time(_ key: String) -> Double? {
                guard let v = attrs[key] else { return nil }
                guard let t = rates.seconds(v) else {
                    doc.problems.append("time expression unreadable: \(key)=\"\(v)\"")
                    return nil
                }
                return t
            }
            let begin = parentBegin + (time("begin") ?? 0)
            var end = time("end").map { parentBegin + $0 } ?? time("dur").map { begin + $0 } ?? parentEnd
            if let e = end, let pe = parentEnd { end = min(e, pe) }
            if selfClosing { continue }
            stack.append((name, begin, end))
            if name == "p" { current = (begin, end, [""]) }
        }
        return doc
    }

    /// An element or attribute name without its namespace prefix (`tt:p` is `p`).
    static func local(_ name: String) -> String { String(name.split(separator: ":").last ?? Substring(name)) }

    /// The attributes of a start tag, by local name.
    static func attributes(_ tag: String) -> [String: String] {
        var out: [String: String] = [:]
        var rest = Substring(tag)
        while let eq = rest.firstIndex(of: "=") {
            let key = rest[..<eq].split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).last.map(String.init) ?? ""
            var after = rest[rest.index(after: eq)...].drop { $0 == " " }
            guard let quote = after.first, quote == "\"" || quote == "'" else { break }
            after = after.dropFirst()
            guard let endQuote = after.firstIndex(of: quote) else { break }
            out[local(key)] = decode(String(after[..<endQuote]))
            rest = after[after.index(after: endQuote)...]
        }
        return out
    }

    static func decode(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = s
        for (from, to) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&#160;", "\u{00A0}"), ("&amp;", "&")] {
            out = out.replacing(from, with: to)
        }
        return out
    }

    /// The document's frame and tick rates, for time expressions in frames and ticks (TTML2 §10.3.1, §7.2).
    struct Rates {
        var frameRate = 30.0
        var tickRate = 1.0
        init() {}
        init(_ attrs: [String: String]) {
            let multiplier = attrs["frameRateMultiplier"].map { $0.split(separator: " ").compactMap { Double($0) } }
            frameRate = attrs["frameRate"].flatMap(Double.init) ?? 30
            if let m = multiplier, m.count == 2, m[1] != 0 { frameRate *= m[0] / m[1] }
            tickRate = attrs["tickRate"].flatMap(Double.init) ?? (attrs["frameRate"] != nil ? frameRate : 1)
        }

        /// `hh:mm:ss`, `hh:mm:ss.fff`, `hh:mm:ss:ff`, or an offset: a number and `h`, `m`, `s`, `ms`, `f` or `t`.
        func seconds(_ v: String) -> Double? {
            let s = v.trimmingSpaces
            let parts = s.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 3 || parts.count == 4 {
                guard let h = Double(parts[0]), let m = Double(parts[1]), let sec = Double(parts[2]) else { return nil }
                let frames = parts.count == 4 ? (Double(parts[3]) ?? .nan) / frameRate : 0
                guard frames.isFinite else { return nil }
                return h * 3600 + m * 60 + sec + frames
            }
            for (unit, scale) in [("ms", 0.001), ("h", 3600.0), ("m", 60.0), ("s", 1.0), ("f", 1 / frameRate), ("t", 1 / tickRate)]
            where s.hasSuffix(unit) {
                return Double(s.dropLast(unit.count)).map { $0 * scale }
            }
            return nil
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(
            drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.reversed().drop {
                $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r"
            }.reversed())
    }
}
