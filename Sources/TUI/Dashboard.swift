import HLS
import Session

/// Draws the dashboard: each panel is a pure function from its view-model to cells (docs/ARCHITECTURE.md).
public enum Dashboard {
    /// The whole screen for `model` at `width`×`height`.
    public static func render(_ model: DashboardModel, width: Int, height: Int) -> Canvas {
        var c = Canvas(width: width, height: height)
        guard width >= 20, height >= 8 else {
            c.put(0, 0, fit("hlstui needs at least 20x8 (now \(width)x\(height))", width), .warn)
            return c
        }
        var y = 0
        status(model.status, focused: model.ui.focused, into: &c, y: &y)
        if let sub = model.subtitle, model.ui.lower != .picture { subtitle(sub, into: &c, y: &y) }
        // Fixed rows: footer 1, buffer 3, key title + rows, request title + at least 3 rows.
        let keyRows = min(model.keys.count, height >= 30 ? 6 : 2)
        let fixed = 1 + 3 + (keyRows > 0 ? keyRows + 1 : 0) + 4
        let ladderSpace = max(2, height - y - fixed - (height >= 30 ? 8 : 0))
        ladder(model, into: &c, y: &y, rows: ladderSpace)
        if let t = model.timeline {
            timeline(t, into: &c, y: &y)
        } else {
            title("Buffer", into: &c, y: &y)
            c.put(1, y, "waiting for the first media playlist", .dim)
            y += 2
        }
        if keyRows > 0 {
            let shown = shownKeys(model.keys, playhead: model.timeline?.playhead, count: keyRows)
            keys(shown, of: model.keys.count, playhead: model.timeline, into: &c, y: &y)
        }
        switch model.ui.lower {
        case .picture: picture(model, into: &c, y: &y, rows: height - 1 - y)
        case .graphs: graphs(model, into: &c, y: &y, rows: height - 1 - y)
        case .waterfall: waterfall(model, into: &c, y: &y, rows: height - 1 - y)
        case .lowLatency: lowLatency(model, into: &c, y: &y, rows: height - 1 - y)
        case .events: events(model, into: &c, y: &y, rows: height - 1 - y)
        case .validation: validation(model, into: &c, y: &y, rows: height - 1 - y)
        case .log: log(model, into: &c, y: &y, rows: height - 1 - y)
        }
        footer(model.status, into: &c)
        if model.ui.showHelp { help(into: &c, scroll: model.ui.helpScroll) }
        return c
    }

    /// A panel of text lines in place of the log: its title and legend, then as many lines as fit, each in its role.
    static func lines(
        _ name: String, legend: String, _ lines: [String], into c: inout Canvas, y: inout Int, rows: Int, role: (String) -> Role
    ) {
        guard rows >= 2 else { return }
        let end = y + rows
        title(name, into: &c, y: &y, right: legend)
        for line in lines.prefix(rows - 1) {
            c.put(1, y, fit(line, c.width - 2), role(line))
            y += 1
        }
        y = end
    }

    static func title(_ name: String, into c: inout Canvas, y: inout Int, right: String = "") {
        c.fill(Rect(x: 0, y: y, width: c.width, height: 1), .border, char: "─")
        c.put(1, y, " \(name) ", .title)
        // The title always stands; the note on the right is cut to the room left beside it.
        let room = c.width - displayWidth(name) - 7
        if !right.isEmpty && room > 3 {
            let note = fit(right, room)
            c.put(c.width - displayWidth(note) - 3, y, " \(note) ", .dim)
        }
        y += 1
    }

    /// What the measured figures mean, below the keys in the help.
    static let legend = [
        "",
        "live -6.2s  behind the live edge: the newest segment's end, as the playlist says",
        "g2g 8.1s    glass to glass: the wall clock minus the PDT of the frame on screen",
        "ahead       media delivered to the player past the playhead (- when not known)",
    ]

    /// How many lines the help has.
    public static var helpLineCount: Int { Keymap.helpLines.count + legend.count }

    /// The keys and the legend in a box; longer than the screen (80×24 holds 22 lines), it scrolls from line `scroll` on, and
    /// its frame says what lies above and below.
    static func help(into c: inout Canvas, scroll: Int = 0) {
        let lines = Keymap.helpLines + legend
        let w = min(c.width - 2, (lines.map(displayWidth).max() ?? 0) + 4)
        let h = min(c.height - 2, lines.count + 2)
        let x = (c.width - w) / 2
        let y = max(0, (c.height - h) / 2)
        let shown = max(0, h - 2)
        let first = min(max(0, scroll), max(0, lines.count - shown))
        c.fill(Rect(x: x, y: y, width: w, height: h), .help)
        let fits = shown >= lines.count
        c.put(x + 2, y, fits ? " keys (? to close) " : " keys (? to close, ↑↓ PgUp PgDn scroll) ", .title)
        for (i, l) in lines[first..<min(lines.count, first + shown)].enumerated() { c.put(x + 2, y + 1 + i, fit(l, w - 4), .help) }
        guard !fits else { return }
        if first > 0 { c.put(x + w - 10, y, " ▲ \(first) ", .title) }
        let below = lines.count - first - shown
        if below > 0 { c.put(x + 2, y + h - 1, " ▼ \(below) more ", .title) }
    }
}
