import App
import ArgumentParser
import Foundation
import Player
import Loader
import Origin
import Session
import Terminal
import TUI

/// `hlstui keys`: the key list (docs/DASHBOARD.md's is generated from the same table), or the themes.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Print the dashboard's keys (or, with --themes, the themes found).")

    @Flag(help: "As the Markdown table in docs/DASHBOARD.md.")
    var markdown = false

    @Flag(help: "List the themes hlstui finds and where it looks.")
    var themes = false

    func run() throws {
        if themes {
            for n in ThemeLibrary.names() {
                let t = ThemeLibrary.load(n)
                Swift.print(n + ((t?.issues.isEmpty ?? true) ? "" : "  (\(t!.issues.map(\.description).joined(separator: "; ")))"))
            }
            Swift.print("searched: " + ThemeLibrary.directories.joined(separator: ", "))
            return
        }
        Swift.print(markdown ? Keymap.markdown : Keymap.helpLines.joined(separator: "\n"))
    }
}
