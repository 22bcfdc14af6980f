import CNCurses
import Foundation
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

    /// Why this process cannot run the dashboard on its terminal, in one line; nil when it can.
    public static func unusableTerminal(term: String?) -> String? {
        let scripts = "for scripts and pipes use `hlstui monitor URL` (JSON Lines)"
        switch hl_terminal_check() {
        case 0: return nil
        case 1: return "standard input is not a terminal: the dashboard needs one; \(scripts)"
        case 2: return "standard output is not a terminal: the dashboard needs one; \(scripts)"
        case 3: return "TERM is not set: the dashboard needs to know the terminal; \(scripts)"
        case 4: return "TERM=\(term ?? "") has no terminfo entry on this machine (try TERM=xterm-256color); \(scripts)"
        default: return "TERM=\(term ?? "") cannot move the cursor, the dashboard cannot draw on it; \(scripts)"
        }
    }

    /// Takes over the terminal: from here on the process's stdout and stderr (where C libraries write directly) are captured,
    /// read with `takeCaptured()`, and only curses writes to the terminal; `stop()` gives everything back.
    public func start() throws(ScreenError) {
        if hl_capture_start() != 0 { throw ScreenError(description: "cannot capture the output of the player's libraries (no pipe)") }
        guard hl_start() == 0 else {
            hl_capture_stop()
            throw ScreenError(description: "cannot start curses: is TERM set to a terminal curses knows?")
        }
        active = true
        colors = Int(hl_colors())
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        asciiOnly = hl_user_utf8() == 0 || Glyphs.lacksLineDrawing(term: term)
    }

    /// Ends curses only: the shell's screen is back while stdout and stderr stay captured (players still closing).
    public func endDrawing() {
        hl_stop()
        active = false
    }

    /// Gives the terminal back (curses, then stdout and stderr).
    public func stop() {
        hl_stop()
        hl_capture_stop()
        active = false
    }

    /// Whether the locale or the terminal cannot show the dashboard's glyphs: then every draw uses ASCII (`--ascii` forces it).
    public var asciiOnly = false

    /// What the process's libraries wrote to stdout and stderr since the last call, and how many bytes were lost to a flood.
    public func takeCaptured() -> (text: String, lost: Int) {
        var out = [UInt8]()
        var lost = 0
        var buf = [CChar](repeating: 0, count: 16384)
        while true {
            var l = 0
            let n = hl_capture_take(&buf, buf.count, &l)
            lost += l
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n].map { UInt8(bitPattern: $0) })
        }
        return (String(decoding: out, as: UTF8.self), lost)
    }

    /// Ctrl-Z: stops the job like the terminal driver would; returns after `fg`.
    public func suspend() { hl_suspend() }

    /// True once after the process was continued (SIGCONT): the screen needs a full repaint.
    public static func takeContinued() -> Bool { hl_take_continued() != 0 }

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

    /// The protocol pictures are drawn with (nil: in cells), and a cell's size in pixels (sixel draws in pixels).
    public var graphics: GraphicsProtocol?
    public var cellPixels = (width: 8, height: 16)
    /// The pictures on the terminal now, as last drawn.
    private var shownImages: [PlacedImage] = []

    /// Asks the terminal what it can draw — a kitty graphics query, the cell size, DA1 (whose parameter 4 is sixel) — and
    /// reads the answers from the keyboard side before curses does, until DA1's (every terminal answers it, last) or 1.5 s.
    public func detectGraphics() -> GraphicsReplies {
        writeTerminal(GraphicsReplies.query)
        var got = [UInt8]()
        let deadline = ContinuousClock.now + .milliseconds(1500)
        var buf = [UInt8](repeating: 0, count: 512)
        while ContinuousClock.now < deadline {
            var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = read(0, &buf, buf.count)
            if n <= 0 { break }
            got += buf[0..<n]
            if GraphicsReplies.parse(got).complete { break }
        }
        var r = GraphicsReplies.parse(got)
        if r.cellPixels == nil {
            // The window size in pixels, where the terminal fills it in.
            var ws = winsize()
            if ioctl(hl_terminal_fd(), UInt(TIOCGWINSZ), &ws) == 0, ws.ws_xpixel > 0, ws.ws_ypixel > 0, ws.ws_col > 0, ws.ws_row > 0 {
                r.cellPixels = (Int(ws.ws_xpixel) / Int(ws.ws_col), Int(ws.ws_ypixel) / Int(ws.ws_row))
            }
        }
        if let c = r.cellPixels { cellPixels = c }
        return r
    }

    /// Bytes straight to the terminal (after curses has flushed): graphics and queries.
    func writeTerminal(_ s: String) {
        let fd = hl_terminal_fd()
        var bytes = Array(s.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Sends the canvas's pictures with the graphics protocol over the blank cells left for them: those new or changed since
    /// the last draw, or all after a full repaint. The cursor is saved and restored around each.
    private func drawImages(_ images: [PlacedImage], repainted: Bool) {
        if graphics == .kitty {
            for id in stride(from: images.count, to: shownImages.count, by: 1) { writeTerminal(Kitty.delete(id: id + 1)) }
        }
        for (n, img) in images.enumerated() where repainted || n >= shownImages.count || shownImages[n] != img {
            let at = "\u{1B}7\u{1B}[\(img.rect.y + 1);\(img.rect.x + 1)H"
            switch graphics {
            case .kitty: writeTerminal(at + Kitty.encode(img.image, columns: img.rect.width, rows: img.rect.height, id: n + 1) + "\u{1B}8")
            case .sixel:
                // The rect's pixels, the image fitted inside with its aspect — never enlarged: sixel is drawn pixel for pixel,
                // and an enlarged copy would cost more to encode and send and show nothing more.
                let (w, h) = (img.rect.width * cellPixels.width, img.rect.height * cellPixels.height)
                let scale = min(1, Double(w) / Double(img.image.width), Double(h) / Double(img.image.height))
                let (sw, sh) = (max(1, Int(Double(img.image.width) * scale)), max(1, Int(Double(img.image.height) * scale)))
                writeTerminal(at + Sixel.encode(img.image, width: sw, height: sh) + "\u{1B}8")
            case nil: break
            }
        }
        shownImages = images
    }

    /// Draws a whole canvas and refreshes.
    public func draw(_ c: Canvas, clear: Bool = false) {
        let images = graphics == nil ? [] : c.images
        // Sixel pixels stay until text is written over them: when a picture goes or moves, everything is drawn again.
        let repaint = clear || (graphics == .sixel && !shownImages.isEmpty && images.map(\.rect) != shownImages.map(\.rect))
        if repaint { hl_clear() }
        hl_erase()
        for y in 0..<c.height {
            for run in c.runs(y) {
                if let colors = run.colors {
                    drawColored(run.text, x: run.x, y: y, colors: colors, lastRow: y == c.height - 1, width: c.width)
                    continue
                }
                let s = theme?.style(run.role) ?? Style()
                var attrs: Int32 = 0
                if s.bold { attrs |= 1 }
                if s.reverse { attrs |= 2 }
                if s.underline { attrs |= 4 }
                if s.dim { attrs |= 8 }
                // The bottom-right cell cannot be written without scrolling on some terminals: leave it.
                let shown = asciiOnly ? Glyphs.ascii(run.text) : run.text
                let text = (y == c.height - 1 && run.x + displayWidth(shown) >= c.width) ? String(shown.dropLast()) : shown
                hl_put_attrs(Int32(y), Int32(run.x), text, attrs, pairs[run.role] ?? 0)
            }
        }
        hl_refresh()
        if graphics != nil { drawImages(images, repainted: repaint) }
    }

    /// A run of cells with colours of their own (a picture): each cell in the pair ncurses keeps for its two colours —
    /// direct RGB on a terminal with 24-bit colour (`COLORS` of 2^24, e.g. TERM=xterm-direct), else the nearest of xterm's 256;
    /// with fewer colours (or NO_COLOR) the text alone (the model then draws the luma ramp).
    func drawColored(_ text: String, x: Int, y: Int, colors: CellColors, lastRow: Bool, width: Int) {
        let chars = Array(text)
        let pair: Int32
        if self.colors >= 1 << 24 {
            func pack(_ c: RGB) -> Int32 { Int32(c.r) << 16 | Int32(c.g) << 8 | Int32(c.b) }
            pair = hl_alloc_pair(pack(colors.fg), pack(colors.bg))
        } else if self.colors >= 256 {
            pair = hl_alloc_pair(Int32(PictureCells.xterm256(colors.fg)), Int32(PictureCells.xterm256(colors.bg)))
        } else {
            pair = 0
        }
        var shown = asciiOnly ? Glyphs.ascii(text) : text
        if lastRow && x + chars.count >= width { shown = String(shown.dropLast()) }
        hl_put_pair(Int32(y), Int32(x), shown, max(0, pair))
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
