import App
import ArgumentParser
import Foundation
import Player
import Loader
import Origin
import Terminal

/// The hlstui command line.
@main
struct HLSTUI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hlstui",
        abstract: "A terminal dashboard for HLS: what the playlists say and what the player really does.",
        version: "hlstui \(AppInfo.version) (libmpv client API \(MPVInfo.clientAPIVersion), \(CursesInfo.version))",
        subcommands: [InspectCommand.self, OriginCommand.self, DemoCommand.self, ProxyCommand.self]
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

    func run() async throws {
        var vars: [String: String] = [:]
        for i in imports {
            guard let eq = i.firstIndex(of: "=") else { throw ValidationError("--import takes NAME=VALUE, got \(i)") }
            vars[String(i[..<eq])] = String(i[i.index(after: eq)...])
        }
        let width = Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 120
        let outcome = await Inspect.run(InspectRequest(source: source, json: json, strict: strict, imports: vars, width: width, timeout: timeout))
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
        discussion: "Scenarios: " + Scenario.all.map(\.name).joined(separator: ", ") + ". Faults: GET /control/fault?kind=… (see / on the origin)."
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
        abstract: "Start the embedded origin and show its demo stream (live ladder with PDT, key rotation and a GAP window).",
        discussion: "Until the player lands, the demo serves the streams, prints what hlstui reads in them, and prints each request."
    )

    @Flag(help: "Show the two live cameras for synchronized playback instead.")
    var sync = false

    @Option(help: "Media cache directory.")
    var cache: String?

    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var duration: Double?

    func run() async throws {
        var o = OriginOptions()
        o.cache = cache
        let server: OriginServer
        do {
            server = try OriginRunner.start(o) { r in print(r.line) }
        } catch {
            throw CLIError("hlstui demo: \(error)")
        }
        TerminalOutput.lineBuffered()
        let urls = sync ? ["\(server.httpBase)/cam-a/cam-a/index.m3u8", "\(server.httpBase)/cam-b/cam-b/index.m3u8"]
                        : ["\(server.httpBase)/demo/master.m3u8", "\(server.httpBase)/demo/v360/index.m3u8"]
        print("hlstui demo: origin on \(server.httpBase) (Ctrl-C to stop)")
        for u in urls {
            let outcome = await Inspect.run(InspectRequest(source: u, width: 120))
            print(outcome.stdout, terminator: "")
            print(outcome.stderr, terminator: "")
        }
        print("play it: mpv \(sync ? urls[0] + "  and  mpv " + urls[1] : urls[0])")
        print("requests:")
        await OriginRunner.wait(duration: duration)
        server.stop()
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
        abstract: "Run hlstui's Loader for any player: prints a loopback URL that serves the stream through hlstui, then every request and key.",
        discussion: "The Loader resolves EXT-X-DEFINE, never requests EXT-X-GAP segments, decrypts AES-128 (checked), prefetches keys and times every byte."
    )

    @Argument(help: "The multivariant or media playlist URL.")
    var url: String

    @Option(name: .customLong("variant"), help: "Offer only these variants (indexes, repeatable); default all.")
    var variants: [Int] = []

    @Option(name: .customLong("header"), help: "Extra request header \"Name: value\" (repeatable), e.g. a token or cookie.")
    var headers: [String] = []

    @Option(name: .customLong("user-agent"), help: "User-Agent sent to the origin.")
    var userAgent = "hlstui/0.1"

    @Option(help: "PEM file of CA or server certificates to trust instead of the system's.")
    var cacert: String?

    @Option(name: .customLong("pin-sha256"), help: "Base64 SHA-256 of the server's public key (repeatable); a match alone trusts a self-signed server.")
    var pins: [String] = []

    @Option(name: .customLong("client-cert"), help: "PKCS#12 file with a client certificate for mutual TLS.")
    var clientCert: String?

    @Option(name: .customLong("client-cert-password"), help: "Password of --client-cert.")
    var clientCertPassword: String?

    @Flag(help: "Do not check TLS certificates at all (flagged on every line).")
    var insecure = false

    @Option(name: .customLong("key"), help: "URI=HEX: use this key instead of fetching URI (repeatable).")
    var keys: [String] = []

    @Option(name: .customLong("key-command"), help: "Command run with the key URI as its argument; it prints the key (binary or hex).")
    var keyCommand: String?

    @Flag(name: .customLong("no-decrypt"), help: "Let FFmpeg decrypt AES-128 with keys the Loader serves, instead of the Loader.")
    var noDecrypt = false

    @Flag(help: "Print events as JSON Lines.")
    var json = false

    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var duration: Double?

    func run() async throws {
        var o = LoaderOptions()
        o.upstream.userAgent = userAgent
        o.upstream.headers = try LoaderFlags.headers(headers)
        o.upstream.tls.caFile = cacert
        o.upstream.tls.pins = pins
        o.upstream.tls.clientCertificate = clientCert
        o.upstream.tls.clientCertificatePassword = clientCertPassword
        o.upstream.tls.insecure = insecure
        o.keyOverrides = try LoaderFlags.keys(keys)
        o.keyCommand = keyCommand
        o.decryptAES = !noDecrypt
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
        let json = self.json, insecure = self.insecure
        let printer = Task {
            for await e in loader.events { print(json ? ProxyRunner.json(e, insecure: insecure) : ProxyRunner.line(e, insecure: insecure)) }
        }
        await OriginRunner.wait(duration: duration)
        loader.stop()
        printer.cancel()
    }
}
