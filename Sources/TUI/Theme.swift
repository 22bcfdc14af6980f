/// A colour as a theme names it.
public enum Color: Sendable, Equatable {
    case terminalDefault
    /// An index of the 256-colour palette (0–15 are the ANSI colours).
    case indexed(Int)
    case rgb(Int, Int, Int)

    static let ansiNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Parses `default`, an ANSI name (`red`, `brightred`), `0`–`255` or `#rrggbb`.
    static func parse(_ s: String) -> Color? {
        let l = s.lowercased()
        if l == "default" || l == "none" { return .terminalDefault }
        if let i = ansiNames.firstIndex(of: l) { return .indexed(i) }
        if l.hasPrefix("bright"), let i = ansiNames.firstIndex(of: String(l.dropFirst(6))) { return .indexed(i + 8) }
        if let n = Int(l), (0...255).contains(n) { return .indexed(n) }
        if l.hasPrefix("#"), l.count == 7, let v = Int(l.dropFirst(), radix: 16) { return .rgb(v >> 16, (v >> 8) & 0xFF, v & 0xFF) }
        return nil
    }

    /// The ANSI colours' usual RGB (xterm defaults), to find the nearest one.
    static let ansiRGB: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// RGB of a 256-palette index (xterm cube and grey ramp).
    static func rgb(index i: Int) -> (Int, Int, Int) {
        if i < 16 { return ansiRGB[i] }
        if i >= 232 { let g = 8 + (i - 232) * 10; return (g, g, g) }
        let c = i - 16
        let level = { (v: Int) in v == 0 ? 0 : 55 + v * 40 }
        return (level(c / 36), level((c / 6) % 6), level(c % 6))
    }

    /// The palette index to use on a terminal with `colors` colours (256, 16 or 8); nil means the terminal's default colour.
    public func index(colors: Int) -> Int? {
        let rgb: (Int, Int, Int)
        switch self {
        case .terminalDefault: return nil
        case .indexed(let i):
            // A direct-colour terminal (2^24 colours) reads a colour number as RGB, but for the eight ANSI colours.
            if i < colors && (colors < 1 << 24 || i < 8) { return i }
            rgb = Color.rgb(index: i)
        case .rgb(let r, let g, let b): rgb = (r, g, b)
        }
        if colors >= 1 << 24 { return max(8, rgb.0 << 16 | rgb.1 << 8 | rgb.2) }
        let limit = colors >= 256 ? 256 : (colors >= 16 ? 16 : 8)
        func distance(_ i: Int) -> Int {
            let c = Color.rgb(index: i)
            return (c.0 - rgb.0) * (c.0 - rgb.0) + (c.1 - rgb.1) * (c.1 - rgb.1) + (c.2 - rgb.2) * (c.2 - rgb.2)
        }
        return (0..<limit).min { distance($0) < distance($1) }
    }
}

/// How one role looks.
public struct Style: Sendable, Equatable {
    public var fg: Color = .terminalDefault
    public var bg: Color = .terminalDefault
    public var bold = false
    public var reverse = false
    public var underline = false
    public var dim = false
    public init() {}
}

/// A problem in a theme file, with its line.
public struct ThemeIssue: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}

/// A palette plus semantic roles (as btop and k9s themes are); roles a theme leaves out fall back to the default theme's.
public struct Theme: Sendable, Equatable {
    public var name: String
    public var palette: [String: Color] = [:]
    public var roles: [Role: Style] = [:]
    public var issues: [ThemeIssue] = []

    /// How `role` looks, falling back to `normal` when the theme leaves it out.
    public func style(_ role: Role) -> Style { roles[role] ?? roles[.normal] ?? Style() }

    /// Parses a `.theme` file: `name = …`, a `[palette]` of `name = colour`, and `[roles]` of `role = FG [on BG] [bold] [reverse] [underline] [dim]`.
    /// Unknown keys and bad values are reported with their line; missing roles come from `fallback`.
    public static func parse(_ text: String, file: String, fallback: Theme? = nil) -> Theme {
        var t = Theme(name: file)
        var section = ""
        var pendingRoles: [(Role, String, Int)] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let n = i + 1
            // Comments are whole lines starting with "#" (a value may be "#rrggbb").
            let line = raw[...].trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).lowercased()
                if !["palette", "roles"].contains(section) {
                    t.issues.append(ThemeIssue(file: file, line: n, message: "unknown section [\(section)]"))
                }
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                t.issues.append(ThemeIssue(file: file, line: n, message: "expected key = value, got \"\(line)\""))
                continue
            }
            let key = line[..<eq].trimmingSpaces.lowercased()
            let value = line[line.index(after: eq)...].trimmingSpaces
            switch section {
            case "":
                if key == "name" {
                    t.name = value
                } else {
                    t.issues.append(ThemeIssue(file: file, line: n, message: "unknown key \"\(key)\""))
                }
            case "palette":
                if let c = Color.parse(value) {
                    t.palette[key] = c
                } else {
                    t.issues.append(
                        ThemeIssue(file: file, line: n, message: "\"\(value)\" is not a colour (default, red, brightred, 0-255, #rrggbb)"))
                }
            case "roles":
                if let role = Role.allCases.first(where: { $0.rawValue.lowercased() == key }) {
                    pendingRoles.append((role, value, n))
                } else {
                    t.issues.append(ThemeIssue(file: file, line: n, message: "unknown role \"\(key)\""))
                }
            default: break
            }
        }
        for (role, value, n) in pendingRoles {
            switch t.style(value) {
            case .success(let s): t.roles[role] = s
            case .failure(let m): t.issues.append(ThemeIssue(file: file, line: n, message: m.text))
            }
        }
        t.issues.sort { $0.line < $1.line }
        if let fb = fallback {
            for role in Role.allCases where t.roles[role] == nil { t.roles[role] = fb.roles[role] }
        }
        return t
    }

    /// Reads a role specification against this theme's palette.
    func style(_ spec: String) -> Result<Style, ThemeIssueMessage> {
        var s = Style()
        var words = spec.split(separator: " ").map { String($0) }
        for attr in ["bold", "reverse", "underline", "dim"] where words.contains(attr) {
            words.removeAll { $0 == attr }
            switch attr {
            case "bold": s.bold = true
            case "reverse": s.reverse = true
            case "underline": s.underline = true
            default: s.dim = true
            }
        }
        func color(_ w: String) -> Color? { palette[w.lowercased()] ?? Color.parse(w) }
        var rest = words[...]
        if let first = rest.first, first != "on" {
            guard let c = color(first) else { return .failure(ThemeIssueMessage("\"\(first)\" is neither a palette name nor a colour")) }
            s.fg = c
            rest = rest.dropFirst()
        }
        if rest.first == "on" {
            rest = rest.dropFirst()
            guard let w = rest.first, let c = color(w) else { return .failure(ThemeIssueMessage("\"on\" must be followed by a colour")) }
            s.bg = c
            rest = rest.dropFirst()
        }
        if let extra = rest.first { return .failure(ThemeIssueMessage("unexpected \"\(extra)\" in a role")) }
        return .success(s)
    }
}

/// A reason a role specification is wrong.
public struct ThemeIssueMessage: Error, Sendable {
    public var text: String
    init(_ t: String) { text = t }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
