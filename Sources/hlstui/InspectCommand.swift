import App
import ArgumentParser
import Foundation
import Player
import Loader
import Origin
import Session
import Terminal
import TUI

/// `hlstui inspect PATH_OR_URL [--json] [--strict]`.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Parse a playlist and report its ladder, segments, keys, gaps and every problem with its line number.",
        discussion: "Exit status: 0 no errors, 1 the playlist has errors (with --media: a must-fix finding), 2 it could not be read."
    )

    @Argument(help: "A playlist file or an http(s) URL.")
    var source: String

    @Flag(help: "Print one JSON object instead of the readable report.")
    var json = false

    @Flag(help: "Stop at the first error.")
    var strict = false

    @Flag(
        help:
            "Read the media and measure it against the playlists: peak and average bit rate against BANDWIDTH and AVERAGE-BANDWIDTH, the video codec against CODECS (docs/VALIDATION.md)."
    )
    var media = false

    @Option(help: "With --media: measure this many segments per variant, spread over it (default: all).")
    var sample: Int?

    @Option(
        help: ArgumentHelp(
            "With --media: also write one self-contained HTML report there (findings, each variant's figures, a plot of its segments' bit rates against what it declares).",
            valueName: "file"))
    var html: String?

    @Option(
        help: ArgumentHelp(
            "With --media on a live stream: go on reading its playlists this many seconds, as often as RFC 8216bis §6.3.4 lets a client, each reload held to the reload rules and the other variants, each new segment measured.",
            valueName: "seconds"))
    var duration: Double?

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
        request.media = media
        request.mediaSample = sample
        if sample != nil && !media { throw ValidationError("--sample goes with --media") }
        if html != nil && !media { throw ValidationError("--html goes with --media") }
        request.mediaHTML = html
        if let d = duration {
            guard media else { throw ValidationError("--duration goes with --media") }
            guard d > 0 else { throw ValidationError("--duration takes a number of seconds above 0, got \(d)") }
            request.mediaDuration = d
            request.progressOnTerminal = isatty(2) == 1 && ProcessInfo.processInfo.environment["TERM"].map { $0 != "dumb" } ?? false
        }
        if origin.insecure {
            FileHandle.standardError.write(Data("WARNING: --insecure: TLS certificates are NOT checked for \(source)\n".utf8))
        }
        let outcome = await Inspect.run(request)
        FileHandle.standardOutput.write(Data(outcome.stdout.utf8))
        FileHandle.standardError.write(Data(outcome.stderr.utf8))
        if outcome.status != 0 { throw ExitCode(outcome.status) }
    }
}
