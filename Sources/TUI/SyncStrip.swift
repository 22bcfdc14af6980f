import HLS
import Session

/// What the sync strip shows for two panes.
public struct SyncModel: Sendable, Equatable {
    public var state: SyncState
    /// Seconds pane 1 is behind pane 2 on the wall clock.
    public var offset: Double?
    public var speeds: [Double]
    public var pdts: [DateTime?]
    /// What was done last to bring the panes together ("pane 2 forward").
    public var action: String?
    public init(state: SyncState, offset: Double?, speeds: [Double], pdts: [DateTime?], action: String? = nil) {
        self.action = action
        self.state = state
        self.offset = offset
        self.speeds = speeds
        self.pdts = pdts
    }
}

/// The one-line strip above two synchronized panes: each playhead's PDT, the offset, the lock and the speed correction.
public enum SyncStrip {
    public static func render(_ m: SyncModel, width: Int) -> Canvas {
        var c = Canvas(width: width, height: 1)
        let role: Role
        switch m.state {
        case .locked: role = .playing
        case .off: role = .dim
        default: role = .accent
        }
        let pdt = { (i: Int) in
            m.pdts[safe: i].flatMap { $0 }.map { String(DashboardModel.milliseconds($0).dropFirst(11).prefix(12)) } ?? "–"
        }
        let offset = m.offset.map { (($0 >= 0 ? "+" : "") + fixed($0 * 1000, 1)) + " ms" } ?? "–"
        let speed = m.speeds.map { (($0 >= 1 ? "+" : "") + fixed(($0 - 1) * 100, 2)) + "%" }.joined(separator: " ")
        var text = "⇆ SYNC \(m.state.label) │ A \(pdt(0)) B \(pdt(1)) │ Δ \(offset) │ speed \(speed)"
        if let a = m.action { text += " │ \(a)" }
        if case .off(let why) = m.state { text = "⇆ SYNC off: \(why)" }
        let hint = "  s: lock on/off"
        if displayWidth(text + hint) <= width { text += hint }
        c.fill(Rect(x: 0, y: 0, width: width, height: 1), role)
        c.put(0, 0, fit(text, width), role)
        return c
    }
}
