import Foundation
import TUI

/// Finds `.theme` files where an installed or checked-out hlstui keeps them, with the default built in.
public enum ThemeLibrary {
    /// The directories searched, first match wins: $HLSTUI_THEMES, the user's data dir, next to the binary (installed and checkout), system dirs.
    public static var directories: [String] {
        let env = ProcessInfo.processInfo.environment
        var dirs: [String] = []
        if let d = env["HLSTUI_THEMES"] { dirs.append(d) }
        let data = env["XDG_DATA_HOME"] ?? (env["HOME"].map { "\($0)/.local/share" } ?? "")
        if !data.isEmpty { dirs.append("\(data)/hlstui/themes") }
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        dirs.append(exe.appendingPathComponent("../share/hlstui/themes").standardized.path)
        // A checkout: .build/<config>/hlstui → themes/ at the package root.
        dirs.append(exe.appendingPathComponent("../../themes").standardized.path)
        dirs.append(exe.appendingPathComponent("../../../themes").standardized.path)
        dirs += ["/usr/local/share/hlstui/themes", "/usr/share/hlstui/themes"]
        return dirs
    }

    /// The built-in default theme (the same text as themes/default.theme; a test keeps them equal).
    public static let builtinDefault = """
        # hlstui default theme: the terminal's own background, ANSI colours, works on 8-colour terminals.
        name = default

        [palette]
        fg = default
        bg = default
        accent = cyan
        good = green
        warn = yellow
        bad = red
        blue = blue
        grey = brightblack
        magenta = magenta

        [roles]
        normal = fg
        dim = grey
        title = accent bold
        border = grey
        accent = accent
        good = good
        warn = warn bold
        bad = bad bold
        status = black on accent
        statusError = white on bad bold
        insecure = white on bad bold
        cursor = reverse
        playing = good bold
        pinned = accent bold
        excluded = grey
        segment = grey
        buffered = blue
        playhead = warn bold
        gap = magenta bold
        discontinuity = warn
        keyPrefetch = good
        keyOnDemand = warn
        keyFailed = bad bold
        help = black on white

        """

    /// The default theme, parsed.
    public static var defaultTheme: Theme { Theme.parse(builtinDefault, file: "default.theme") }

    /// Every theme name available, default first.
    public static func names() -> [String] {
        var names = ["default"]
        for d in directories {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: d) else { continue }
            for f in files.sorted() where f.hasSuffix(".theme") {
                let n = String(f.dropLast(6))
                if !names.contains(n) { names.append(n) }
            }
        }
        return names
    }

    /// Loads a theme by name (or path); missing roles fall back to the default theme; nil when no such theme exists.
    public static func load(_ name: String) -> Theme? {
        let candidates = name.contains("/") ? [name] : directories.map { "\($0)/\(name).theme" }
        for path in candidates {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                return Theme.parse(text, file: path, fallback: defaultTheme)
            }
        }
        return name == "default" ? defaultTheme : nil
    }
}
