import HLS
import LoaderEvents
import Session

// The variant ladder and the pathways of content steering. Built from the session and drawn, both pure.

/// One ladder row.
public struct LadderRow: Sendable, Equatable {
    public var index: Int
    public var resolution: String
    public var bandwidth: String
    public var average: String
    public var frameRate: String
    public var codecs: String
    public var extra: String
    public var playing = false
    public var target = false
    public var pinned = false
    public var excluded = false
    public var cursor = false
}

extension DashboardModel {
    static func ladderRows(_ s: SessionState, cursor: Int) -> [LadderRow] {
        // An interstitial's asset plays: its own ladder, the variant given marked (docs/EVENTS.md, "Interstitials played").
        if let run = s.interstitials.run, let asset = run.ladder {
            return asset.rungs.map { r in
                let v = r.variant
                var row = LadderRow(
                    index: r.index, resolution: v.resolution?.description ?? (asset.single ? "media playlist" : "audio/—"),
                    bandwidth: v.bandwidth.map(Rung.rate) ?? "-", average: v.averageBandwidth.map(Rung.rate) ?? "-",
                    frameRate: v.frameRate.map { $0 == $0.rounded() ? fixed($0, 0) : fixed($0, 2) } ?? "-", codecs: v.codecs ?? "-",
                    extra: "")
                row.playing = (run.variant ?? 0) == r.index
                return row
            }
        }
        let allowed = Set(s.caps.allowed(s.ladder))
        let playing = s.playingRung
        let target = s.targetRung
        return s.ladder.rungs.map { r in
            let v = r.variant
            var extra: [String] = []
            if let a = v.audio { extra.append("a:\(a)") }
            if let sub = v.subtitles { extra.append("s:\(sub)") }
            if let h = v.hdcpLevel, h != "NONE" { extra.append(h) }
            if let vr = v.videoRange, vr != "SDR" { extra.append(vr) }
            extra += r.marks.map { "⚠\($0)" }
            var row = LadderRow(
                index: r.index,
                resolution: v.resolution?.description ?? (s.ladder.file ? "MP4 file" : s.ladder.single ? "media playlist" : "audio/—"),
                bandwidth: v.bandwidth.map(Rung.rate) ?? "-", average: v.averageBandwidth.map(Rung.rate) ?? "-",
                frameRate: v.frameRate.map { $0 == $0.rounded() ? fixed($0, 0) : fixed($0, 2) } ?? "-", codecs: v.codecs ?? "-",
                extra: extra.joined(separator: " "))
            row.playing = playing == r.index
            row.target = target == r.index
            if case .pinned(let p) = s.mode { row.pinned = p == r.index }
            row.excluded = !allowed.contains(r.index)
            row.cursor = cursor == r.index
            return row
        }
    }

    /// "pathways  ▶cdn-b ok 2.1Mbps 42 req  cdn-a out 12s (HTTP 503) 31 req": priority order, the one in use marked, a penalised
    /// one with the seconds left and why, each with the throughput and number of its rungs' requests among those kept.
    static func pathwayLine(_ s: SessionState) -> String? {
        guard let p = s.pathways else { return nil }
        let order = p.priority.filter { p.known.contains($0) } + p.known.filter { !p.priority.contains($0) }
        var parts: [String] = []
        for name in order {
            let mine = s.requests.filter { r in r.rung.map { s.pathway(of: $0) == name } ?? false }
            let timed = mine.filter { $0.kind == .segment && !$0.local && $0.failure == nil && $0.durationMs > 0 }
            let seconds = timed.reduce(0) { $0 + $1.durationMs / 1000 }
            let rate = seconds > 0 ? " " + Rung.rate(Int(Double(timed.reduce(0) { $0 + $1.bytes }) * 8 / seconds)) + "bps" : ""
            let health =
                p.penalties[name].map { pen in
                    p.isPenalised(name, at: s.now)
                        ? "out \(Int((pen.until - s.now).rounded(.up)))s (\(pen.cause))" : "retest (\(pen.cause))"
                } ?? "ok"
            let mark = name == p.current ? "▶" : (name == p.pinned ? "●" : "")
            parts.append("\(mark)\(name) \(health)\(rate) \(mine.count) req")
        }
        return "pathways  " + parts.joined(separator: "  ") + (p.pinned.map { "  (pinned \($0))" } ?? "")
    }
}

extension Dashboard {
    static func ladder(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        title(
            m.status.interstitial.map { "Ladder of " + $0 } ?? "Ladder", into: &c, y: &y, right: "▶ playing  ● pinned  ◆ chosen  ✕ capped")
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
}
