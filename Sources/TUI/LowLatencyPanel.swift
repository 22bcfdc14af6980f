import HLS
import Session

// The LL-HLS panel (`L`, docs/LOWLATENCY.md). Built from the session and drawn, both pure.

extension DashboardModel {
    /// The LL-HLS panel (RFC 8216bis §4.4.3.7–§4.4.5.4, §6.2.5): the parts at the edge of the playlist playing with the
    /// playhead among them, the latency against PART-HOLD-BACK, the blocking reloads' holds against PART-TARGET, the preload
    /// hints that came true, what delta updates saved, and how far the rendition reports trail.
    static func lowLatencyLines(_ s: SessionState) -> [String] {
        guard let m = s.playingMedia, let pt = m.partTarget else {
            return ["not a low-latency stream: its playlist has no EXT-X-PART-INF (RFC 8216bis §4.4.3.7)"]
        }
        var out: [String] = []
        let phb = m.serverControl?.partHoldBack
        out.append(
            "PART-TARGET \(fixed(pt, 2)) s" + (phb.map { "  PART-HOLD-BACK \(fixed($0, 1)) s" } ?? "  no PART-HOLD-BACK")
                + (m.serverControl?.canBlockReload == true ? "  blocking reload" : "  no blocking reload")
                + (m.serverControl?.canSkipUntil.map { "  delta updates beyond \(fixed($0, 0)) s" } ?? ""))
        // The newest segments, part by part: the newest is the one in progress (its parts so far), then the hinted part.
        let here = s.playhead
        var edge = "edge "
        for seg in m.segments.suffix(3) {
            let count = seg.parts.isEmpty ? max(1, Int((seg.duration / pt).rounded())) : seg.parts.count
            var cells = ""
            var start = 0.0
            for i in 0..<count {
                let length = seg.parts.isEmpty ? seg.duration / Double(count) : seg.parts[i].duration
                let on = here.map { $0.msn == seg.mediaSequence && $0.offset >= start && $0.offset < start + length } ?? false
                cells += on ? "┃" : (seg.parts.isEmpty ? "─" : "▮")
                start += length
            }
            edge += "\(seg.mediaSequence % 10000) \(cells)  "
        }
        if m.partHint != nil { edge += "▯" }
        out.append(edge)
        if let live = s.edgeDistance {
            let catchUp = s.catchUp.map { $0.speeding ? "  catching up at \(fixed(LatencyCatchUp.rate, 2))×" : "" } ?? ""
            out.append(
                "latency \(fixed(live, 2)) s behind the edge"
                    + (phb.map { " (PART-HOLD-BACK \(fixed($0, 1)) s, \(live >= $0 ? "+" : "")\(fixed(live - $0, 2)))" } ?? "")
                    + (s.pdtLatency.map { "  glass to glass \(fixed($0, 2)) s" } ?? "") + catchUp)
        }
        let ll = s.lowLatency
        if ll.holds.isEmpty {
            out.append("holds  no blocking reload yet")
        } else {
            let h = ll.holds.sorted()
            out.append(
                "holds  \(ll.holds.count) blocking reloads: p50 \(fixed(h[h.count / 2], 2)) s  p95 \(fixed(h[Int(0.95 * Double(h.count - 1))], 2)) s  max \(fixed(h[h.count - 1], 2)) s (PART-TARGET \(fixed(pt, 2)) s)"
                    + (ll.longHolds > 0 ? "; \(ll.longHolds) over three target durations (§6.2.5.2)" : ""))
        }
        let w = ll.hintWaits.sorted()
        out.append(
            "hints  \(ll.hintHits) came true, \(ll.hintMisses) did not"
                + (w.isEmpty ? "" : "; held until published p50 \(fixed(w[w.count / 2], 2)) s  max \(fixed(w[w.count - 1], 2)) s"))
        out.append(
            ll.whole > ll.received
                ? "deltas \(Int((ll.savedShare * 100).rounded())) % of playlist bytes saved (\(DashboardModel.size(ll.whole - ll.received)) of \(DashboardModel.size(ll.whole)))"
                : "deltas none saved yet")
        out.append(
            ll.reportLag.map { "reports the furthest-behind rendition report trails this playlist by \($0) part\($0 == 1 ? "" : "s")" }
                ?? "reports none")
        return out
    }
}

extension Dashboard {
    /// The LL-HLS panel, in place of the log.
    static func lowLatency(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        lines("LL-HLS", legend: "▮ part  ▯ hinted  ┃ playhead", m.lowLatency, into: &c, y: &y, rows: rows) { _ in .normal }
    }
}
