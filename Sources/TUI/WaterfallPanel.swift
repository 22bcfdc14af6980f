import CMCD
import HLS
import LoaderEvents
import Session

// The requests as a waterfall (`w`). Built from the session and drawn, both pure.

extension DashboardModel {
    static func waterfallRow(_ r: RequestEvent) -> WaterfallRow {
        let label =
            pad(r.kind.rawValue, 7) + " " + pad(r.msn.map(String.init) ?? "-", 9, right: true) + " " + pad(String(r.status), 3, right: true)
            + " " + pad(r.durationMs < 10 ? fixed(r.durationMs, 1) : String(Int(r.durationMs.rounded())), 5, right: true) + "ms"
        let role: Role = r.outcome == .gap ? .gap : (r.failure != nil || r.status >= 400 ? .bad : (r.local ? .dim : .accent))
        return WaterfallRow(
            label: label, start: r.start, firstByte: r.ttfbMs.map { r.start + $0 / 1000 }, end: r.start + r.durationMs / 1000, role: role,
            note: r.cmsd.map { "CMSD " + $0.summary })
    }
}

extension Dashboard {
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
}
