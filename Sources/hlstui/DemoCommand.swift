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

/// `hlstui demo [--sync]`.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Start the embedded origin and play its demo stream in the dashboard (live ladder with PDT, key rotation and a GAP window).",
        discussion:
            "No network and no stream of your own needed. --print serves and prints what hlstui reads instead of opening the dashboard."
    )

    @Flag(help: "Show the two live cameras in two panes instead.")
    var sync = false

    @Flag(help: "Do not open the dashboard: print what hlstui reads in the demo stream and every request.")
    var print = false

    @Option(help: "Media cache directory.")
    var cache: String?

    @Option(help: "Stop after this many seconds (with --print; default: until Ctrl-C).")
    var duration: Double?

    @OptionGroup(title: "Player")
    var player: PlayerFlagGroup

    func run() async throws {
        // Player and Loader threads come and go with every session: two malloc arenas keep the process's memory where it
        // was after its first sessions (DECISIONS.md, "Two malloc arenas").
        _ = hl_malloc_arenas(2)
        var o = OriginOptions()
        o.cache = cache
        let server: OriginServer
        let printing = self.print
        do {
            server = try OriginRunner.start(o) { r in if printing { Swift.print(r.line) } }
        } catch {
            throw CLIError("hlstui demo: \(error)")
        }
        defer { server.stop() }
        let urls =
            sync
            ? ["\(server.httpBase)/cam-a/cam-a/index.m3u8", "\(server.httpBase)/cam-b/cam-b/index.m3u8"]
            : ["\(server.httpBase)/demo/master.m3u8"]
        guard printing else {
            let panes = try urls.map { try player.paneConfig(url: $0, loader: LoaderOptions()) }
            var request = DashboardRequest(panes: panes, theme: player.theme, logFile: player.log)
            request.sync = !player.noSync
            request.ascii = player.ascii
            let status = await DashboardRunner.run(request)
            if status != 0 { throw ExitCode(status) }
            return
        }
        TerminalOutput.lineBuffered()
        Swift.print("hlstui demo: origin on \(server.httpBase) (Ctrl-C to stop)")
        for u in urls + (sync ? [] : ["\(server.httpBase)/demo/v360/index.m3u8"]) {
            let outcome = await Inspect.run(InspectRequest(source: u, width: 120))
            Swift.print(outcome.stdout, terminator: "")
            Swift.print(outcome.stderr, terminator: "")
        }
        Swift.print("play it: hlstui \(urls.joined(separator: " "))")
        Swift.print("requests:")
        await OriginRunner.wait(duration: duration)
    }
}
