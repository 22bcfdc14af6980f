import App
import ArgumentParser
import Foundation
import Loader
import Offline
import Terminal

/// `hlstui download URL --out DIR`: a rendition set into a folder that plays without the origin.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Store a stream for playing offline: one video variant, its audio and subtitle renditions, their keys (sealed).",
        discussion: """
            The folder holds rewritten playlists (`hlstui inspect --strict DIR/index.m3u8` passes), the media as the origin sent it, \
            a manifest (hlstui-download.json) saying what was chosen and why, and each key sealed under the vault key in \
            $XDG_DATA_HOME/hlstui/vault.key, which never goes in the folder. Play it with `hlstui DIR` or `hlstui monitor DIR`. \
            Running the same command again continues a download that was cut: a segment cut mid-body resumes with Range. \
            A live or EVENT stream is captured from three target durations behind its live edge for --duration seconds of media, \
            or until ENDLIST. Renditions protected by FairPlay, Widevine or PlayReady are named and left out.
            Exit status: 0 when complete, 1 when it stopped (what was stored is kept).
            """
    )

    @Argument(help: "A multivariant or media playlist URL.")
    var url: String

    @Option(help: "The folder to store into (created; a cut download in it is continued).")
    var out: String

    @Option(name: .customLong("max-resolution"), help: "Tallest video kept: 720, 720p or 1280x720.")
    var maxResolution: String?

    @Option(name: .customLong("max-bitrate"), help: "Highest AVERAGE-BANDWIDTH (else BANDWIDTH) kept: 3M, 800k.")
    var maxBitrate: String?

    @Option(
        help:
            "Ordered qualifiers (repeatable; the first that matches a variant wins): conditions joined by commas, avg<=3M, bw<=5M, height<=720, fps<=30, codec=hvc1|avc1, range=PQ|SDR; a | list is a preference order."
    )
    var variant: [String] = []

    @Option(help: "Audio renditions: default, all, or languages en,fr.")
    var audio = "default"

    @Option(help: "Subtitle renditions: all, none, or languages en,fr.")
    var subs = "all"

    @Option(help: "Segment fetches at once.")
    var parallel = 4

    @Option(help: "Live and EVENT streams: seconds of media to capture (default: until ENDLIST).")
    var duration: Double?

    @Option(name: .customLong("storage-duration"), help: "Keys expire this long after the download: 30d, 48h, 90m, 45s.")
    var storageDuration: String?

    @Option(name: .customLong("playback-duration"), help: "Keys expire this long after the download's first play: 48h.")
    var playbackDuration: String?

    @OptionGroup(title: "Origin and TLS")
    var origin: OriginFlagGroup

    func validate() throws {
        if !(1...32).contains(parallel) { throw ValidationError("--parallel takes 1 to 32") }
        if let d = duration, !(d > 0 && d.isFinite) { throw ValidationError("--duration takes seconds above 0") }
        if let h = maxResolution, parseHeight(h) == nil {
            throw ValidationError("--max-resolution takes e.g. 720, 720p or 1280x720, got \(h)")
        }
        if let b = maxBitrate, parseRate(b) == nil { throw ValidationError("--max-bitrate takes e.g. 2M, 800k or 1500000, got \(b)") }
        for (flag, v) in [("--storage-duration", storageDuration), ("--playback-duration", playbackDuration)] {
            if let v, parseDuration(v) == nil { throw ValidationError("\(flag) takes e.g. 30d, 48h, 90m or 45s, got \(v)") }
        }
    }

    func run() async throws {
        var r = DownloadRequest(url: url, out: out)
        r.upstream = try origin.options()
        r.selection.maxHeight = maxResolution.flatMap(parseHeight)
        r.selection.maxBitrate = maxBitrate.flatMap(parseRate)
        for q in variant {
            switch VariantQualifier.parse(q) {
            case .success(let v): r.selection.qualifiers.append(v)
            case .failure(let e): throw ValidationError(e.description)
            }
        }
        r.selection.audio = AudioChoice.parse(audio)
        r.selection.subtitles = SubtitleChoice.parse(subs)
        r.parallel = parallel
        r.duration = duration
        r.storageDuration = storageDuration.flatMap(parseDuration)
        r.playbackDuration = playbackDuration.flatMap(parseDuration)
        r.interactive = isatty(1) == 1 && ProcessInfo.processInfo.environment["TERM"].map { $0 != "dumb" } ?? false
        if origin.insecure { print("hlstui download: --insecure: TLS certificates are not checked") }
        TerminalOutput.lineBuffered()
        let status = await DownloadRunner.run(r) { line in print(line) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `hlstui offline ls|renew|rm`: the downloads on this machine.
struct OfflineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline",
        abstract: "List, renew or remove downloads made with `hlstui download`.",
        subcommands: [List.self, Renew.self, Remove.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "Each download: its size, renditions and both key countdowns.")

        @Argument(help: "Download folders (default: every download this user made).")
        var dirs: [String] = []

        func run() throws {
            let folders = dirs.isEmpty ? OfflineRegistry().folders : dirs
            if folders.isEmpty { print("no downloads (hlstui download URL --out DIR makes one)") }
            for line in OfflineLibrary.list(folders, now: Date().timeIntervalSince1970) { print(line) }
        }
    }

    struct Renew: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "renew", abstract: "Fetch a download's keys again from the origin: new expiry, no media fetched.")

        @Argument(help: "The download folder.")
        var dir: String

        @Option(name: .customLong("storage-duration"), help: "New storage duration (default: the one the download was made with).")
        var storageDuration: String?

        @Option(name: .customLong("playback-duration"), help: "New playback duration (default: the one the download was made with).")
        var playbackDuration: String?

        @OptionGroup(title: "Origin and TLS")
        var origin: OriginFlagGroup

        func run() async throws {
            var r = RenewRequest(dir: dir)
            r.upstream = try origin.options()
            r.storageDuration = storageDuration.flatMap(parseDuration)
            r.playbackDuration = playbackDuration.flatMap(parseDuration)
            do {
                for line in try await OfflineLibrary.renew(r) { print(line) }
            } catch {
                throw CLIError("hlstui offline renew: \(error.description)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a download folder and forget it.")

        @Argument(help: "The download folder.")
        var dir: String

        func run() throws {
            do { print(try OfflineLibrary.remove(dir)) } catch { throw CLIError("hlstui offline rm: \(error.description)") }
        }
    }
}
