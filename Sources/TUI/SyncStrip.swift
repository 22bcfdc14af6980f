import HLS
import Session

/// What the sync strip shows for two to four panes.
public struct SyncModel: Sendable, Equatable {
    public var state: SyncState
    /// Seconds pane 1 is behind pane 2 on the wall clock.
    public var offset: Double?
    public var speeds: [Double]
    public var pdts: [DateTime?]
    /// What was done last to bring the panes together ("pane 2 forward").
    public var action: String?
    /// More than two panes: each pane's seconds ahead of the reference clock, and which pane that is.
    public var offsets: [Double?] = []
    public var reference: Int?
    /// `--latency`: the panes follow the wall clock less `latency` (nil while auto has not chosen); `offsets` are their
    /// errors against it.
    public var followsClock = false
    public var latency: Double?
    public init(
        state: SyncState, offset: Double?, speeds: [Double], pdts: [DateTime?], action: String? = nil, offsets: [Double?] = [],
        reference: Int? = nil
    ) {
        self.action = action
        self.offsets = offsets
        self.reference = reference
        self.state = state
        self.offset = offset
        self.speeds = speeds
        self.pdts = pdts
    }
}

/// The one-line strip above synchronized panes. Two: each playhead's PDT, the offset, the lock and the speed corrections.
/// More: the reference clock and each other pane's offset from it.

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
        let letter = { (i: Int) in String(UnicodeScalar(UInt8(65 + i))) }
        var text = "⇆ SYNC \(m.state.label) │ A \(pdt(0)) B \(pdt(1)) │ Δ \(offset) │ speed \(speed)"
        if m.followsClock {
            let target = m.latency.map { "\(fixed($0, 1)) s" } ?? "auto"
            let errors = m.offsets.indices.map { i in
                "\(letter(i)) " + (m.offsets[i].map { ($0 >= 0 ? "+" : "") + fixed($0 * 1000, 1) + " ms" } ?? "–")
            }
            text = "⇆ LATENCY \(target) \(m.state.label) │ " + errors.joined(separator: "  ") + " │ speed \(speed)"
        } else if m.pdts.count > 2 {
            let ref = m.reference.map { "ref \(letter($0)) \(pdt($0))" } ?? "ref –"
            let deltas = m.offsets.indices.filter { $0 != m.reference }.map { i in
                "\(letter(i)) " + (m.offsets[i].map { ($0 >= 0 ? "+" : "") + fixed($0 * 1000, 1) + " ms" } ?? "–")
            }
            text = "⇆ SYNC \(m.state.label) │ \(ref) │ " + deltas.joined(separator: "  ")
        }
        if let a = m.action { text += " │ \(a)" }
        if case .off(let why) = m.state { text = (m.followsClock ? "⇆ LATENCY off: " : "⇆ SYNC off: ") + why }
        let hint = m.pdts.count > 2 && !m.followsClock ? "  s: lock on/off  r: reference" : "  s: lock on/off"
        if displayWidth(text + hint) <= width { text += hint }
        c.fill(Rect(x: 0, y: 0, width: width, height: 1), role)
        c.put(0, 0, fit(text, width), role)
        return c
    }
}
