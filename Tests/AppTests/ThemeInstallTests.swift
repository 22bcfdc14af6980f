import App
import Foundation
import TestSupport
import Testing

@Suite("Themes where an installed hlstui finds them")
struct ThemeInstallTests {
    @Test("the built-in default theme is exactly themes/default.theme")
    func builtin() throws {
        let file = try String(contentsOf: CLI.packageRoot.appendingPathComponent("themes/default.theme"), encoding: .utf8)
        #expect(ThemeLibrary.builtinDefault == file)
    }

    @Test("installed as PREFIX/bin/hlstui with PREFIX/share/hlstui/themes, far from the checkout, every theme is found")
    func installed() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-prefix-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let bin = prefix.appendingPathComponent("bin"), share = prefix.appendingPathComponent("share/hlstui/themes")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
        try await ChildProcess.copyExecutable(CLI.binary, to: bin.appendingPathComponent("hlstui"))
        try FileManager.default.copyItem(
            at: CLI.packageRoot.appendingPathComponent("themes/nord.theme"), to: share.appendingPathComponent("nord.theme"))
        try "name = broken\n[roles]\nstatus = nocolour\nwhatever = red\n".write(
            to: share.appendingPathComponent("broken.theme"), atomically: true, encoding: .utf8)
        let text = try await ChildProcess.run(
            bin.appendingPathComponent("hlstui"), ["keys", "--themes"], environment: ["HOME": prefix.path, "PATH": "/usr/bin:/bin"]
        ).stdout
        #expect(text.contains("\nnord\n") || text.hasPrefix("nord\n") || text.contains("nord\n"))
        #expect(text.contains("broken  (") && text.contains("broken.theme:3: \"nocolour\" is neither a palette name nor a colour"))
        #expect(text.contains("broken.theme:4: unknown role \"whatever\""))
        #expect(text.contains(share.path))
    }
}
