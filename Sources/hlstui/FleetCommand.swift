import App
import ArgumentParser
import CMalloc
import Fleet
import Foundation
import Terminal
import Session
import Loader

/// `hlstui fleet FILE`: many headless sessions in one process, one Prometheus endpoint.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Watch many streams at once, headless: one session per stream of a YAML file, their playback as Prometheus metrics.",
        discussion: """
            FILE lists the streams (docs/METRICS.md):
              metrics: 127.0.0.1:9464
              streams:
                - name: news            # the stream label: letters, digits, _ . -
                  url: https://example.com/news/master.m3u8
                  video: false          # delivery only: no video decoding
                  maxResolution: 720
                - name: cams            # up to four URLs, kept in sync
                  urls: [https://a.example/cam.m3u8, https://b.example/cam.m3u8]
                  latency: 10           # as --latency: on the wall clock less 10 s (seconds or auto)
            --shard K/N plays only this process's share: N processes given the same file (K from 0 to N-1) play every stream once, without talking (docs/FLEET.md).
            A session that ends or fails is started again after 1 s, doubling to a minute (hlstui_session_restarts_total).
            Runs until SIGINT or SIGTERM; one line on stderr per start problem and restart.
            """
    )

    @Argument(help: "The fleet file (YAML).")
    var file: String

    @Option(help: "Serve /metrics on HOST:PORT (overrides the file's metrics:; default 127.0.0.1:9464).")
    var metrics: String?

    @Option(
        help: ArgumentHelp(
            "Play only shard K of N (counted from 0): the streams whose names hash to it. K may be a StatefulSet pod's name (hlstui-fleet-2/3).",
            valueName: "K/N"))
    var shard: String?

    @Flag(help: "Print the names of the streams this process would play (its shard's share), one a line, and exit.")
    var list = false

    @Option(help: "Append what the player's libraries write (FFmpeg, ALSA) to this file; else it is dropped: stderr is hlstui's alone.")
    var log: String?

    @Option(help: "Stop after this many seconds (default: until SIGINT or SIGTERM).")
    var duration: Double?

    @OptionGroup(title: "Origin, TLS and keys (for every stream)")
    var loaderFlags: LoaderFlagGroup

    func run() async throws {
        // Player and Loader threads come and go with every session: two malloc arenas keep the process's memory where it
        // was after its first sessions (DECISIONS.md, "Two malloc arenas").
        _ = hl_malloc_arenas(2)
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError("hlstui fleet: cannot read \(file)") }
        var config: FleetConfig
        do { config = try FleetConfig.parse(text) } catch { throw CLIError("hlstui fleet: \(error)") }
        let all = config.streams.count
        var sharded: FleetShard?
        if let shard {
            do { sharded = try FleetShard.parse(shard) } catch { throw CLIError("hlstui fleet: \(error)") }
        }
        if let sharded { config = sharded.share(of: config) }
        if list {
            for stream in config.streams { print(stream.name) }
            return
        }
        let loader = try loaderFlags.options()
        // --insecure for all: every stream says so at each start, as one with `insecure: true` does.
        if loader.upstream.tls.insecure { for i in config.streams.indices { config.streams[i].insecure = true } }
        let registry = PlaybackMetrics(shard: sharded.map { String($0.index) })
        registry.fleet(shards: sharded?.count ?? 1, streams: config.streams.count)
        let server: MetricsServer
        do { server = try MetricsServer(address: metrics ?? config.metrics ?? "127.0.0.1:9464", metrics: registry) } catch {
            throw CLIError("hlstui fleet: \(error)")
        }
        defer { server.close() }
        // Only hlstui's own lines on stderr: the libraries' go to --log (docs/MESSAGES.md).
        let capture = StderrCapture.start(log: log)
        defer { capture?.stop() }
        let say: @Sendable (String) -> Void = { line in StderrCapture.say("hlstui fleet: \(line)") }
        let share = sharded.map { "shard \($0): \(config.streams.count) of \(all)" } ?? "\(all)"
        say("\(share) stream(s); metrics on http://\(server.host):\(server.port)/metrics")
        let fleet = Task {
            await FleetRunner.run(
                config, metrics: registry,
                pane: { stream, url in
                    var c = PaneConfig(url: url)
                    c.loader = loader
                    c.loader.upstream.tls.insecure = stream.insecure
                    c.player.video = .none
                    c.player.decodeVideo = stream.video
                    c.player.audioOutput = "null"
                    c.session.caps.maxHeight = stream.maxResolution
                    return c
                }, say: say)
        }
        await OriginRunner.wait(duration: duration)
        fleet.cancel()
        await fleet.value
    }
}
