import CNCurses

/// Facts about the ncursesw this binary linked against.
public enum CursesInfo {
    /// The library's own version string, e.g. `ncurses 6.4.20221231`.
    public static var version: String { String(cString: hl_curses_version()) }
}

/// Process-wide terminal output settings.
public enum TerminalOutput {
    /// Makes stdout line-buffered so request logs reach pipes and files as they happen.
    public static func lineBuffered() { hl_stdout_line_buffered() }
}
