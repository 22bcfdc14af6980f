import App
import ArgumentParser
import CMCD
import Foundation
import Player
import Recording
import Loader
import Offline
import LoaderCore
import Origin
import Session
import Terminal
import TUI

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

    @Flag(
        name: .customLong("no-parts"),
        help: "LL-HLS: give the player whole segments only (latency about three segments) instead of the segment in progress part by part.")
    var noParts = false

    @Option(
        name: .customLong("key-spread"),
        help: "Seconds within which a rotated live key is fetched at a random moment before it is due (0: at once).")
    var keySpread: Double = 4

    @Option(
        name: .customLong("cmcd"),
        help: "Send CMCD (CTA-5004) with every request to the origin: header (the four CMCD-* headers) or query (a CMCD argument).")
    var cmcd: CMCDMode?

    @Option(name: .customLong("cmcd-session"), help: "CMCD session ID (sid), at most 64 characters; default: a new UUID per pane.")
    var cmcdSession: String?

    @Option(name: .customLong("cmcd-content"), help: "CMCD content ID (cid), at most 64 characters.")
    var cmcdContent: String?

    @OptionGroup(title: "Cache")
    var cache: CacheFlagGroup

    var insecure: Bool { origin.insecure }

    func validate() throws {
        for (flag, value) in [("--cmcd-session", cmcdSession), ("--cmcd-content", cmcdContent)] {
            if let v = value, v.count > 64 || v.isEmpty { throw ValidationError("\(flag): 1 to 64 characters (CTA-5004), not \(v.count)") }
        }
        if cmcd == nil, cmcdSession != nil || cmcdContent != nil {
            throw ValidationError("--cmcd-session and --cmcd-content need --cmcd header or --cmcd query")
        }
    }

    func options() throws -> LoaderOptions {
        var o = LoaderOptions()
        o.upstream = try origin.options()
        o.upstream.cache = try cache.open()
        o.keyOverrides = try LoaderFlags.keys(keys)
        o.keyCommand = keyCommand
        o.decryptAES = !noDecrypt
        o.keySpread = max(0, keySpread)
        o.parts = !noParts
        o.cmcd = cmcd.map { CMCDSettings(mode: $0, sessionID: cmcdSession ?? "", contentID: cmcdContent) }
        return o
    }
}

extension CMCDMode: ExpressibleByArgument {}

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

    @Flag(
        name: .customLong("no-video-decode"),
        help: "Watch delivery only: segments are read and demuxed whole and audio decoded, no video is decoded (no picture).")
    var noVideoDecode = false

    @Option(help: "Seconds the player buffers ahead.")
    var readahead: Double = 10

    @Option(
        name: .customLong("back-buffer"),
        help:
            "Seconds the player keeps behind the playhead for the buffer bar and seeking back; with the read-ahead, at the ladder's peak bitrate, the pane's memory bound."
    )
    var backBuffer: Double = 60

    @Option(
        help: ArgumentHelp(
            "How the picture (v) is drawn: auto (kitty graphics or sixel when the terminal answers that it has them, else cells), sixel, kitty, cells, none."
        ))
    var picture: PictureChoice = .auto

    @Option(name: .customLong("picture-fps"), help: "Frames a second drawn while the picture is shown (v), 0.5 to 30.")
    var pictureFPS: Double = 5

    @Option(name: .customLong("max-resolution"), help: "Resolution cap: the highest rung height allowed, e.g. 720.")
    var maxResolution: Int?

    @Option(name: .customLong("max-bitrate"), help: "Bitrate cap, e.g. 2M or 800k.")
    var maxBitrate: String?

    @Option(help: "Pin this rung (index in the ladder) instead of choosing automatically.")
    var pin: Int?

    @Option(
        help: ArgumentHelp(
            "Audio rendition to play: a NAME or a LANGUAGE of the variant's AUDIO group (default: the group's DEFAULT); A cycles.",
            valueName: "name|language"))
    var audio: String?

    @Option(
        help: ArgumentHelp(
            "Subtitles to show: a NAME or a LANGUAGE of the variant's SUBTITLES group, or off (default: the group's DEFAULT, if any); S cycles.",
            valueName: "name|language|off"))
    var subs: String?

    @Option(
        name: .customLong("switch"),
        help: "How switches you ask for (keys, commands, caps) take effect: immediate (now) or smooth (after what is buffered, no stall).")
    var switchMode: SwitchMode = .immediate

    @Option(name: .customLong("abr-switch"), help: "How automatic (ABR) switches take effect: smooth or immediate.")
    var abrSwitch: SwitchMode = .smooth

    @Flag(name: .customLong("no-sync"), help: "With two to four URLs: do not align them on EXT-X-PROGRAM-DATE-TIME.")
    var noSync = false

    @Option(
        help: ArgumentHelp(
            "Every pane plays the moment whose PROGRAM-DATE-TIME is the wall clock less SECONDS, and stays there: processes on hosts with synchronised clocks show the same moment (docs/SYNC.md). auto: the smallest every pane can hold.",
            valueName: "seconds|auto"))
    var latency: String?

    /// `--latency`, read: nil without it.
    func latencyTarget() throws -> LatencySync.Target? {
        guard let latency else { return nil }
        if noSync { throw ValidationError("--latency and --no-sync: --latency is a sync of its own, on the wall clock; give one of them") }
        if latency == "auto" { return .auto }
        guard let s = Double(latency), s.isFinite, s >= 0, s <= 86_400 else {
            throw ValidationError("--latency takes seconds behind the wall clock (0 to 86400) or auto, got \(latency)")
        }
        return .seconds(s)
    }

    @Flag(
        name: .customLong("cmsd-cap"),
        help: "Cap the ladder at the server's maximum suggested bitrate (CMSD mb, CTA-5006) whenever an answer carries one.")
    var cmsdCap = false

    @Flag(help: "Draw with ASCII only (chosen by itself when the locale is not UTF-8 or TERM is linux, vt100, …).")
    var ascii = false

    @Option(help: "Theme name (see `hlstui keys --themes`) or a .theme file.")
    var theme: String?

    @Option(help: "Append hlstui's log (requests, keys, messages) to this file.")
    var log: String?

    /// The options that shape playback, as command-line words (kept in a recording; a replay plays the same way).
    var playbackWords: [String] {
        var w = ["--readahead", String(readahead), "--back-buffer", String(backBuffer), "--switch", switchMode.rawValue]
        w += ["--abr-switch", abrSwitch.rawValue]
        if let v = maxResolution { w += ["--max-resolution", String(v)] }
        if let v = maxBitrate { w += ["--max-bitrate", v] }
        if let v = pin { w += ["--pin", String(v)] }
        if let v = audio { w += ["--audio", v] }
        if let v = subs { w += ["--subs", v] }
        if noSync { w.append("--no-sync") }
        if cmsdCap { w.append("--cmsd-cap") }
        return w
    }

    /// These options with the playback ones taken from `recorded` (a replay's): what is shown stays the caller's.
    func replaying(_ recorded: [String]) throws -> PlayerFlagGroup {
        var out = self
        guard !recorded.isEmpty else { return out }
        let r = try PlayerFlagGroup.parse(recorded)
        (out.readahead, out.backBuffer, out.switchMode, out.abrSwitch) = (r.readahead, r.backBuffer, r.switchMode, r.abrSwitch)
        (out.maxResolution, out.maxBitrate, out.pin, out.noSync) = (r.maxResolution, r.maxBitrate, r.pin, r.noSync)
        out.cmsdCap = r.cmsdCap
        out.audio = r.audio
        out.subs = r.subs
        return out
    }

    func paneConfig(url: String, loader: LoaderOptions, defaultAudio: String? = nil) throws -> PaneConfig {
        var c = PaneConfig(url: url)
        c.loader = loader
        c.player.video = video
        c.player.audioOutput = audioOutput ?? defaultAudio
        c.player.mute = mute
        c.player.decodeVideo = !noVideoDecode
        guard readahead > 0, readahead.isFinite else { throw ValidationError("--readahead takes seconds above 0, got \(readahead)") }
        guard backBuffer >= 0, backBuffer.isFinite else {
            throw ValidationError("--back-buffer takes seconds, 0 or more, got \(backBuffer)")
        }
        c.player.readahead = readahead
        c.player.backBuffer = backBuffer
        guard (0.5...30).contains(pictureFPS) else { throw ValidationError("--picture-fps takes 0.5 to 30, got \(pictureFPS)") }
        c.player.pictureFPS = pictureFPS
        c.session.caps.maxHeight = maxResolution
        if let b = maxBitrate {
            guard let v = Action.parseRate(b) else { throw ValidationError("--max-bitrate takes e.g. 2M, 800k or 1500000, got \(b)") }
            c.session.caps.maxBitrate = v
        }
        if let p = pin { c.session.mode = .pinned(p) }
        if let a = audio {
            guard !a.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--audio takes a NAME or a LANGUAGE, got \"\(a)\"")
            }
            c.session.audio = a
        }
        if let v = subs {
            guard !v.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--subs takes a NAME, a LANGUAGE or off, got \"\(v)\"")
            }
            c.session.subtitles = v
        }
        c.session.manualSwitch = switchMode
        c.session.autoSwitch = abrSwitch
        c.session.followsCMSD = cmsdCap
        return c
    }
}

extension PlayerOptions.Video: ExpressibleByArgument {}

extension SwitchMode: ExpressibleByArgument {}

extension PictureChoice: ExpressibleByArgument {}

/// `--record FILE` and what it keeps, on `hlstui URL` and `monitor`.
struct RecordFlagGroup: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Record the session into FILE (SQLite, never over an existing file): every exchange with the origin (bodies once, keys' bytes never), the session's events and the commands given (docs/RECORDING.md).",
            valueName: "file"))
    var record: String?

    @Flag(
        help:
            "With --record: take tokens out (token-like query parameters, user:password in URLs, cookies and credentials in headers) so the file can be shared."
    )
    var redact = false

    @Option(name: .customLong("redact-param"), help: "With --redact: another query parameter whose values are taken out (repeatable).")
    var redactParams: [String] = []

    @Flag(
        name: .customLong("record-keys"),
        help:
            "With --record: keep key bytes too, sealed under your vault key ($XDG_DATA_HOME/hlstui/vault.key), so the replay decrypts; never in the clear."
    )
    var recordKeys = false

    func validate() throws {
        if record == nil && (redact || !redactParams.isEmpty) { throw ValidationError("--redact goes with --record FILE") }
        if record == nil && recordKeys { throw ValidationError("--record-keys goes with --record FILE") }
        if let r = record, let m = ArgumentMistake.file(r, option: "--record") { throw ValidationError(m) }
    }

    func recording(player: PlayerFlagGroup) -> RecordingRequest? {
        record.map {
            RecordingRequest(
                path: $0, redactor: redact || !redactParams.isEmpty ? Redactor(parameters: redactParams) : nil,
                options: player.playbackWords,
                keys: recordKeys)
        }
    }
}

/// `--cache` and `--offline`: the Loader's disk cache (DECISIONS.md "The Loader's disk cache").
struct CacheFlagGroup: ParsableArguments {
    @Flag(
        help:
            "Keep segments, init sections, VOD playlists and keys (sealed) on disk and serve them again; a body cut off is resumed with Range."
    )
    var cache = false

    @Option(name: .customLong("cache-dir"), help: "The cache's directory (implies --cache; default $XDG_CACHE_HOME/hlstui/http).")
    var cacheDir: String?

    @Option(name: .customLong("cache-size"), help: "Bytes the cache keeps at most, least recently used out first: 2G, 500M.")
    var cacheSize = "2G"

    @Option(
        name: .customLong("cache-ignore-query"),
        help: "Query parameters left out of the cache key, comma-separated (repeatable): token,exp.")
    var ignoreQuery: [String] = []

    @Flag(help: "Play only from the cache (implies --cache): nothing is asked of the origin; a missing piece is named.")
    var offline = false

    func validate() throws {
        if CachePolicy.size(cacheSize) == nil { throw ValidationError("--cache-size takes a size such as 2G or 500M, got \(cacheSize)") }
    }

    /// The session's cache, when asked for; a directory that cannot be used is one line.
    func open() throws -> DiskCache? {
        guard cache || offline || cacheDir != nil else { return nil }
        let names = Set(
            ignoreQuery.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty })
        let options = CacheOptions(
            directory: cacheDir ?? CacheOptions.defaultDirectory, limit: CachePolicy.size(cacheSize) ?? 0, ignoredQuery: names,
            offline: offline, vaultPath: CacheOptions.defaultVault)
        do { return try DiskCache(options) } catch { throw CLIError("hlstui: \(error)") }
    }
}

/// `hlstui DIR` and `hlstui monitor DIR`: a download folder opened for playing (its keys checked and handed to the Loader); any
/// other argument is a URL, as it is.
struct OfflineSources {
    var sessions: [OfflineSession] = []

    /// The pane for `arg`: a download folder is served on 127.0.0.1, its keys given to the Loader as overrides.
    mutating func pane(_ arg: String, loader: LoaderOptions, make: (String, LoaderOptions) throws -> PaneConfig) throws -> PaneConfig {
        var isDir: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: arg, isDirectory: &isDir)
        if let mistake = ArgumentMistake.stream(arg, argv: CommandLine.arguments, exists: exists, folder: isDir.boolValue) {
            throw CLIError("hlstui: \(mistake)")
        }
        guard exists, isDir.boolValue else { return try make(arg, loader) }
        let session: OfflineSession
        do { session = try OfflineLibrary.open(arg) } catch { throw CLIError("hlstui: \(error.description)") }
        sessions.append(session)
        var o = loader
        o.keyOverrides.merge(session.keys) { a, _ in a }
        o.keyDeadlines.merge(session.deadlines) { a, _ in a }
        return try make(session.url, o)
    }

    /// A line per key: its countdowns, for the dashboard's notes and the monitor's.
    var notes: [String] { sessions.flatMap(\.notes) }

    func stop() { for s in sessions { s.server.stop() } }
}

/// One line for an argument that is not what its place wants, naming the mistake and the right form.
enum ArgumentMistake {
    /// Flags that take no value, and how the value was probably meant to be given.
    static let valueless: [String: String] = [
        "--cache": "the cache's directory is given with --cache-dir DIR", "--offline": "give the cache with --cache-dir DIR",
        "--insecure": "", "--no-decrypt": "", "--no-parts": "", "--mute": "", "--no-video-decode": "", "--no-sync": "", "--ascii": "",
        "--record-keys": "", "--verbose": "", "--redact": "",
    ]

    /// What is wrong with `arg` given where a stream belongs (a playlist URL or a download folder), if anything.
    static func stream(_ arg: String, argv: [String], exists: Bool, folder: Bool) -> String? {
        let url = arg.lowercased().hasPrefix("http://") || arg.lowercased().hasPrefix("https://")
        if !url, let i = argv.firstIndex(of: arg), i > 0, let meant = valueless[argv[i - 1]] {
            return "\(argv[i - 1]) takes no value, so \(arg) was read as a stream" + (meant.isEmpty ? "" : "; \(meant)")
        }
        if folder, !OfflineLibrary.isDownload(arg) {
            return
                "\(arg) is a folder but not a download (no \(DownloadManifest.fileName)): give a playlist URL, or a folder `hlstui download` made"
        }
        if exists, !folder {
            return "\(arg) is a file: hlstui reads playlists over http(s) — give its URL (serve the folder, e.g. `python3 -m http.server`)"
        }
        if !url, !exists, arg.hasPrefix("/") || arg.hasPrefix("./") || arg.hasPrefix("~") {
            return "\(arg): no such folder, and not an http(s) URL"
        }
        return nil
    }

    /// What is wrong with `arg` given where a file belongs (`option`: the flag or argument that takes it), if anything.
    static func file(_ arg: String, option: String) -> String? {
        let lower = arg.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        return "\(option) takes a file on this machine, not a URL (\(arg))"
    }
}

/// `--players [--ascii]`, on `proxy` and `origin`: the players that send CMCD drawn as panes of their own (docs/CMCD.md).
struct PlayersFlagGroup: ParsableArguments {
    @Flag(
        name: .customLong("players"),
        help:
            "Show each player that sends CMCD as a pane of its own (buffer, bitrate, throughput, start, stalls, CTA-5004 findings) instead of printing what it asks for."
    )
    var players = false

    @Flag(help: "With --players: draw with ASCII only (chosen by itself when the locale is not UTF-8).")
    var ascii = false
}
