import CNCurses
import TUI

/// The only caller of curses: starts and restores the terminal, draws canvases with a theme, reads keys.
public final class Screen {
    private var colors = 0
    private var theme: Theme?
    private var pairs: [Role: Int32] = [:]
    public private(set) var active = false

    public init() {}

    /// Installs the restore-on-exit and crash handlers (once per process, before `start`).
    public static func installHandlers() { hl_install_handlers() }

    /// True once SIGTERM, SIGHUP or SIGINT arrived.
    public static var quitRequested: Bool { hl_quit_requested() != 0 }

    /// Restores the terminal; safe at any time, any number of times.
    public static func restore() { hl_stop() }

    /// Takes over the terminal.
    public func start() throws(ScreenError) {
        guard hl_start() == 0 else { throw ScreenError(description: "cannot start curses: is TERM set to a terminal curses knows?") }
        active = true
        colors = Int(hl_colors())
    }

    /// Gives the terminal back.
    public func stop() {
        hl_stop()
        active = false
    }

    /// The terminal size in cells.
    public var size: (width: Int, height: Int) { (Int(hl_cols()), Int(hl_rows())) }

    /// The colours available (0 with NO_COLOR or on a terminal without colour).
    public var colorCount: Int { colors }

    /// Uses `theme` for the following draws, mapping its colours to what the terminal has (256, 16 or 8).
    public func use(_ theme: Theme) {
        self.theme = theme
        pairs = [:]
        guard colors > 0 else { return }
        let maxPairs = Int(hl_color_pairs())
        for (i, role) in Role.allCases.enumerated() where i + 1 < maxPairs {
            let s = theme.style(role)
            let fg = s.fg.index(colors: colors).map(Int32.init) ?? -1
            let bg = s.bg.index(colors: colors).map(Int32.init) ?? -1
            hl_init_pair(Int32(i + 1), fg, bg)
            pairs[role] = Int32(i + 1)
        }
    }

    /// Draws a whole canvas and refreshes.
    public func draw(_ c: Canvas, clear: Bool = false) {
        if clear { hl_clear() }
        hl_erase()
        for y in 0..<c.height {
            for run in c.runs(y) {
                let s = theme?.style(run.role) ?? Style()
                var attrs: Int32 = 0
                if s.bold { attrs |= 1 }
                if s.reverse { attrs |= 2 }
                if s.underline { attrs |= 4 }
                if s.dim { attrs |= 8 }
                // The bottom-right cell cannot be written without scrolling on some terminals: leave it.
                let text = (y == c.height - 1 && run.x + displayWidth(run.text) >= c.width) ? String(run.text.dropLast()) : run.text
                hl_put_attrs(Int32(y), Int32(run.x), text, attrs, pairs[run.role] ?? 0)
            }
        }
        hl_refresh()
    }

    /// Waits up to `timeoutMs` for a key.
    public func readKey(timeoutMs: Int) -> Key? {
        var fn: Int32 = 0
        let k = hl_getkey(Int32(timeoutMs), &fn)
        if k < 0 { return nil }
        if fn != 0 {
            switch k {
            case hl_key_up(): return .up
            case hl_key_down(): return .down
            case hl_key_left(): return .left
            case hl_key_right(): return .right
            case hl_key_enter(): return .enter
            case hl_key_resize(): return .resize
            case hl_key_ppage(): return .pageUp
            case hl_key_npage(): return .pageDown
            case hl_key_home(): return .home
            case hl_key_end(): return .end
            case hl_key_backspace(): return .backspace
            default: return nil
            }
        }
        switch k {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 127, 8: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(k) + 96)))
        default:
            guard let u = Unicode.Scalar(UInt32(k)) else { return nil }
            return .char(Character(u))
        }
    }
}

/// The terminal could not be used, in one sentence.
public struct ScreenError: Error, CustomStringConvertible {
    public var description: String
}
