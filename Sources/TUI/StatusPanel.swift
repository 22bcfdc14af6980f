import HLS
import Session

// The status line and the footer: what the player does now, and the keys at hand. Built from the session and drawn, both pure.

/// The status lines.
public struct StatusModel: Sendable, Equatable {
    public var state: PlaybackState
    public var clock: String
    public var pdt: String?
    public var rung: String
    public var video: String?
    public var throughput: String
    public var dropped: Int
    public var stalls: Int
    public var stalled: Double
    /// Forward jumps past content never shown.
    public var skips: Int = 0
    public var caps: String
    public var mode: String
    public var error: String?
    public var problem: String?
    public var insecure: Bool
    public var url: String
    /// The latest switch: "#0→#2 abr splice 3s ago".
    public var lastSwitch: String? = nil
    /// LL-HLS reloads: "LL hold 0.62s delta -18%".
    public var lowLatency: String? = nil
    /// Pathways (content steering): "path cdn-b pinned  cdn-a out 12s".
    public var pathway: String? = nil
    /// The audio rendition the player was given (`audio Deutsch [de] 6ch`); nil when the variant names no AUDIO group.
    public var audio: String? = nil
    /// An interstitial plays in place of the primary: "interstitial mid-4 (asset 1/2)".
    public var interstitial: String? = nil
    /// What the interstitial plays and where the primary resumes, for the line under the status.
    public var interstitialDetail: String? = nil
}

extension DashboardModel {
    static func status(_ s: SessionState) -> StatusModel {
        var clock = "--:--"
        if let pos = s.position {
            if let lat = s.liveLatency {
                // Behind the live edge, and glass to glass when the stream has PDT (a dash when it has none).
                clock = "live -\(fixed(max(0, lat), 1))s g2g " + (s.pdtLatency.map { fixed($0, 1) + "s" } ?? "-")
            } else {
                clock = clockText(pos) + "/" + clockText(s.windowDuration ?? 0)
            }
        } else if let d = s.windowDuration, s.playingMedia?.isLive == false {
            clock = "--:--/" + clockText(d)
        }
        let rung = s.playingRung.flatMap { s.ladder.rungs.indices.contains($0) ? s.ladder.rungs[$0] : nil }
        let rungText = rung.map { s.ladder.file ? "MP4 file" : s.ladder.single ? "single" : "#\($0.index) \($0.name)" } ?? "-"
        let mode: String
        switch s.mode {
        case .automatic: mode = "auto"
        case .pinned(let i): mode = s.targetRung == i ? "pinned #\(i)" : "pinned #\(i) (held by cap)"
        }
        let last = s.switches.last.flatMap { w in
            w.from.map { "#\($0)→#\(w.to) \(w.reason.rawValue) \(w.mechanism.rawValue) \(Int(max(0, s.now - w.t)))s ago" }
        }
        var status = StatusModel(
            state: s.state, clock: clock, pdt: s.playheadPDT.map { DashboardModel.milliseconds($0) }, rung: rungText,
            video: s.sample.width.flatMap { w in s.sample.height.map { "\(w)x\($0)" } },
            throughput: s.throughput.estimate.map { Rung.rate(Int($0)) + "bps" } ?? "-", dropped: s.sample.droppedFrames,
            stalls: s.stallCount,
            stalled: s.stalledSeconds, caps: s.caps.description, mode: mode + " ⇄" + s.manualSwitch.rawValue, error: s.error,
            // A stall in progress says how long and why, in place of the last problem; then a picture frozen or black.
            problem: s.currentStall.map { st in "stalled \(fixed(max(0, s.now - st.start), 1)) s" + (st.cause.map { ": " + $0 } ?? "") }
                ?? s.picture.blackSince.map { "picture black \(fixed(max(0, s.now - $0), 1)) s" }
                ?? s.picture.frozenSince.map { "picture frozen \(fixed(max(0, s.now - $0), 1)) s" } ?? s.problem,
            insecure: s.insecureTLS, url: s.url)
        status.lastSwitch = last
        if let run = s.interstitials.run {
            // The player holds the asset: its own time and variant; the primary waits at its moment (docs/EVENTS.md).
            status.interstitial = s.interstitials.label
            status.clock = "ad " + clockText(run.elapsed) + (run.asset.map { $0.duration > 0 ? "/" + clockText($0.duration) : "" } ?? "")
            let v = run.variant.flatMap { run.ladder?.rungs[safe: $0] } ?? run.ladder?.rungs.first
            status.rung =
                "asset " + (v?.variant.resolution.map { "\($0.height)p" } ?? v?.variant.bandwidth.map { Rung.rate($0) + "bps" } ?? "-")
            status.video = run.video
            status.state = run.assetStarted == nil ? .starting : s.userPaused ? .paused : .playing
            let restrict =
                run.interstitial.restrict.isEmpty ? "" : "  X-RESTRICT " + run.interstitial.restrict.sorted().joined(separator: ",")
            status.interstitialDetail =
                (status.interstitial ?? "") + restrict + "  primary held at PDT " + (status.pdt ?? "-")
                + (run.failed.isEmpty ? "" : "  \(run.failed.count) skipped: \(run.failed.last!.why)")
        }
        status.audio = s.playingAudio.map { "audio " + AudioRenditions.label($0) }
        status.skips = s.skipCount
        if let p = s.pathways {
            let out = p.known.filter { p.isPenalised($0, at: s.now) }.map {
                "\($0) out \(Int((p.penalties[$0]!.until - s.now).rounded(.up)))s"
            }
            status.pathway =
                (["path \(p.current)" + (p.pinned == nil ? "" : " pinned") + (s.steering.stopped ? " (steering stopped)" : "")] + out)
                .joined(separator: "  ")
        }
        if let l = s.lowLatency.last {
            status.lowLatency =
                "LL " + (l.blocked ? "held " : "reload ") + fixed(l.hold, 2) + "s"
                + (s.lowLatency.whole > s.lowLatency.received ? " delta -\(Int((s.lowLatency.savedShare * 100).rounded()))%" : "")
        }
        return status
    }
}

extension Dashboard {
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
        } else if let i = s.interstitialDetail {
            c.put(0, y, fit("◆ " + i, c.width), .accent)
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

    static func footer(_ s: StatusModel, into c: inout Canvas) {
        let y = c.height - 1
        if let p = s.problem, s.error == nil {
            c.put(0, y, fit("⚠ " + p, c.width), .warn)
        } else {
            c.put(0, y, fit("? help  q quit  Space pause  ←→ seek  ↑↓ Enter pin  a auto  -/+ cap  0 no cap  t theme  l log", c.width), .dim)
        }
    }
}
