import HLS
import Session

// The history plots (`g`). Built from the session and drawn, both pure.

/// One history plot: its name, the value now and the series (a value a second).
public struct GraphRow: Sendable, Equatable {
    public var name: String
    public var now: String
    public var values: [Double?]
    /// How the scale's top reads ("3.4M", "12.0s").
    public var format: @Sendable (Double) -> String

    public static func == (a: GraphRow, b: GraphRow) -> Bool { a.name == b.name && a.now == b.now && a.values == b.values }
}

extension DashboardModel {
    /// The history plots of one pane.
    static func graphs(_ h: History) -> [GraphRow] {
        [
            GraphRow(name: "throughput", now: h.throughput.last.map(rate) ?? "-", values: h.throughput.values, format: rate),
            GraphRow(name: "ahead", now: h.ahead.last.map(seconds) ?? "-", values: h.ahead.values, format: seconds),
            GraphRow(name: "bitrate", now: h.bitrate.last.map(rate) ?? "-", values: h.bitrate.values, format: rate),
            GraphRow(name: "live latency", now: h.latency.last.map(seconds) ?? "-", values: h.latency.values, format: seconds),
        ]
    }

    /// A pane's sync offset from the reference, as a history plot (absolute milliseconds).
    public static func syncGraph(_ offsets: Series) -> GraphRow {
        let ms: @Sendable (Double) -> String = { fixed($0, 1) + "ms" }
        return GraphRow(
            name: "sync |Δ|", now: offsets.last.map { ms(abs($0) * 1000) } ?? "-", values: offsets.values.map { $0.map { abs($0) * 1000 } },
            format: ms)
    }
}

extension Dashboard {
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
}
