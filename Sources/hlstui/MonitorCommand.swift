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

/// `hlstui monitor URL [URL…]`: the session as JSON Lines.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract:
            "Run the same session without a screen and write it as JSON Lines: ladder, request, key, variant, player (4 Hz), gap, stall, error, end.",
        discussion: "Exit status: 0 when every stream played, 1 when playback failed, 2 when it could not start."
    )

    @Argument(help: "Multivariant or media playlist URLs, or folders made by `hlstui download` (one pane each).")
    var urls: [String]

    @Option(help: "Stop after this many seconds (default: when every stream has ended).")
    var duration: Double?

    @Option(
        help:
            "File of timed actions, one per line (\"3.0 cap 360\", \"5 pin 1\", \"8 auto\", \"10 seek 20\", \"12 switch smooth\"); - reads stdin."
    )
    var commands: String?

    @Option(help: "player samples per second.")
    var rate: Double = 4

    @Flag(help: "Also write info-level log lines (reloads, GAP crossings, why each switch happened).")
    var verbose = false

    @Option(help: "Also serve the session as Prometheus metrics on HOST:PORT /metrics while it runs (docs/METRICS.md).")
    var metrics: String?

    @Option(name: .customLong("metrics-name"), help: "With --metrics: the stream label of this session.")
    var metricsName = "monitor"

    @OptionGroup(title: "Recording")
    var recordFlags: RecordFlagGroup

    @OptionGroup(title: "Player")
    var player: PlayerFlagGroup

    @OptionGroup(title: "Origin, TLS and keys")
    var loaderFlags: LoaderFlagGroup

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one playlist URL") }
        if urls.count > 4 { throw ValidationError("at most four panes") }
        if let c = commands, let m = ArgumentMistake.file(c, option: "--commands") { throw ValidationError(m) }
    }

    func run() async throws {
        // Player and Loader threads come and go with every session: two malloc arenas keep the process's memory where it
        // was after its first sessions (DECISIONS.md, "Two malloc arenas").
        _ = hl_malloc_arenas(2)
        // Only hlstui's own lines on stderr: the libraries' go to --log (docs/MESSAGES.md).
        let capture = StderrCapture.start(log: player.log)
        defer { capture?.stop() }
        let loader = try loaderFlags.options()
        var offline = OfflineSources()
        defer { offline.stop() }
        let panes = try urls.map {
            try offline.pane($0, loader: loader) { try player.paneConfig(url: $0, loader: $1, defaultAudio: "null") }
        }
        var request = MonitorRequest(panes: panes, duration: duration)
        request.notes = offline.notes
        request.rate = rate
        request.verbose = verbose
        request.sync = !player.noSync
        request.latency = try player.latencyTarget()
        request.record = recordFlags.recording(player: player)
        if let c = commands {
            let text: String
            if c == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let t = try? String(contentsOfFile: c, encoding: .utf8) else {
                    throw CLIError("hlstui monitor: cannot read --commands \(c)")
                }
                text = t
            }
            do { request.commands = try parseCommandScript(text) } catch { throw CLIError("hlstui monitor: \(error.description)") }
        }
        var server: MetricsServer?
        if let address = metrics {
            let registry = PlaybackMetrics()
            do { server = try MetricsServer(address: address, metrics: registry) } catch { throw CLIError("hlstui monitor: \(error)") }
            request.observer = registry.stream(metricsName)
        }
        defer { server?.close() }
        TerminalOutput.lineBuffered()
        let status = await MonitorRunner.run(request) { line in print(line) }
        if status != 0 { throw ExitCode(status) }
    }
}
