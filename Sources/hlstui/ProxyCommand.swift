import App
import ArgumentParser
import Foundation
import Player
import Loader
import LoaderEvents
import Origin
import Session
import Terminal
import TUI

/// `hlstui proxy URL`: the Loader alone, for any player.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract:
            "Run hlstui's Loader for any player: prints a loopback URL that serves the stream through hlstui, then every request and key.",
        discussion:
            "The Loader resolves EXT-X-DEFINE, never requests EXT-X-GAP segments, decrypts AES-128 (checked), prefetches keys and times every byte."
    )

    @Argument(help: "The multivariant or media playlist URL.")
    var url: String

    @Option(name: .customLong("variant"), help: "Offer only these variants (indexes, repeatable); default all.")
    var variants: [Int] = []

    @OptionGroup(title: "Origin, TLS and keys")
    var loaderFlags: LoaderFlagGroup

    @Flag(help: "Print events as JSON Lines.")
    var json = false

    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var duration: Double?

    @OptionGroup(title: "Players that send CMCD")
    var playersFlags: PlayersFlagGroup

    @Option(help: "Serve the players that send CMCD through the proxy as Prometheus metrics on HOST:PORT /metrics (docs/CMCD.md).")
    var metrics: String?

    func run() async throws {
        let o = try loaderFlags.options()
        let insecure = loaderFlags.insecure
        TerminalOutput.lineBuffered()
        let loader: LoaderServer
        do { loader = try LoaderServer.start(options: o) } catch { throw CLIError("hlstui proxy: \(error)") }
        defer { loader.stop() }
        let entry: String
        do {
            entry = try await loader.open(url, variants: variants.isEmpty ? nil : variants)
        } catch {
            throw CLIError("hlstui proxy: \(error.description)")
        }
        // Players' CMCD as metrics: brought up to date with each request that carried some.
        var server: MetricsServer?
        var playerMetrics: PlayerCMCDMetrics?
        if let address = metrics {
            let registry = PlaybackMetrics()
            do { server = try MetricsServer(address: address, metrics: registry) } catch { throw CLIError("hlstui proxy: \(error)") }
            playerMetrics = PlayerCMCDMetrics(registry)
        }
        defer { server?.close() }
        let update: @Sendable (LoaderEvent) -> Void = { [playerMetrics] e in
            if case .playerCMCD = e { playerMetrics?.update(loader.cmcdPlayerList) }
        }
        if playersFlags.players {
            // The screen is the players'; the events are not printed (they would scribble on it).
            let drain = Task { for await e in loader.events { update(e) } }
            let status = await PlayersScreen.run(
                entry: entry, players: { loader.cmcdPlayerList }, now: { loader.now }, duration: duration, ascii: playersFlags.ascii)
            loader.stop()
            drain.cancel()
            if status != 0 { throw ExitCode(status) }
            return
        }
        if insecure { print("WARNING: --insecure: TLS certificates are NOT checked for \(url)") }
        print("hlstui loader: \(entry)")
        if let server { print("metrics: http://\(server.host):\(server.port)/metrics") }
        print("play it: mpv '\(entry)'")
        let json = self.json
        let printer = Task {
            for await e in loader.events {
                update(e)
                print(json ? ProxyRunner.json(e, insecure: insecure) : ProxyRunner.line(e, insecure: insecure))
            }
        }
        await OriginRunner.wait(duration: duration)
        loader.stop()
        printer.cancel()
    }
}
