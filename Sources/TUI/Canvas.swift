/// The meaning of a cell's text; a theme gives each role its colours and attributes.
public enum Role: String, Sendable, CaseIterable {
    case normal, dim, title, border, accent, good, warn, bad
    case status, statusError, insecure
    case cursor, playing, pinned, excluded
    case segment, buffered, playhead, gap, discontinuity
    case keyPrefetch, keyOnDemand, keyFailed
    case help
}

/// A colour given by value (a picture's pixels), not by a theme's role.
public struct RGB: Sendable, Hashable {
    public var r, g, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { (self.r, self.g, self.b) = (r, g, b) }
}

/// A cell's own foreground and background, in place of its role's.
public struct CellColors: Sendable, Hashable {
    public var fg: RGB
    public var bg: RGB
    public init(fg: RGB, bg: RGB) { (self.fg, self.bg) = (fg, bg) }
}

/// One character cell; a wide character's second cell is a continuation.
public struct Cell: Sendable, Equatable {
    public var text: String
    public var role: Role
    /// Colours of its own (a picture cell); nil: the role's.
    public var colors: CellColors?
    public init(text: String, role: Role, colors: CellColors? = nil) { (self.text, self.role, self.colors) = (text, role, colors) }
    public static let blank = Cell(text: " ", role: .normal)
    static let continuation = Cell(text: "", role: .normal)
}

/// Terminal columns a character takes: 2 for East Asian wide and emoji ranges, else 1.
public func displayWidth(_ c: Character) -> Int {
    guard let v = c.unicodeScalars.first?.value else { return 0 }
    switch v {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
        return 2
    default:
        return 1
    }
}

/// Terminal columns a string takes.
public func displayWidth(_ s: String) -> Int { s.reduce(0) { $0 + displayWidth($1) } }

/// `s` cut to `width` columns, with "…" when cut.
public func fit(_ s: String, _ width: Int) -> String {
    guard width > 0 else { return "" }
    if displayWidth(s) <= width { return s }
    var out = ""
    var w = 0
    for c in s {
        let cw = displayWidth(c)
        if w + cw > width - 1 { break }
        out.append(c)
        w += cw
    }
    return out + "…"
}

/// `s` padded with spaces (or cut) to exactly `width` columns; `right` aligns right.
public func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let f = fit(s, width)
    let gap = String(repeating: " ", count: max(0, width - displayWidth(f)))
    return right ? gap + f : f + gap
}

/// A rectangle of the screen.
public struct Rect: Sendable, Equatable {
    public var x, y, width, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }
}

/// A grid of cells the panels draw into; the terminal adapter copies it to the screen.
public struct Canvas: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [[Cell]]
    /// Pictures drawn with a graphics protocol over blank cells (the screen draws them after the cells).
    public var images: [PlacedImage] = []

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Array(repeating: .blank, count: max(0, width)), count: max(0, height))
    }

    /// Writes `text` at (x, y) in `role`, clipped to the canvas (and to `limit` columns when given); returns the columns written.
    @discardableResult
    public mutating func put(_ x: Int, _ y: Int, _ text: String, _ role: Role = .normal, limit: Int? = nil) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        let end = min(width, limit.map { x + $0 } ?? width)
        var col = x
        for c in text {
            let w = displayWidth(c)
            if col + w > end { break }
            if col >= 0 {
                cells[y][col] = Cell(text: String(c), role: role)
                if w == 2 { cells[y][col + 1] = .continuation }
            }
            col += w
        }
        return col - x
    }

    /// Writes one cell with colours of its own (a picture's).
    public mutating func paint(_ x: Int, _ y: Int, _ text: String, _ colors: CellColors) {
        guard y >= 0, y < height, x >= 0, x < width else { return }
        cells[y][x] = Cell(text: text, role: .normal, colors: colors)
    }

    /// Fills a row segment with one role (e.g. a reverse-video status bar).
    public mutating func fill(_ r: Rect, _ role: Role, char: String = " ") {
        let ys = max(0, r.y)..<max(max(0, r.y), min(height, r.y + r.height))
        let xs = max(0, r.x)..<max(max(0, r.x), min(width, r.x + r.width))
        for y in ys { for x in xs { cells[y][x] = Cell(text: char, role: role) } }
    }

    /// The text only, one string per row, trailing spaces kept (for snapshots).
    public var lines: [String] { cells.map { $0.map(\.text).joined() } }

    /// The text with trailing spaces removed, rows joined by newlines.
    public var text: String {
        lines.map { l in String(l.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// Runs of cells of one role and the same own colours in a row, for the terminal adapter.
    public func runs(_ y: Int) -> [(x: Int, text: String, role: Role, colors: CellColors?)] {
        var out: [(Int, String, Role, CellColors?)] = []
        var x = 0
        while x < width {
            let (role, colors) = (cells[y][x].role, cells[y][x].colors)
            var s = ""
            let start = x
            while x < width, cells[y][x].role == role, cells[y][x].colors == colors {
                s += cells[y][x].text
                x += 1
            }
            out.append((start, s, role, colors))
        }
        return out
    }

    /// Copies `other` into this canvas at `r`'s origin, clipped to `r`.
    public mutating func blit(_ other: Canvas, at r: Rect) {
        for y in 0..<min(other.height, r.height) where r.y + y < height {
            for x in 0..<min(other.width, r.width) where r.x + x < width { cells[r.y + y][r.x + x] = other.cells[y][x] }
        }
        for i in other.images {
            images.append(
                PlacedImage(rect: Rect(x: i.rect.x + r.x, y: i.rect.y + r.y, width: i.rect.width, height: i.rect.height), image: i.image))
        }
    }

    /// The role of the cell at (x, y).
    public func role(_ x: Int, _ y: Int) -> Role { cells[y][x].role }
}

/// `n` as at least `width` digits with leading zeros.
func zeros(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return String(repeating: "0", count: max(0, width - s.count)) + s
}
