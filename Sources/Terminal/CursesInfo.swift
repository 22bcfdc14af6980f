import CNCurses

/// Facts about the ncursesw this binary linked against.
public enum CursesInfo {
    /// The library's own version string, e.g. `ncurses 6.4.20221231`.
    public static var version: String { String(cString: hl_curses_version()) }
}
