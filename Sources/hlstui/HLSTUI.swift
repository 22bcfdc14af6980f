import App
import ArgumentParser
import Foundation
import Player
import Loader
import Origin
import Session
import Terminal
import TUI

/// The hlstui command line.
@main
struct HLSTUI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hlstui",
        abstract: "A terminal dashboard for HLS: what the playlists say and what the player really does.",
        version: "hlstui \(AppInfo.version) (libmpv client API \(MPVInfo.clientAPIVersion), \(CursesInfo.version))",
        subcommands: [
            PlayCommand.self, MonitorCommand.self, InspectCommand.self, OriginCommand.self, DemoCommand.self, ProxyCommand.self,
            KeysCommand.self,
        ],
        defaultSubcommand: PlayCommand.self
    )
}

/// `hlstui inspect PATH_OR_URL [--json] [--strict]`.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Parse a playlist and report its ladder, segments, keys, gaps and every problem with its line number.",
        discussion: "Exit status: 0 no errors, 1 the playlist has errors, 2 it could not be read."
    )

    @Argument(help: "A playlist file or an http(s) URL.")
    var source: String

    @Flag(help: "Print one JSON object instead of the readable report.")
    var json = false

    @Flag(help: "Stop at the first error.")
    var strict = false

    @Option(help: "Seconds to wait for a URL before giving up.")
    var timeout: Double = 10

    @Option(name: .customLong("import"), help: "NAME=VALUE for EXT-X-DEFINE IMPORT when inspecting a media playlist alone (repeatable).")
    var imports: [String] = []

    @OptionGroup(title: "Origin and TLS (as for playback)")
    var origin: OriginFlagGroup

    func run() async throws {
        var vars: [String: String] = [:]
        for i in imports {
            guard let eq = i.firstIndex(of: "=") else { throw ValidationError("--import takes NAME=VALUE, got \(i)") }
            vars[String(i[..<eq])] = String(i[i.index(after: eq)...])
        }
        let width = Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 120
        var request = InspectRequest(source: source, json: json, strict: strict, imports: vars, width: width, timeout: timeout)
        request.upstream = try origin.options()
        if origin.insecure {
            FileHandle.standardError.write(Data("WARNING: --insecure: TLS certificates are NOT checked for \(source)\n".utf8))
        }
        let outcome = await Inspect.run(request)
        FileHandle.standardOutput.write(Data(outcome.stdout.utf8))
        FileHandle.standardError.write(Data(outcome.stderr.utf8))
        if outcome.status != 0 { throw ExitCode(outcome.status) }
    }
}

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
        let quiet = self.quiet
        let server: OriginServer
        do {
            server = try OriginRunner.start(o) { r in if !quiet { print(r.line) } }
        } catch {
            throw CLIError("hlstui origin: \(error)")
        }
        TerminalOutput.lineBuffered()
        for line in OriginRunner.banner(server, scenarios: scenarios) { print(line) }
        await OriginRunner.wait(duration: duration)
        server.stop()
    }
}

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

/// An error whose description is the whole message.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

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
        if insecure { print("WARNING: --insecure: TLS certificates are NOT checked for \(url)") }
        print("hlstui loader: \(entry)")
        print("play it: mpv '\(entry)'")
        let json = self.json
        let printer = Task {
            for await e in loader.events { print(json ? ProxyRunner.json(e, insecure: insecure) : ProxyRunner.line(e, insecure: insecure)) }
        }
        await OriginRunner.wait(duration: duration)
        loader.stop()
        printer.cancel()
    }
}

/// How hlstui talks to the origin (headers, TLS), shared by `hlstui URL`, `monitor`, `proxy` and `inspect`.
struct OriginFlagGroup: ParsableArguments {
    @Option(name: .customLong("header"), help: "Extra request header \"Name: value\" (repeatable), e.g. a token or cookie.")
    var headers: [String] = []

    @Option(name: .customLong("user-agent"), help: "User-Agent sent to the origin.")
    var userAgent = "hlstui/0.1"

    @Option(help: "PEM file of CA or server certificates to trust instead of the system's.")
    var cacert: String?

    @Option(
        name: .customLong("pin-sha256"),
        help: "Base64 SHA-256 of the server's public key (repeatable); a match alone trusts a self-signed server.")
    var pins: [String] = []

    @Option(name: .customLong("client-cert"), help: "PKCS#12 file with a client certificate for mutual TLS.")
    var clientCert: String?

    @Option(name: .customLong("client-cert-password"), help: "Password of --client-cert.")
    var clientCertPassword: String?

    @Flag(help: "Do not check TLS certificates at all (flagged on screen and in every report).")
    var insecure = false

    func options() throws -> UpstreamOptions {
        var o = UpstreamOptions()
        o.userAgent = userAgent
        o.headers = try LoaderFlags.headers(headers)
        o.tls.caFile = cacert
        o.tls.pins = pins
        o.tls.clientCertificate = clientCert
        o.tls.clientCertificatePassword = clientCertPassword
        o.tls.insecure = insecure
        return o
    }
}

/// The Loader's command-line options: the origin's plus keys, shared by `hlstui URL`, `monitor` and `proxy`.
struct LoaderFlagGroup: ParsableArguments {
    @OptionGroup var origin: OriginFlagGroup

    @Option(name: .customLong("key"), help: "URI=HEX: use this key instead of fetching URI (repeatable).")
    var keys: [String] = []

    @Option(name: .customLong("key-command"), help: "Command run with the key URI as its argument; it prints the key (binary or hex).")
    var keyCommand: String?

    @Flag(name: .customLong("no-decrypt"), help: "Let FFmpeg decrypt AES-128 with keys the Loader serves, instead of the Loader.")
    var noDecrypt = false

    @Option(
        name: .customLong("key-spread"),
        help: "Seconds within which a rotated live key is fetched at a random moment before it is due (0: at once).")
    var keySpread: Double = 4

    var insecure: Bool { origin.insecure }

    func options() throws -> LoaderOptions {
        var o = LoaderOptions()
        o.upstream = try origin.options()
        o.keyOverrides = try LoaderFlags.keys(keys)
        o.keyCommand = keyCommand
        o.decryptAES = !noDecrypt
        o.keySpread = max(0, keySpread)
        return o
    }
}

/// The player's and the dashboard's options.
struct PlayerFlagGroup: ParsableArguments {
    @Option(help: "Video output: auto (a window when a display exists), window, none.")
    var video: PlayerOptions.Video = .auto

    @Option(
        name: .customLong("ao"),
        help: "mpv audio output (default: the machine's sound server or card, else null, said once; monitor: null).")
    var audioOutput: String?

    @Flag(help: "No sound: no audio device is opened.")
    var mute = false

    @Option(help: "Seconds the player buffers ahead.")
    var readahead: Double = 10

    @Option(name: .customLong("max-resolution"), help: "Resolution cap: the highest rung height allowed, e.g. 720.")
    var maxResolution: Int?

    @Option(name: .customLong("max-bitrate"), help: "Bitrate cap, e.g. 2M or 800k.")
    var maxBitrate: String?

    @Option(help: "Pin this rung (index in the ladder) instead of choosing automatically.")
    var pin: Int?

    @Option(
        name: .customLong("switch"),
        help: "How switches you ask for (keys, commands, caps) take effect: immediate (now) or smooth (after what is buffered, no stall).")
    var switchMode: SwitchMode = .immediate

    @Option(name: .customLong("abr-switch"), help: "How automatic (ABR) switches take effect: smooth or immediate.")
    var abrSwitch: SwitchMode = .smooth

    @Flag(name: .customLong("no-sync"), help: "With two URLs: do not align them on EXT-X-PROGRAM-DATE-TIME.")
    var noSync = false

    @Flag(help: "Draw with ASCII only (chosen by itself when the locale is not UTF-8 or TERM is linux, vt100, …).")
    var ascii = false

    @Option(help: "Theme name (see `hlstui keys --themes`) or a .theme file.")
    var theme: String?

    @Option(help: "Append hlstui's log (requests, keys, messages) to this file.")
    var log: String?

    func paneConfig(url: String, loader: LoaderOptions, defaultAudio: String? = nil) throws -> PaneConfig {
        var c = PaneConfig(url: url)
        c.loader = loader
        c.player.video = video
        c.player.audioOutput = audioOutput ?? defaultAudio
        c.player.mute = mute
        c.player.readahead = readahead
        c.caps.maxHeight = maxResolution
        if let b = maxBitrate {
            guard let v = Action.parseRate(b) else { throw ValidationError("--max-bitrate takes e.g. 2M, 800k or 1500000, got \(b)") }
            c.caps.maxBitrate = v
        }
        if let p = pin { c.mode = .pinned(p) }
        c.manualSwitch = switchMode
        c.autoSwitch = abrSwitch
        return c
    }
}

extension PlayerOptions.Video: ExpressibleByArgument {}
extension SwitchMode: ExpressibleByArgument {}

/// `hlstui URL [URL2]`: the dashboard.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play one or two streams through hlstui's Loader and show the dashboard (the default command: `hlstui URL`).",
        discussion: "Keys: `hlstui keys`. The terminal is restored on q, Ctrl-C, SIGTERM and crashes."
    )

    @Argument(help: "Multivariant or media playlist URLs (one pane each, at most two).")
    var urls: [String]

    @OptionGroup(title: "Player and dashboard")
    var player: PlayerFlagGroup

    @OptionGroup(title: "Origin, TLS and keys")
    var loaderFlags: LoaderFlagGroup

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give a playlist URL (or run `hlstui demo`)") }
        if urls.count > 2 { throw ValidationError("at most two panes") }
    }

    func run() async throws {
        let loader = try loaderFlags.options()
        let panes = try urls.map { try player.paneConfig(url: $0, loader: loader) }
        var request = DashboardRequest(panes: panes, theme: player.theme, logFile: player.log)
        request.sync = !player.noSync
        request.ascii = player.ascii
        let status = await DashboardRunner.run(request)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `hlstui monitor URL [URL…]`: the session as JSON Lines.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract:
            "Run the same session without a screen and write it as JSON Lines: ladder, request, key, variant, player (4 Hz), gap, stall, error, end.",
        discussion: "Exit status: 0 when every stream played, 1 when playback failed, 2 when it could not start."
    )

    @Argument(help: "Multivariant or media playlist URLs (one pane each).")
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

    @OptionGroup(title: "Player")
    var player: PlayerFlagGroup

    @OptionGroup(title: "Origin, TLS and keys")
    var loaderFlags: LoaderFlagGroup

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one playlist URL") }
    }

    func run() async throws {
        let loader = try loaderFlags.options()
        let panes = try urls.map { try player.paneConfig(url: $0, loader: loader, defaultAudio: "null") }
        var request = MonitorRequest(panes: panes, duration: duration)
        request.rate = rate
        request.verbose = verbose
        request.sync = !player.noSync
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
        TerminalOutput.lineBuffered()
        let status = await MonitorRunner.run(request) { line in print(line) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `hlstui keys`: the key list (the README's is generated from the same table), or the themes.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Print the dashboard's keys (or, with --themes, the themes found).")

    @Flag(help: "As the Markdown table in the README.")
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
