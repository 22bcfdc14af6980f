/// Something a person (a key) or a script (`monitor --commands`) asks for; imperative, applied by the App.
public enum Action: Sendable, Equatable {
    case togglePause
    case seekRelative(Double)
    case seekTo(Double)
    case pin(Int)
    case automatic
    case capHeight(Int?)
    case capDown
    case capUp
    case capBitrate(Int?)
    case bitrateDown
    case bitrateUp
    /// How switches a person asks for take effect from now on.
    case switchMode(SwitchMode)
    case toggleSwitchMode
    /// Two panes or more: lock them on PDT, or let them run free.
    case toggleSync
    /// Make a pane the sync's reference clock (0-based; nil: the focused pane).
    case syncReference(Int?)
    /// Content steering: pin a pathway (nil: the steering manifest's choice again), or the next one in turn.
    case pinPathway(String?)
    case nextPathway
    /// The next audio rendition of the playing variant's group, or one by NAME or LANGUAGE (docs/RENDITIONS.md).
    case audio(AudioSelect)
    /// The next subtitle rendition (after the last: off), off, or one by NAME or LANGUAGE (docs/SUBTITLES.md).
    case subtitles(SubtitleSelect)
    case quit

    /// Parses one command of a `--commands` script: `cap 360`, `cap none`, `pin 1`, `auto`, `seek 20`, `seek +5`, `bitrate 2M`, `switch smooth|immediate`, `sync`, `reference 2`, `pathway cdn-b|auto|next`, `audio next|LANGUAGE|NAME`, `subs next|off|LANGUAGE|NAME`, `pause`, `quit`.
    public static func parse(_ words: [Substring]) -> Action? {
        guard let verb = words.first?.lowercased() else { return nil }
        let arg = words.dropFirst().first.map(String.init)
        switch verb {
        case "pause", "play": return .togglePause
        case "auto", "automatic": return .automatic
        case "quit", "stop": return .quit
        case "sync": return .toggleSync
        case "reference": return arg.flatMap { Int($0) }.map { .syncReference($0 - 1) }
        case "pin": return arg.flatMap { Int($0) }.map { .pin($0) }
        case "pathway":
            guard let a = arg else { return nil }
            if a == "next" { return .nextPathway }
            return .pinPathway(a == "auto" ? nil : a)
        case "audio":
            guard let a = arg else { return nil }
            if a == "next" { return .audio(.next) }
            // A NAME may hold spaces: the rest of the line.
            return .audio(.named(words.dropFirst().joined(separator: " ")))
        case "subs", "subtitles":
            guard let a = arg else { return nil }
            if a == "next" { return .subtitles(.next) }
            if a == "off" { return .subtitles(.off) }
            return .subtitles(.named(words.dropFirst().joined(separator: " ")))
        case "cap":
            guard let a = arg else { return nil }
            if a == "none" || a == "0" { return .capHeight(nil) }
            if a == "down" { return .capDown }
            if a == "up" { return .capUp }
            return Int(a.hasSuffix("p") ? String(a.dropLast()) : a).map { .capHeight($0) }
        case "bitrate":
            guard let a = arg else { return nil }
            if a == "none" || a == "0" { return .capBitrate(nil) }
            if a == "down" { return .bitrateDown }
            if a == "up" { return .bitrateUp }
            return parseRate(a).map { .capBitrate($0) }
        case "switch":
            if arg == nil { return .toggleSwitchMode }
            return arg.flatMap { SwitchMode(rawValue: $0.lowercased()) }.map { .switchMode($0) }
        case "seek":
            guard let a = arg else { return nil }
            if a.hasPrefix("+") || a.hasPrefix("-") { return Double(a).map { .seekRelative($0) } }
            return Double(a).map { .seekTo($0) }
        default: return nil
        }
    }

    /// The command as a `--commands` script says it (`parse` reads it back); a reference to the focused pane names `focus`.
    public func words(focus: Int = 0) -> String {
        func number(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
        switch self {
        case .togglePause: return "pause"
        case .seekRelative(let d): return "seek " + (d < 0 ? "-" : "+") + number(abs(d))
        case .seekTo(let d): return "seek \(number(d))"
        case .pin(let i): return "pin \(i)"
        case .automatic: return "auto"
        case .capHeight(let h): return "cap " + (h.map { String($0) } ?? "none")
        case .capDown: return "cap down"
        case .capUp: return "cap up"
        case .capBitrate(let b): return "bitrate " + (b.map { String($0) } ?? "none")
        case .bitrateDown: return "bitrate down"
        case .bitrateUp: return "bitrate up"
        case .switchMode(let m): return "switch \(m.rawValue)"
        case .toggleSwitchMode: return "switch"
        case .toggleSync: return "sync"
        case .syncReference(let p): return "reference \((p ?? focus) + 1)"
        case .pinPathway(let p): return "pathway \(p ?? "auto")"
        case .nextPathway: return "pathway next"
        case .audio(.next): return "audio next"
        case .audio(.named(let q)): return "audio \(q)"
        case .subtitles(let s): return "subs \(s)"
        case .quit: return "quit"
        }
    }

    /// "2M", "800k", "1500000" as bits per second.
    public static func parseRate(_ s: String) -> Int? {
        let l = s.lowercased()
        if l.hasSuffix("m"), let v = Double(l.dropLast()) { return Int(v * 1_000_000) }
        if l.hasSuffix("k"), let v = Double(l.dropLast()) { return Int(v * 1000) }
        return Int(l)
    }
}

/// A timed line of a `--commands` script.
public struct ScriptedAction: Sendable, Equatable {
    public var at: Double
    public var action: Action
    public var line: Int
    /// The pane it is for (a key pressed on a focused pane, replayed); nil: every pane, as a script line is.
    public var pane: Int?
    /// A replayed command's moment in the stream: where its pane's playhead was when it was given. The replay gives it once
    /// the playhead is there again, so it meets the player where the recorded one did, whatever the machine's speed
    /// (docs/REPLAY.md); nil: at `at`, as a script line is.
    public var playhead: StreamPoint?

    /// How long past `at` a replayed command waits for its moment before it is given anyway (a replay that diverged).
    public static let replayGrace = 5.0

    public init(at: Double, action: Action, line: Int, pane: Int? = nil, playhead: StreamPoint? = nil) {
        self.at = at
        self.action = action
        self.line = line
        self.pane = pane
        self.playhead = playhead
    }

    /// Whether the command is due `t` seconds into the session with its pane's playhead at `now` (nil: not playing yet).
    /// `.late`: given at its time plus the grace because the replay's playhead did not get there.
    public func cue(t: Double, playhead now: StreamPoint?) -> Cue {
        guard let want = playhead else { return t >= at ? .due : .notYet }
        if let now, now.msn > want.msn || (now.msn == want.msn && now.offset >= want.offset) { return .due }
        return t >= at + Self.replayGrace ? .late : .notYet
    }

    public enum Cue: Sendable, Equatable { case notYet, due, late }

    /// The recorded playhead the command is decided at in pane `pane`: its own pane's (the first pane's for a command to
    /// every pane); nil for another pane, or a script line, which has none.
    public func moment(for pane: Int) -> StreamPoint? { pane == (self.pane ?? 0) ? playhead : nil }
}

/// A script line that is not a command, with its line number.
public struct ScriptError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var text: String
    public var description: String {
        "commands line \(line): cannot read \"\(text)\" (expected e.g. \"3.0 cap 360\", \"5 pin 1\", \"8 auto\", \"10 seek 20\")"
    }
}

/// Parses `--commands` text: `SECONDS ACTION [ARG]` per line; blank lines and `#` comments skipped.
public func parseCommandScript(_ text: String) throws(ScriptError) -> [ScriptedAction] {
    var out: [ScriptedAction] = []
    for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        if words.isEmpty { continue }
        guard let t = Double(words[0]), t >= 0, t.isFinite, let a = Action.parse(Array(words.dropFirst())) else {
            throw ScriptError(line: i + 1, text: String(raw))
        }
        out.append(ScriptedAction(at: t, action: a, line: i + 1))
    }
    return out.sorted { $0.at < $1.at }
}
