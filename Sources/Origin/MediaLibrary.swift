import Foundation
import HLS
import MediaFormats

/// How a rendition is packaged.
public enum Container: String, Sendable, CaseIterable {
    case ts
    case fmp4

    /// The segment file extension FFmpeg expects.
    public var segmentExtension: String { self == .ts ? "ts" : "m4s" }
}

/// One encoded media segment, loaded in memory, with what probing its bytes found.
public struct MediaSegment: Sendable {
    public var index: Int
    public var duration: Double
    public var bytes: [UInt8]
    /// First media timestamp in seconds (TS PES PTS / 90 kHz, or fMP4 tfdt / timescale).
    public var firstTime: Double
    /// Byte range of the first I-frame (TS only), for I-frame playlists.
    public var iFrameRange: ByteRange?
}

/// One encoded rendition (a rung, an audio track or a camera) in one container.
public struct MediaRendition: Sendable {
    public var id: String
    public var container: Container
    public var segments: [MediaSegment]
    public var initSection: [UInt8]?
    /// RFC 6381 codecs, read from the bytes (SPS / avcC) for video.
    public var codecs: String
    public var resolution: Resolution?
    public var frameRate: Double?
    /// The cadence the stream is timed on (the GOP length): live PDTs advance by exactly this per segment.
    public var nominalDuration: Double
    public var hasVideo: Bool { resolution != nil }

    /// Peak segment bitrate in bits per second, as RFC 8216bis §4.4.6.2 defines BANDWIDTH.
    public var peakBitrate: Int {
        segments.map { Int((Double($0.bytes.count * 8) / $0.duration).rounded(.up)) }.max() ?? 0
    }

    /// Average bitrate over the whole rendition (AVERAGE-BANDWIDTH).
    public var averageBitrate: Int {
        let bytes = segments.reduce(0) { $0 + $1.bytes.count }
        let seconds = segments.reduce(0.0) { $0 + $1.duration }
        return seconds > 0 ? Int((Double(bytes * 8) / seconds).rounded(.up)) : 0
    }

    /// Length of one pass through the media, in seconds.
    public var loopDuration: Double { segments.reduce(0) { $0 + $1.duration } }
}

/// What to encode for one rendition.
public struct EncodeSpec: Sendable {
    public var id: String
    public var width: Int?
    public var height: Int?
    public var fps: Int
    public var videoKbps: Int
    public var gopSeconds: Int
    public var seconds: Int
    public var pattern: String
    public var toneHz: Int
    public var containers: [Container]
}

/// Why media could not be made, in one line.
public struct MediaError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The origin's media: encoded once by ffmpeg into a cache directory, reused, and held in memory while serving.
public final class MediaLibrary: Sendable {
    /// Bump when the encodes change so old caches are not reused.
    public static let version = "media-v2"

    /// The ladder: three video rungs (muxed AAC), English audio (for the audio-only rung), German alternate audio, two cameras.
    public static let specs: [EncodeSpec] = [
        EncodeSpec(id: "v144", width: 256, height: 144, fps: 30, videoKbps: 150, gopSeconds: 2, seconds: 20, pattern: "testsrc2", toneHz: 440, containers: [.ts, .fmp4]),
        EncodeSpec(id: "v240", width: 426, height: 240, fps: 30, videoKbps: 350, gopSeconds: 2, seconds: 20, pattern: "testsrc2", toneHz: 440, containers: [.ts, .fmp4]),
        EncodeSpec(id: "v360", width: 640, height: 360, fps: 30, videoKbps: 700, gopSeconds: 2, seconds: 20, pattern: "testsrc2", toneHz: 440, containers: [.ts, .fmp4]),
        EncodeSpec(id: "audio-en", width: nil, height: nil, fps: 0, videoKbps: 0, gopSeconds: 2, seconds: 20, pattern: "", toneHz: 440, containers: [.ts, .fmp4]),
        EncodeSpec(id: "audio-de", width: nil, height: nil, fps: 0, videoKbps: 0, gopSeconds: 2, seconds: 20, pattern: "", toneHz: 660, containers: [.ts, .fmp4]),
        EncodeSpec(id: "cam-a", width: 426, height: 240, fps: 30, videoKbps: 300, gopSeconds: 2, seconds: 24, pattern: "testsrc2", toneHz: 520, containers: [.ts]),
        EncodeSpec(id: "cam-b", width: 426, height: 240, fps: 25, videoKbps: 300, gopSeconds: 3, seconds: 24, pattern: "testsrc", toneHz: 780, containers: [.ts]),
    ]

    public let directory: URL
    /// Keyed `container/id`, e.g. `ts/v360`.
    public let renditions: [String: MediaRendition]
    /// Seconds the last generation took (0 when the cache was reused).
    public let generationSeconds: Double

    public func rendition(_ id: String, _ container: Container) -> MediaRendition? { renditions["\(container.rawValue)/\(id)"] }

    init(directory: URL, renditions: [String: MediaRendition], generationSeconds: Double) {
        self.directory = directory
        self.renditions = renditions
        self.generationSeconds = generationSeconds
    }

    /// The default cache directory: `$HLSTUI_CACHE`, else `$XDG_CACHE_HOME/hlstui`, else `~/.cache/hlstui`.
    public static var defaultCache: URL {
        let env = ProcessInfo.processInfo.environment
        if let c = env["HLSTUI_CACHE"], !c.isEmpty { return URL(fileURLWithPath: c) }
        if let x = env["XDG_CACHE_HOME"], !x.isEmpty { return URL(fileURLWithPath: x).appendingPathComponent("hlstui") }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/hlstui")
    }

    /// Loads the media from `cache`, generating it first with ffmpeg when missing; `progress` hears one line per step.
    public static func load(cache: URL = defaultCache, progress: @Sendable (String) -> Void = { _ in }) throws -> MediaLibrary {
        let dir = cache.appendingPathComponent(version)
        var seconds = 0.0
        // One generation at a time in this process (several test suites start origins at once); other processes race safely below.
        generationLock.lock()
        defer { generationLock.unlock() }
        if !FileManager.default.fileExists(atPath: dir.appendingPathComponent("complete").path) {
            let start = Date()
            try generate(into: dir, progress: progress)
            seconds = Date().timeIntervalSince(start)
        }
        return try MediaLibrary(directory: dir, renditions: loadRenditions(dir), generationSeconds: seconds)
    }

    static let generationLock = NSLock()

    static func generate(into dir: URL, progress: @Sendable (String) -> Void) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard let ffmpeg = findExecutable("ffmpeg") else {
            throw MediaError(description: "ffmpeg is not installed; run scripts/setup.sh (Debian package ffmpeg) to make the demo media")
        }
        let tmp = dir.deletingLastPathComponent().appendingPathComponent("\(version).tmp-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try? fm.removeItem(at: tmp)
        try fm.createDirectory(at: tmp.appendingPathComponent("src"), withIntermediateDirectories: true)
        for spec in specs {
            progress("encoding \(spec.id) (\(spec.width.map { "\($0)x\(spec.height!)@\(spec.fps)" } ?? "audio"), \(spec.seconds) s)")
            let src = tmp.appendingPathComponent("src/\(spec.id).\(spec.width == nil ? "m4a" : "mp4")")
            try run(ffmpeg, encodeArguments(spec, output: src.path))
            for c in spec.containers {
                let out = tmp.appendingPathComponent("\(c.rawValue)/\(spec.id)")
                try fm.createDirectory(at: out, withIntermediateDirectories: true)
                var args = ["-hide_banner", "-loglevel", "error", "-y", "-i", src.path, "-c", "copy", "-f", "hls",
                            "-hls_time", String(spec.gopSeconds), "-hls_list_size", "0", "-hls_playlist_type", "vod",
                            "-hls_segment_filename", out.appendingPathComponent("seg%d.\(c.segmentExtension)").path]
                if c == .fmp4 { args += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"] }
                try run(ffmpeg, args + [out.appendingPathComponent("index.m3u8").path])
            }
        }
        try fm.removeItem(at: tmp.appendingPathComponent("src"))
        try Data("ok\n".utf8).write(to: tmp.appendingPathComponent("complete"))
        // Publish atomically; if another process won the race, keep its copy.
        if (try? fm.moveItem(at: tmp, to: dir)) == nil {
            try? fm.removeItem(at: tmp)
            guard fm.fileExists(atPath: dir.appendingPathComponent("complete").path) else {
                throw MediaError(description: "could not move the generated media into \(dir.path)")
            }
        }
    }

    static func encodeArguments(_ s: EncodeSpec, output: String) -> [String] {
        var args = ["-hide_banner", "-loglevel", "error", "-y"]
        // Audio-only encodes stop a little short so the segmenter makes exactly seconds/gop segments, like the video rungs.
        let audioSeconds = s.width == nil ? Double(s.seconds) - 0.03 : Double(s.seconds)
        let audio = "sine=frequency=\(s.toneHz):beep_factor=4:sample_rate=48000:duration=\(audioSeconds)"
        if let w = s.width, let h = s.height {
            args += ["-f", "lavfi", "-i", "\(s.pattern)=size=\(w)x\(h):rate=\(s.fps):duration=\(s.seconds)",
                     "-f", "lavfi", "-i", audio, "-map", "0:v", "-map", "1:a",
                     "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-level", "3.0", "-pix_fmt", "yuv420p",
                     "-b:v", "\(s.videoKbps)k", "-maxrate", "\(s.videoKbps * 6 / 5)k", "-bufsize", "\(s.videoKbps * 2)k",
                     "-g", String(s.fps * s.gopSeconds), "-keyint_min", String(s.fps * s.gopSeconds), "-sc_threshold", "0",
                     "-force_key_frames", "expr:gte(t,n_forced*\(s.gopSeconds))", "-x264-params", "scenecut=0:open_gop=0"]
        } else {
            args += ["-f", "lavfi", "-i", audio]
        }
        args += ["-c:a", "aac", "-b:a", "64k", "-ac", "2", "-ar", "48000", output]
        return args
    }

    static func loadRenditions(_ dir: URL) throws -> [String: MediaRendition] {
        var out: [String: MediaRendition] = [:]
        for spec in specs {
            for c in spec.containers {
                let rdir = dir.appendingPathComponent("\(c.rawValue)/\(spec.id)")
                let indexText = try String(contentsOf: rdir.appendingPathComponent("index.m3u8"), encoding: .utf8)
                guard let media = PlaylistParser.parseLenient(indexText, options: ParseOptions(lint: false)).playlist.media else {
                    throw MediaError(description: "\(rdir.path)/index.m3u8 is not a media playlist")
                }
                var initSection: [UInt8]?
                var tracks: [MP4Track] = []
                if c == .fmp4 {
                    let bytes = [UInt8](try Data(contentsOf: rdir.appendingPathComponent("init.mp4")))
                    initSection = bytes
                    tracks = FragmentedMP4.tracks(initSection: bytes)
                }
                var segments: [MediaSegment] = []
                var codecs: [String] = []
                for (i, s) in media.segments.enumerated() {
                    let bytes = [UInt8](try Data(contentsOf: rdir.appendingPathComponent(s.uri)))
                    var first = 0.0
                    var iframe: ByteRange?
                    if c == .ts {
                        let info = TransportStream.probe(bytes)
                        first = Double(info.firstPTS ?? 0) / 90_000
                        if let end = info.firstVideoAccessUnitEnd { iframe = ByteRange(length: end, offset: 0) }
                        if i == 0 {
                            if spec.width != nil, let v = H264.codecString(annexB: bytes) { codecs.append(v) }
                            codecs.append("mp4a.40.2")
                        }
                    } else {
                        first = FragmentedMP4.firstTime(segment: bytes, tracks: tracks) ?? 0
                        if i == 0 {
                            if spec.width != nil, let v = avcCodec(initSection ?? []) { codecs.append(v) }
                            codecs.append("mp4a.40.2")
                        }
                    }
                    segments.append(MediaSegment(index: i, duration: s.duration, bytes: bytes, firstTime: first, iFrameRange: iframe))
                }
                let r = MediaRendition(id: spec.id, container: c, segments: segments, initSection: initSection, codecs: codecs.joined(separator: ","),
                                       resolution: spec.width.map { Resolution(width: $0, height: spec.height!) },
                                       frameRate: spec.width == nil ? nil : Double(spec.fps), nominalDuration: Double(spec.gopSeconds))
                let expected = spec.seconds / spec.gopSeconds
                guard segments.count == expected else {
                    throw MediaError(description: "\(rdir.path): \(segments.count) segments where \(expected) were expected; delete the cache to remake it")
                }
                out["\(c.rawValue)/\(spec.id)"] = r
            }
        }
        return out
    }

    /// The codec string of the avcC box inside an init section.
    static func avcCodec(_ bytes: [UInt8]) -> String? {
        // avcC sits deep in moov/trak/mdia/minf/stbl/stsd/avc1; a byte search is enough and robust.
        let tag: [UInt8] = Array("avcC".utf8)
        var i = 0
        while i + 8 < bytes.count {
            if bytes[i] == tag[0], bytes[i + 1] == tag[1], bytes[i + 2] == tag[2], bytes[i + 3] == tag[3] {
                return H264.codecString(avcC: bytes[(i + 4)...])
            }
            i += 1
        }
        return nil
    }

    static func run(_ exe: String, _ args: [String]) throws {
        // stderr goes to a file, not a pipe: a process spawned elsewhere at the same moment could inherit a pipe's
        // write end and keep it open long after ffmpeg has exited.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-ffmpeg-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let err = try FileHandle(forWritingTo: log)
        defer { try? err.close() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        if p.terminationStatus != 0 {
            let e = (try? Data(contentsOf: log)) ?? Data()
            let msg = String(decoding: e, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "exit \(p.terminationStatus)"
            throw MediaError(description: "ffmpeg failed: \(msg)")
        }
    }

    /// The path of `name` on $PATH.
    public static func findExecutable(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }
}
