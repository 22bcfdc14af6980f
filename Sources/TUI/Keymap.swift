import Session

/// A key as the terminal adapter reports it.
public enum Key: Sendable, Hashable {
    case char(Character)
    case up, down, left, right, enter, tab, pageUp, pageDown, home, end, escape, backspace, resize
    /// Ctrl and a letter (Ctrl-C is `.control("c")`).
    case control(Character)

    /// How the help screen and docs/DASHBOARD.md name the key.
    public var label: String {
        switch self {
        case .char(" "): return "Space"
        case .char(let c): return String(c)
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .enter: return "Enter"
        case .tab: return "Tab"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .escape: return "Esc"
        case .backspace: return "Backspace"
        case .resize: return "(resize)"
        case .control(let c): return "Ctrl-\(c.uppercased())"
        }
    }
}

/// What a key does: a session action, or something about the screen itself.
public enum Command: Sendable, Equatable {
    case session(Action)
    case selectUp, selectDown, pinSelected
    case nextTheme, toggleLog, toggleHelp, focusNext, togglePicture, toggleGraphs, toggleWaterfall, toggleLowLatency, toggleEvents,
        toggleValidation
    /// Ask for a URL and open it in another pane.
    case openPane
    case scrollUp, scrollDown
    /// Draw every cell again (after something else wrote on the terminal).
    case repaint
    /// Stop hlstui as a shell job (`fg` continues it).
    case suspend
}

/// One row of the keybinding table.
public struct Binding: Sendable {
    public var keys: [Key]
    public var command: Command
    public var help: String
}

/// The one keybinding table: it drives dispatch, the help screen and docs/DASHBOARD.md's key list (as lazygit's `GetKeybindings` does).
public enum Keymap {
    public static let seekStep = 5.0

    public static let bindings: [Binding] = [
        Binding(keys: [.char(" ")], command: .session(.togglePause), help: "pause / play"),
        Binding(keys: [.left], command: .session(.seekRelative(-seekStep)), help: "seek back 5 s"),
        Binding(keys: [.right], command: .session(.seekRelative(seekStep)), help: "seek forward 5 s"),
        Binding(keys: [.up, .char("k")], command: .selectUp, help: "move up the ladder"),
        Binding(keys: [.down, .char("j")], command: .selectDown, help: "move down the ladder"),
        Binding(keys: [.enter], command: .pinSelected, help: "pin the selected rung"),
        Binding(keys: [.char("a")], command: .session(.automatic), help: "automatic rung choice"),
        Binding(keys: [.char("-")], command: .session(.capDown), help: "resolution cap down a step"),
        Binding(keys: [.char("+"), .char("=")], command: .session(.capUp), help: "resolution cap up a step"),
        Binding(keys: [.char("0")], command: .session(.capHeight(nil)), help: "no resolution cap"),
        Binding(keys: [.char("[")], command: .session(.bitrateDown), help: "bitrate cap down a step"),
        Binding(keys: [.char("]")], command: .session(.bitrateUp), help: "bitrate cap up a step"),
        Binding(keys: [.char("\\")], command: .session(.capBitrate(nil)), help: "no bitrate cap"),
        Binding(keys: [.char("m")], command: .session(.toggleSwitchMode), help: "switches you ask for: immediate ⇄ smooth"),
        Binding(keys: [.char("s")], command: .session(.toggleSync), help: "panes: PDT lock on / off"),
        Binding(keys: [.char("r")], command: .session(.syncReference(nil)), help: "panes: the focused pane is the sync reference"),
        Binding(keys: [.char("p")], command: .session(.nextPathway), help: "pin the next pathway (CDN); after the last: steering's choice"),
        Binding(keys: [.char("A")], command: .session(.audio(.next)), help: "the next audio rendition of the playing variant's group"),
        Binding(
            keys: [.char("S")], command: .session(.subtitles(.next)),
            help: "subtitles: the next rendition of the variant's group, after the last off"),
        Binding(keys: [.char("o")], command: .openPane, help: "open another pane, up to four (asks for its URL)"),
        Binding(keys: [.tab], command: .focusNext, help: "focus the next pane"),
        Binding(keys: [.char("t")], command: .nextTheme, help: "next theme"),
        Binding(keys: [.char("l")], command: .toggleLog, help: "request log / message log"),
        Binding(keys: [.char("v")], command: .togglePicture, help: "the picture in place of the log, and back"),
        Binding(keys: [.char("g")], command: .toggleGraphs, help: "history plots in place of the log, and back"),
        Binding(keys: [.char("w")], command: .toggleWaterfall, help: "the requests as a waterfall in place of the log, and back"),
        Binding(
            keys: [.char("L")], command: .toggleLowLatency,
            help: "LL-HLS: parts at the edge, reload holds, hints, deltas, reports, latency, in place of the log"),
        Binding(
            keys: [.char("E")], command: .toggleEvents,
            help: "the stream's events: breaks with their SCTE-35, date ranges, timed metadata, in place of the log"),
        Binding(
            keys: [.char("V")], command: .toggleValidation,
            help: "validation: the rules the stream broke while it played (reloads, segments' media), in place of the log"),
        Binding(keys: [.pageUp], command: .scrollUp, help: "scroll the log back"),
        Binding(keys: [.pageDown], command: .scrollDown, help: "scroll the log forward"),
        Binding(keys: [.char("?"), .char("h")], command: .toggleHelp, help: "this help"),
        Binding(keys: [.control("l")], command: .repaint, help: "redraw the whole screen"),
        Binding(keys: [.control("z")], command: .suspend, help: "suspend to the shell (fg resumes)"),
        Binding(keys: [.char("q"), .control("c")], command: .session(.quit), help: "quit"),
    ]

    /// The command bound to `key`.
    public static func command(for key: Key) -> Command? {
        bindings.first { $0.keys.contains(key) }?.command
    }

    /// "Space", "↑ k", "q Ctrl-C".
    static func keysLabel(_ b: Binding) -> String { b.keys.map(\.label).joined(separator: " ") }

    /// The help screen's lines.
    public static var helpLines: [String] {
        let w = bindings.map { displayWidth(keysLabel($0)) }.max() ?? 0
        return bindings.map { pad(keysLabel($0), w) + "  " + $0.help }
    }

    /// docs/DASHBOARD.md's key list, a Markdown table.
    public static var markdown: String {
        let rows = bindings.map { b in
            "| " + b.keys.map { "`\($0.label == "|" ? "\\|" : $0.label)`" }.joined(separator: " ") + " | \(b.help) |"
        }
        return (["| Key | Does |", "| --- | --- |"] + rows).joined(separator: "\n")
    }
}
