import HLS
import LoaderEvents
import MediaFormats
import Session

// The stream's events (`E`, docs/EVENTS.md). Built from the session and drawn, both pure.

extension DashboardModel {
    /// The events panel (docs/EVENTS.md): the breaks the session follows — where each starts, planned against what the
    /// playlist holds, whether the playhead is inside — each SCTE-35 message decoded beneath; then the playing playlist's
    /// other date ranges (any CLASS) with their client attributes.
    static func eventLines(_ s: SessionState) -> [String] {
        var lines: [String] = []
        let tracked = s.breaks.breaks
        for t in tracked.reversed() {
            let b = t.cue
            let source: String
            switch b.source {
            case .cueOut: source = "CUE-OUT"
            case .dateRange: source = "DATERANGE"
            }
            var line = (t.enteredAt != nil ? "▶ " : t.done ? "  " : "◆ ") + "\(b.key)  \(source)"
            if let d = b.startDate { line += "  " + String(d.iso8601.dropFirst(11).prefix(12)) } else { line += "  msn \(b.startMSN)" }
            line += "  planned " + (b.planned.map { "\(fixed($0, 1))s" } ?? "-")
            line += (b.closed ? ", lasts " : ", so far ") + (b.actual.map { "\(fixed($0, 1))s" } ?? "-")
            line += t.enteredAt != nil ? "  inside" : t.missed ? "  not played" : t.done ? "  played" : ""
            lines.append(line)
            for c in b.cues {
                switch SCTE35.decode(text: c.text) {
                case .success(let i): lines.append("    \(c.tag): \(SCTE35.summary(i))")
                case .failure(let e): lines.append("    \(c.tag): cannot decode SCTE-35: \(e)")
                }
            }
        }
        let known = Set(
            tracked.compactMap { t -> String? in
                if case .dateRange(let id) = t.cue.source { return id }
                return nil
            })
        var seen: Set<String> = []
        let inside = Set(s.breaks.tracked.filter { !$0.cue.isBreak && $0.enteredAt != nil }.map(\.cue.key))
        for r in (s.playingMedia?.dateRanges ?? []).reversed() where !known.contains(r.id) && seen.insert(r.id).inserted {
            var line =
                (inside.contains(r.id) ? "▶ " : "  ") + "\(r.id)  \(r.classID ?? "-")  "
                + (r.startDate.map { String($0.iso8601.dropFirst(11).prefix(12)) } ?? "?")
            if let d = r.duration { line += "  \(fixed(d, 1))s" } else if let p = r.plannedDuration { line += "  planned \(fixed(p, 1))s" }
            if r.endOnNext { line += "  to the next" }
            let client = r.extra.filter { $0.name.hasPrefix("X-") }.map { "\($0.name)=\($0.value)" }
            if !client.isEmpty { line += "  " + client.joined(separator: " ") }
            lines.append(line)
        }
        // Timed metadata, newest first in stream order: the ones the playhead passed with a dot, what each carries in one line.
        let at = s.playhead
        for e in s.metadata.items.suffix(20).reversed() {
            let passed = at.map { e.msn < $0.msn || (e.msn == $0.msn && e.time <= (s.sample.timePos ?? -.infinity)) } ?? false
            lines.append((passed ? "• " : "  ") + metadataLine(e))
        }
        return lines.isEmpty ? ["no date ranges, breaks or timed metadata in the playing stream"] : lines
    }

    /// One timed metadata item: ID3 by its frames (an `emsg` by its scheme and value too), where it stands, its duration.
    static func metadataLine(_ e: TimedMetadataEvent) -> String {
        var line =
            e.scheme == "ID3"
            ? "ID3" : e.scheme == EventMessage.id3Scheme ? "emsg ID3" : "emsg \(e.scheme)" + (e.value.isEmpty ? "" : " \(e.value)")
        line += "  msn \(e.msn)  t \(fixed(e.time, 3))"
        if let d = e.duration { line += "  \(fixed(d, 1))s" }
        let frames = e.frames.map { "\($0.id): \($0.text)" }
        line += frames.isEmpty ? "  \(e.bytes) B" : "  " + frames.joined(separator: "; ")
        return line
    }
}

extension Dashboard {
    static func events(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        lines("Events", legend: "◆ break  ▶ inside  newest first", m.events, into: &c, y: &y, rows: rows) {
            $0.hasPrefix("▶") ? .accent : .normal
        }
    }
}
