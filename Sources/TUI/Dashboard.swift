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
        if keyRows > 0 { keys(model.keys.prefix(keyRows), playhead: model.timeline, into: &c, y: &y) }
        switch model.ui.lower {
        case .picture: picture(model, into: &c, y: &y, rows: height - 1 - y)
        case .graphs: graphs(model, into: &c, y: &y, rows: height - 1 - y)
        case .waterfall: waterfall(model, into: &c, y: &y, rows: height - 1 - y)
        case .lowLatency: lowLatency(model, into: &c, y: &y, rows: height - 1 - y)
        case .events: events(model, into: &c, y: &y, rows: height - 1 - y)
        case .log: log(model, into: &c, y: &y, rows: height - 1 - y)
        }
        footer(model.status, into: &c)
        if model.ui.showHelp { help(into: &c, scroll: model.ui.helpScroll) }
        return c
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

    static func status(_ s: StatusModel, focused: Bool, into c: inout Canvas, y: inout Int) {
        let role: Role = s.state == .error ? .statusError : (focused ? .status : .border)
        c.fill(Rect(x: 0, y: y, width: c.width, height: 1), role)
        let icon =
            ["starting": "…", "playing": "▶", "paused": "⏸", "buffering": "◌", "restarting": "↻", "ended": "■", "error": "✖"][
                s.state.rawValue] ?? "?"
        var line = "\(icon) \(s.state.rawValue.uppercased())  \(s.clock)  \(s.rung)"
        if let v = s.video { line += "  \(v)" }
        line += "  ↓\(s.throughput)  drop \(s.dropped)  stalls \(s.stalls)"
        if s.stalls > 0 { line += " (\(fixed(s.stalled, 1))s)" }
        if s.skips > 0 { line += "  skips \(s.skips)" }
        var x = 0
        if s.insecure { x += c.put(0, y, " INSECURE TLS ", .insecure) }
        c.put(x + 1, y, fit(line, c.width - x - 1), role)
        y += 1
        if let e = s.error {
            c.put(0, y, fit("✖ " + e, c.width), .bad)
        } else {
            var info = "PDT \(s.pdt ?? "-")  cap \(s.caps)  \(s.mode)"
            if let a = s.audio { info += "  " + a }
            if let l = s.lastSwitch { info += "  " + l }
            if let l = s.lowLatency { info += "  " + l }
            if let p = s.pathway { info += "  " + p }
            info += "  " + s.url
            c.put(0, y, fit(info, c.width), .accent)
        }
        y += 1
    }

    /// The cue at the playhead, centred, after the rendition's name (docs/SUBTITLES.md); under the picture when it is shown.
    static func subtitle(_ s: SubtitleLine, into c: inout Canvas, y: inout Int) {
        let label = fit(s.label, max(0, min(displayWidth(s.label), c.width / 3)))
        c.put(1, y, label, .dim)
        let room = c.width - displayWidth(label) - 3
        if room > 3, !s.text.isEmpty {
            let text = fit(s.text, room)
            let x = displayWidth(label) + 2 + max(0, (room - displayWidth(text)) / 2)
            c.put(x, y, text, .accent)
        }
        y += 1
    }

    static func ladder(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        title("Ladder", into: &c, y: &y, right: "▶ playing  ● pinned  ◆ chosen  ✕ capped")
        let w = c.width
        let header = "    #  resolution     bw    avg   fps  codecs"
        c.put(0, y, fit(header, w), .dim)
        y += 1
        let body = max(1, rows - 2 - (m.renditions.isEmpty ? 0 : 1) - (m.pathways == nil ? 0 : 1))
        let first = max(0, min(m.ui.cursor - body + 1, m.ladder.count - body))
        for r in m.ladder.dropFirst(first).prefix(body) {
            let marks = (r.cursor ? "›" : " ") + (r.playing ? "▶" : " ") + (r.pinned ? "●" : (r.target ? "◆" : " "))
            let codecsWidth = max(8, min(28, w - 40))
            var text = "\(marks) \(pad(String(r.index), 2, right: true))  \(pad(r.resolution, 10)) \(pad(r.bandwidth, 6, right: true)) "
            text += "\(pad(r.average, 6, right: true)) \(pad(r.frameRate, 5, right: true))  \(pad(r.codecs, codecsWidth)) "
            text += (r.excluded ? "✕cap " : "") + r.extra
            let role: Role = r.cursor ? .cursor : (r.excluded ? .excluded : (r.playing ? .playing : .normal))
            if r.cursor { c.fill(Rect(x: 0, y: y, width: w, height: 1), .cursor) }
            c.put(0, y, fit(text, w), role)
            y += 1
        }
        if m.ladder.count > body {
            c.put(w - 12, y - 1, pad("\(first + 1)-\(min(first + body, m.ladder.count))/\(m.ladder.count)", 11, right: true), .dim)
        }
        if !m.renditions.isEmpty {
            c.put(1, y, fit(m.renditions.joined(separator: " · "), w - 2), .dim)
            y += 1
        }
        if let p = m.pathways {
            c.put(1, y, fit(p, w - 2), .accent)
            y += 1
        }
    }

    /// The time covered by each column of a bar `width` wide over `length` seconds.
    static func column(_ t: Double, length: Double, width: Int) -> Int {
        guard length > 0, width > 0 else { return 0 }
        return min(width - 1, max(0, Int(t / length * Double(width))))
    }

    /// The buffer bar's cells: segments, buffered ranges, GAP segments, discontinuities and the playhead.
    public static func bar(_ t: TimelineModel, width: Int) -> [(String, Role)] {
        var cells = Array(repeating: ("░", Role.segment), count: max(0, width))
        guard width > 0, t.length > 0 else { return cells }
        for r in t.buffered {
            let a = column(r.start, length: t.length, width: width)
            let b = column(max(r.start, r.end - 0.001), length: t.length, width: width)
            if a <= b { for i in a...b { cells[i] = ("█", .buffered) } }
        }
        for s in t.segments {
            let a = column(s.start, length: t.length, width: width)
            if s.gap {
                let b = column(max(s.start, s.start + s.duration - 0.001), length: t.length, width: width)
                for i in a...max(a, b) { cells[i] = (s.filled ? "▒" : "╳", .gap) }
            } else if s.discontinuity, a > 0 {
                cells[a] = ("¦", .discontinuity)
            }
        }
        for e in t.metadata { cells[column(e, length: t.length, width: width)] = ("•", .accent) }
        for r in t.dateRanges { cells[column(r, length: t.length, width: width)] = ("◇", .accent) }
        for b in t.breaks { cells[column(b, length: t.length, width: width)] = ("◆", .accent) }
        if let p = t.playhead { cells[column(p, length: t.length, width: width)] = ("┃", .playhead) }
        return cells
    }

    static func timeline(_ t: TimelineModel, into c: inout Canvas, y: inout Int) {
        let gaps = t.segments.filter(\.gap).count
        let filled = t.segments.filter(\.filled).count
        let summary =
            "\(t.segments.count) segments" + (gaps > 0 ? ", \(gaps) GAP" + (filled > 0 ? " (\(filled) filled by another rung)" : "") : "")
            + (t.breaks.isEmpty ? "" : ", \(t.breaks.count) break\(t.breaks.count == 1 ? "" : "s")")
            + (t.live ? ", live window from msn \(t.firstMSN)" : "")
        title("Buffer", into: &c, y: &y, right: summary)
        let w = c.width - 2
        for (i, cell) in bar(t, width: w).enumerated() { c.put(1 + i, y, cell.0, cell.1) }
        y += 1
        let buffered = t.buffered.reduce(0) { $0 + $1.duration }
        let ahead = t.ahead
        let left = t.live ? "msn \(t.firstMSN)" : "00:00.0"
        let right = t.live ? "live edge" : DashboardModel.clockText(t.length)
        let aheadText = ahead.map { ", \(fixed($0, 1))s ahead" } ?? ", - ahead"
        // The legend names the marks the bar holds, as many as fit centred between the ends' labels.
        var legend = [
            gaps > filled ? "╳ GAP" : nil, filled > 0 ? "▒ GAP filled" : nil, t.breaks.isEmpty ? nil : "◆ break",
            t.dateRanges.isEmpty ? nil : "◇ date range", t.metadata.isEmpty ? nil : "• metadata",
        ].compactMap { $0 }
        let room = c.width - 2 * max(displayWidth(left), displayWidth(right)) - 4
        var mid = "buffered \(fixed(buffered, 1))s" + aheadText
        while !legend.isEmpty && displayWidth(mid + legend.map { "  " + $0 }.joined()) > room { legend.removeLast() }
        mid += legend.map { "  " + $0 }.joined()
        c.put(1, y, left, .dim)
        c.put(max(0, (c.width - displayWidth(mid)) / 2), y, mid, .dim)
        c.put(max(0, c.width - displayWidth(right) - 1), y, right, .dim)
        y += 1
    }

    static func keys(_ rows: ArraySlice<KeyRow>, playhead t: TimelineModel?, into c: inout Canvas, y: inout Int) {
        title("Keys", into: &c, y: &y)
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

    /// The frame on screen, in place of the log: fitted to the panel, a few times a second.
    static func picture(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let note = m.picture.map { "\($0.width)x\($0.height) sampled" + (m.pictureState.map { ", " + $0 } ?? "") } ?? ""
        title("Picture", into: &c, y: &y, right: note)
        // The cue under the picture, on the panel's last row.
        defer { if let sub = m.subtitle { subtitle(sub, into: &c, y: &y) } }
        let body = rows - 1 - (m.subtitle == nil ? 0 : 1)
        if m.ui.pictureOff {
            c.put(1, y, "no picture: --picture none", .dim)
            y += body
            return
        }
        guard let image = m.picture else {
            c.put(1, y, "no picture: no video decoded yet (or the stream has none)", .dim)
            y += body
            return
        }
        if m.ui.pictureGraphics {
            // Drawn by the terminal over these cells, left blank (sixel or kitty): the screen sends it after the cells.
            let b = PictureCells.box(image, columns: c.width, rows: body)
            c.images.append(PlacedImage(rect: Rect(x: b.x, y: y + b.y, width: b.width, height: b.height), image: image))
            y += body
            return
        }
        let (x0, y0, cells) = PictureCells.render(image, columns: c.width, rows: body, mode: m.ui.pictureMode)
        for (dy, row) in cells.enumerated() {
            for (dx, cell) in row.enumerated() { c.paint(x0 + dx, y + y0 + dy, cell.0, cell.1) }
        }
        y += body
    }

    /// Seconds of history in one column of the plots.
    static let secondsPerColumn = 2

    /// The history plots, in place of the log: one block sparkline per figure, newest at the right, each scaled to the largest
    /// value it shows; rows shared out among the figures, so the panel grows with the terminal.
    static func graphs(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let end = y + rows
        let labelWidth = 27
        let plotWidth = max(1, c.width - labelWidth - 1)
        let span = plotWidth * secondsPerColumn
        title("History", into: &c, y: &y, right: "last \(span / 60)m \(zeros(span % 60, 2))s, \(secondsPerColumn) s a column")
        let body = rows - 1
        let shown = m.graphs.prefix(body)
        guard !shown.isEmpty else {
            c.put(1, y, "no history yet: figures are recorded once a second from the first frame", .dim)
            y = end
            return
        }
        let each = max(1, body / shown.count)
        for g in shown {
            let top = Sparkline.top(g.values, width: plotWidth, secondsPerColumn: secondsPerColumn)
            let lines = Sparkline.render(g.values, width: plotWidth, rows: each, secondsPerColumn: secondsPerColumn, top: top)
            for (i, line) in lines.enumerated() { c.put(labelWidth + 1, y + i, line, .accent) }
            c.put(
                1, y,
                fit(pad(g.name, 12) + " " + pad(g.now, 8, right: true) + (each == 1 && top > 0 ? " ≤" + g.format(top) : ""), labelWidth),
                .normal)
            if each >= 2 && top > 0 { c.put(1, y + 1, fit("scale top " + g.format(top), labelWidth), .dim) }
            y += each
        }
        y = end
    }

    /// The request log as a waterfall, in place of the log: the newest requests (newest on top), each a bar on one time axis —
    /// waiting for the first byte light, the transfer solid.
    static func waterfall(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let end = y + rows
        let labelWidth = 29
        let shown = Array(m.waterfall.prefix(rows - 1))
        let (axis, bars) = Waterfall.render(shown, width: max(1, c.width - labelWidth - 2))
        let note = axis.map { "\(fixed($0.to - $0.from, 1)) s across  ░ waiting for the first byte  █ transfer" } ?? ""
        title("Waterfall", into: &c, y: &y, right: note)
        if shown.isEmpty { c.put(1, y, "no requests yet", .dim) }
        for (row, bar) in zip(shown, bars) {
            c.put(0, y, fit(row.label, labelWidth), row.role)
            c.put(labelWidth + 1, y, bar, row.role)
            // A note goes after the bar's end, only where it fits whole.
            if let note = row.note {
                let barEnd = labelWidth + 1 + displayWidth(String(bar.reversed().drop { $0 == " " }.reversed()))
                if barEnd + 1 + displayWidth(note) < c.width { c.put(barEnd + 1, y, note, .dim) }
            }
            y += 1
        }
        y = end
    }

    /// The LL-HLS panel, in place of the log.
    static func lowLatency(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let end = y + rows
        title("LL-HLS", into: &c, y: &y, right: "▮ part  ▯ hinted  ┃ playhead")
        for line in m.lowLatency.prefix(rows - 1) {
            c.put(1, y, fit(line, c.width - 2), .normal)
            y += 1
        }
        y = end
    }

    static func events(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let end = y + rows
        title("Events", into: &c, y: &y, right: "◆ break  ▶ inside  newest first")
        for line in m.events.prefix(rows - 1) {
            c.put(1, y, fit(line, c.width - 2), line.hasPrefix("▶") ? .accent : .normal)
            y += 1
        }
        y = end
    }

    static func footer(_ s: StatusModel, into c: inout Canvas) {
        let y = c.height - 1
        if let p = s.problem, s.error == nil {
            c.put(0, y, fit("⚠ " + p, c.width), .warn)
        } else {
            c.put(0, y, fit("? help  q quit  Space pause  ←→ seek  ↑↓ Enter pin  a auto  -/+ cap  0 no cap  t theme  l log", c.width), .dim)
        }
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
