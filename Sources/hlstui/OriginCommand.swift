import App
import ArgumentParser
import Foundation
import Player
import Loader
import Origin
import Session
import Terminal
import TUI

/// `hlstui origin [--port N] [--tls] [--scenario NAME]...`.
struct OriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "origin",
        abstract: "Serve the embedded HLS origin on 127.0.0.1: generated media, every scenario, faults on demand, a request log.",
        discussion: "Scenarios: " + Scenario.all.map(\.name).joined(separator: ", ")
            + ". Faults: GET /control/fault?kind=… (see / on the origin)."
    )

    @Option(help: "HTTP port (0 picks a free one).")
    var port: Int = 0

    @Flag(help: "Also serve HTTPS with a self-signed certificate the origin makes (its fingerprint and pin are printed).")
    var tls = false

    @Option(name: .customLong("tls-port"), help: "HTTPS port (0 picks a free one).")
    var tlsPort: Int = 0

    @Option(name: .customLong("scenario"), help: "List only these scenarios (repeatable); all are served regardless.")
    var scenarios: [String] = []

    @Option(name: .customLong("key-latency"), help: "Milliseconds every key request waits before its answer.")
    var keyLatency: Int = 0

    @Option(help: "Media cache directory (default: $HLSTUI_CACHE, $XDG_CACHE_HOME/hlstui or ~/.cache/hlstui).")
    var cache: String?

    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var duration: Double?

    @Flag(help: "Do not print the request log.")
    var quiet = false

    @OptionGroup(title: "Players that send CMCD")
    var playersFlags: PlayersFlagGroup

    func validate() throws {
        for s in scenarios where Scenario.named(s) == nil {
            throw ValidationError("no scenario \(s); choose from " + Scenario.all.map(\.name).joined(separator: ", "))
        }
    }

    func run() async throws {
        var o = OriginOptions()
        o.port = port
        o.tls = tls
        o.tlsPort = tlsPort
        o.keyLatencyMs = keyLatency
        o.cache = cache
        let quiet = self.quiet || playersFlags.players
        let server: OriginServer
        do {
            server = try OriginRunner.start(o) { r in if !quiet { print(r.line) } }
        } catch {
            throw CLIError("hlstui origin: \(error)")
        }
        if playersFlags.players {
            // The screen is the players'; the request log is not printed (it would scribble on it).
            let state = server.router.state
            let status = await PlayersScreen.run(
                entry: server.httpBase + "/  (scenarios: see /)", players: { state.cmcdPlayerList },
                now: { Date().timeIntervalSince1970 }, duration: duration, ascii: playersFlags.ascii, title: "hlstui origin")
            server.stop()
            if status != 0 { throw ExitCode(status) }
            return
        }
        TerminalOutput.lineBuffered()
        for line in OriginRunner.banner(server, scenarios: scenarios) { print(line) }
        await OriginRunner.wait(duration: duration)
        server.stop()
    }
}
