import App
import ArgumentParser
import CMalloc
import Foundation
import Player
import Loader
import Origin
import Session
import Terminal
import TUI

/// `hlstui URL [URL2]`: the dashboard.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play one or two streams through hlstui's Loader and show the dashboard (the default command: `hlstui URL`).",
        discussion: "Keys: `hlstui keys`. The terminal is restored on q, Ctrl-C, SIGTERM and crashes."
    )

    @Argument(help: "Multivariant or media playlist URLs, or folders made by `hlstui download` (one pane each, at most four).")
    var urls: [String]

    @OptionGroup(title: "Player and dashboard")
    var player: PlayerFlagGroup

    @OptionGroup(title: "Origin, TLS and keys")
    var loaderFlags: LoaderFlagGroup

    @OptionGroup(title: "Recording")
    var recordFlags: RecordFlagGroup

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give a playlist URL (or run `hlstui demo`)") }
        if urls.count > 4 { throw ValidationError("at most four panes") }
    }

    func run() async throws {
        // Player and Loader threads come and go with every session: two malloc arenas keep the process's memory where it
        // was after its first sessions (DECISIONS.md, "Two malloc arenas").
        _ = hl_malloc_arenas(2)
        let loader = try loaderFlags.options()
        var offline = OfflineSources()
        defer { offline.stop() }
        let panes = try urls.map { try offline.pane($0, loader: loader) { try player.paneConfig(url: $0, loader: $1) } }
        var request = DashboardRequest(panes: panes, theme: player.theme, logFile: player.log)
        request.notes = offline.notes
        request.sync = !player.noSync
        request.latency = try player.latencyTarget()
        request.ascii = player.ascii
        request.picture = player.picture
        request.record = recordFlags.recording(player: player)
        let status = await DashboardRunner.run(request)
        if status != 0 { throw ExitCode(status) }
    }
}
