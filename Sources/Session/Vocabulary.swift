/// How much a message-log line matters; the monitor's `log` events carry it as its raw value.
public enum LogLevel: String, Sendable, CaseIterable, CustomStringConvertible {
    case fatal, error, warn, info, debug

    /// A libmpv log level (`fatal` … `trace`): `v`, `debug` and `trace` are debug.
    public init(mpv: String) {
        switch mpv {
        case "fatal": self = .fatal
        case "error": self = .error
        case "warn": self = .warn
        case "info", "status": self = .info
        default: self = .debug
        }
    }

    public var description: String { rawValue }

    /// An error or worse: the status line's problem.
    public var isProblem: Bool { self == .error || self == .fatal }
    /// A warning or worse: written by the monitor without `--verbose`.
    public var isWarning: Bool { isProblem || self == .warn }
}

/// Why the rung the player is given changed.
public enum SwitchReason: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The first rung given.
    case start
    /// A pin or automatic selection a person asked for.
    case manual
    /// A resolution or bitrate cap moved.
    case cap
    /// The automatic choice from measured throughput and buffer.
    case abr
    /// The rung failed for a segment and another served it.
    case failover
    /// A GAP segment served from another rung.
    case gap
    /// The pathway changed (content steering, a pathway failed or came back, a pin): the same rung on the new one.
    case pathway
    /// The server's maximum suggested bitrate (CMSD `mb`) moved, followed with `--cmsd-cap`.
    case cmsd

    public var description: String { rawValue }
}

/// Why the player stopped playing a file (libmpv's end-file reasons, as far as the session distinguishes them).
public enum FileEndReason: Sendable, Equatable {
    /// The end of the stream.
    case eof
    /// An error ended playback.
    case error
    /// Stopped or replaced (a reload, a quit).
    case other
}
