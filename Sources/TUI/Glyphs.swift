/// ASCII stand-ins for the dashboard's glyphs, for a locale that is not UTF-8 or a terminal without line drawing; pure.
public enum Glyphs {
    /// Each non-ASCII character the panels draw, with the ASCII that keeps its meaning in the same columns.
    static let table: [Character: String] = [
        // Frames and bars.
        "─": "-", "━": "-", "│": "|", "┃": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+",
        "█": "#", "▁": "_", "▂": "_", "▃": "-", "▄": "-", "▅": "=", "▆": "=", "▇": "#", "▬": "=", "▒": "%", "░": ".", "·": ".", "■": "#",
        "╳": "x", "¦": "|",
        // Marks.
        "▶": ">", "▲": "^", "▼": "v", "⏸": "=", "◆": "*", "◇": "o", "•": "'", "●": "*", "◌": "o", "↻": "@", "✖": "x", "✕": "x", "⚠": "!",
        "›": ">",
        // Arrows and punctuation.
        "→": ">", "←": "<", "↑": "^", "↓": "v", "⇄": "~", "⇆": "~", "…": "~", "—": "-", "–": "-", "−": "-",
        "≤": "<", "≥": ">", "±": "~", "×": "x", "Δ": "d", "§": "S",
    ]

    /// `text` with every non-ASCII character replaced: known glyphs by their stand-in, anything else by `?`, each as wide
    /// as the original so the layout does not move.
    public static func ascii(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            if c.isASCII { out.append(c); continue }
            let w = displayWidth(c)
            if let s = table[c], w == 1 { out += s } else { out += String(repeating: "?", count: w) }
        }
        return out
    }

    /// Terminals whose font or driver cannot be counted on for Unicode line drawing (the Linux console's 512-glyph fonts,
    /// DEC VT terminals): the dashboard draws in ASCII there.
    public static func lacksLineDrawing(term: String) -> Bool {
        let t = term.lowercased()
        return t == "linux" || t.hasPrefix("vt1") || t.hasPrefix("vt2") || t.hasPrefix("vt5") || t == "ansi" || t.hasPrefix("cons25")
    }
}
