import CMCD
import HLS

/// How the pane chooses its rung (a feature sub-state, docs/ARCHITECTURE.md; DECISIONS.md, ABR): automatic or pinned, the
/// caps a person set and the one the server suggests (CMSD, docs/CMCD.md), how switches take effect, and the ABR's
/// settings. Its state changes only through its transitions; the switch that follows is the Session's to plan.
public struct RungSelection: Sendable {
    public private(set) var caps = Caps()
    /// `--cmsd-cap`: the server's maximum suggested bitrate (CMSD `mb`) caps the ladder (docs/CMCD.md).
    public private(set) var followsCMSD = false
    /// The server's cap moved since the pane last planned for it.
    private(set) var serverCapMoved = false
    /// When an answer last carried the server's cap.
    private(set) var serverCapSeen: Double?
    public private(set) var mode: SelectionMode = .automatic
    /// How switches a person asks for take effect (ABR switches are always smooth unless configured).
    public private(set) var manualSwitch: SwitchMode = .immediate
    /// How automatic switches take effect (ABR, a pathway move, the server's cap), and the ABR's settings.
    public private(set) var autoSwitch: SwitchMode = .smooth
    public private(set) var abr = AbrConfig()

    /// Seconds a server's maximum suggested bitrate holds after the last answer that carried it.
    public static let serverCapLife = 10.0

    public init() {}

    /// As the command line sets it.
    init(_ settings: SessionSettings) {
        caps = settings.caps
        followsCMSD = settings.followsCMSD
        mode = settings.mode
        manualSwitch = settings.manualSwitch
        autoSwitch = settings.autoSwitch
        abr = settings.abr
    }

    /// A selection action (pin, automatic, caps, the switch mode) on `ladder`: the switch reason it implies, nil for one that
    /// implies none (and for actions that are not the selection's).
    mutating func select(_ action: Action, in ladder: Ladder) -> SwitchReason? {
        switch action {
        case .pin(let i): mode = .pinned(i)
        case .automatic: mode = .automatic
        case .capHeight(let h): caps.maxHeight = h
        case .capDown: caps.maxHeight = caps.heightDown(ladder)
        case .capUp: caps.maxHeight = caps.heightUp(ladder)
        case .capBitrate(let b): caps.maxBitrate = b
        case .bitrateDown: caps.maxBitrate = caps.bitrateDown(ladder)
        case .bitrateUp: caps.maxBitrate = caps.bitrateUp(ladder)
        case .switchMode(let m):
            manualSwitch = m
            return nil
        case .toggleSwitchMode:
            manualSwitch = manualSwitch == .immediate ? .smooth : .immediate
            return nil
        case .togglePause, .seekRelative, .seekTo, .quit, .toggleSync, .syncReference, .pinPathway, .nextPathway, .audio, .subtitles:
            return nil
        }
        switch action {
        case .pin, .automatic: return .manual
        default: return .cap
        }
    }

    /// A rung pinned on one pathway, pinned as `rung`, the same rung on the pathway now in use (docs/STEERING.md).
    mutating func repin(_ rung: Int) { mode = .pinned(rung) }

    /// An answer's CMSD-Dynamic at `t`: its lowest `mb` caps the ladder, one without `mb` lifts the cap (each says what
    /// holds now). Answers without CMSD-Dynamic change nothing, but a cap no answer has repeated for `serverCapLife` seconds
    /// is lifted: the server stopped saying it. What changed, in one line (nil: nothing).
    mutating func follow(_ cmsd: CMSD?, at t: Double) -> String? {
        guard let cmsd, !cmsd.hops.isEmpty else {
            guard caps.serverMaxBitrate != nil, let seen = serverCapSeen, t - seen > Self.serverCapLife else { return nil }
            caps.serverMaxBitrate = nil
            serverCapMoved = true
            return "CMSD: no answer has suggested a maximum bitrate for \(Int(Self.serverCapLife)) s: the cap is lifted"
        }
        let mb = cmsd.maxSuggestedBitsPerSecond
        if mb != nil { serverCapSeen = t }
        guard mb != caps.serverMaxBitrate else { return nil }
        caps.serverMaxBitrate = mb
        serverCapMoved = true
        let from = cmsd.hops.last { $0.mb != nil }?.name ?? cmsd.hops.last?.name ?? "the server"
        if let mb { return "CMSD: \(from) suggests at most \(Rung.rate(mb))bps: the ladder is capped there" }
        return "CMSD: no maximum bitrate suggested any more: the cap is lifted"
    }

    /// Whether the server's cap moved since the last time this was asked (the pane then plans for it).
    mutating func takeServerCapMove() -> Bool {
        defer { serverCapMoved = false }
        return serverCapMoved
    }
}

/// The selection as the Session's readers know it.
extension SessionState {
    public var caps: Caps { selection.caps }
    public var followsCMSD: Bool { selection.followsCMSD }
    public var mode: SelectionMode { selection.mode }
    public var manualSwitch: SwitchMode { selection.manualSwitch }
    public var autoSwitch: SwitchMode { selection.autoSwitch }
    public var abr: AbrConfig { selection.abr }
}
