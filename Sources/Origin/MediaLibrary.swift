import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers

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

/// How the origin's media are packaged: its own plain encodes, or as broadcast packagers in the field make them.
public enum Packaging: String, Sendable, CaseIterable {
    /// 30/25 fps, closed GOPs, every segment starts with its video key frame, timestamps from FFmpeg's 1.4 s.
    case plain
    /// 29.97 fps, x264's default B-frame pyramid (preset medium, High profile), audio 40 ms ahead of video, each TS segment's first
    /// packet audio (its earliest timestamp), timestamps from 3600 s: what switching must survive from other packagers.
    case broadcast

    /// The library key prefix of this packaging's renditions.
    var keyPrefix: String { self == .plain ? "" : "\(rawValue)/" }
}

/// What to encode for one rendition.
public struct EncodeSpec: Sendable {
    public var id: String
    public var width: Int?
    public var height: Int?
    /// Frame rate as a fraction (30000/1001 for 29.97).
    public var fpsNum: Int
    public var fpsDen: Int = 1
    public var videoKbps: Int
    /// Frames per GOP, and so per segment.
    public var gopFrames: Int
    public var segments: Int
    public var pattern: String
    public var toneHz: Int
    public var containers: [Container]
    public var packaging: Packaging = .plain
    /// An ffmpeg filter graph from the pattern (`[0:v]` before it, `[v]` after: the picture-fault camera's still and black
    /// spans).
    public var videoFilter: String?
    /// Audio channels: 2, or 6 for a 5.1 mix.
    public var audioChannels = 2
    /// Closed captions in the video (CC1, CC3 and CEA-708 service 1, `CaptionSchedule`): the plain ladder's rungs.
    public var captions = false

    public init(
        id: String, width: Int?, height: Int?, fps: Int, fpsDen: Int = 1, videoKbps: Int, gopFrames: Int, segments: Int,
        pattern: String, toneHz: Int, containers: [Container], packaging: Packaging = .plain, audioChannels: Int = 2,
        captions: Bool = false
    ) {
        self.audioChannels = audioChannels
        self.captions = captions
        self.id = id
        self.width = width
        self.height = height
        self.fpsNum = fps
        self.fpsDen = fpsDen
        self.videoKbps = videoKbps
        self.gopFrames = gopFrames
        self.segments = segments
        self.pattern = pattern
        self.toneHz = toneHz
        self.containers = containers
        self.packaging = packaging
    }

    /// Seconds per segment: the GOP's length (audio-only renditions follow the video rungs of their packaging).
    public var segmentSeconds: Double { Double(gopFrames) * Double(fpsDen) / Double(fpsNum) }
    public var seconds: Double { segmentSeconds * Double(segments) }
    public var frameRate: Double { Double(fpsNum) / Double(fpsDen) }
    var key: String { packaging.keyPrefix + id }
}

/// Why media could not be made, in one line.
public struct MediaError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The origin's media: encoded once by ffmpeg into a cache directory, reused, and held in memory while serving.
public final class MediaLibrary: Sendable {
    /// Bump when the encodes change so old caches are not reused.
    public static let version = "media-v13"

    /// The ladder: three video rungs (muxed AAC), English audio (for the audio-only rung), German alternate audio, four cameras;
    /// the same ladder packaged as broadcasters do.
    public static let specs: [EncodeSpec] = {
        var out = [
            EncodeSpec(
                id: "cam-a", width: 426, height: 240, fps: 30, videoKbps: 300, gopFrames: 60, segments: 12, pattern: "testsrc2",
                toneHz: 520, containers: [.ts]),
            EncodeSpec(
                id: "cam-b", width: 426, height: 240, fps: 25, videoKbps: 300, gopFrames: 75, segments: 8, pattern: "testsrc", toneHz: 780,
                containers: [.ts]),
            EncodeSpec(
                id: "cam-c", width: 320, height: 180, fps: 50, videoKbps: 250, gopFrames: 200, segments: 6, pattern: "testsrc2",
                toneHz: 620, containers: [.ts]),
            EncodeSpec(
                id: "cam-d", width: 320, height: 180, fps: 60000, fpsDen: 1001, videoKbps: 250, gopFrames: 360, segments: 4,
                pattern: "testsrc", toneHz: 980, containers: [.ts]),
        ]
        // The picture-fault camera: 16 s of moving pattern whose frames 6–10 s repeat one frame (a frozen encoder) and whose
        // 10–14 s are black (a lost input), in 2 s segments at 30 fps.
        var p = EncodeSpec(
            id: "cam-p", width: 320, height: 180, fps: 30, videoKbps: 200, gopFrames: 60, segments: 8, pattern: "testsrc2", toneHz: 500,
            containers: [.ts])
        p.videoFilter = "split[a][b];[a][b]freezeframes=first=180:last=299:replace=179,drawbox=enable='between(t,10,14)':color=black:t=fill"
        out.append(p)
        for p in Packaging.allCases {
            let (num, den, gop) = p == .plain ? (30, 1, 60) : (30000, 1001, 60)
            out.insert(
                contentsOf: [
                    EncodeSpec(
                        id: "v144", width: 256, height: 144, fps: num, fpsDen: den, videoKbps: 150, gopFrames: gop, segments: 10,
                        pattern: "testsrc2", toneHz: 440, containers: [.ts, .fmp4], packaging: p, captions: p == .plain),
                    EncodeSpec(
                        id: "v240", width: 426, height: 240, fps: num, fpsDen: den, videoKbps: 350, gopFrames: gop, segments: 10,
                        pattern: "testsrc2", toneHz: 440, containers: [.ts, .fmp4], packaging: p, captions: p == .plain),
                    EncodeSpec(
                        id: "v360", width: 640, height: 360, fps: num, fpsDen: den, videoKbps: 700, gopFrames: gop, segments: 10,
                        pattern: "testsrc2", toneHz: 440, containers: [.ts, .fmp4], packaging: p, captions: p == .plain),
                    EncodeSpec(
                        id: "audio-en", width: nil, height: nil, fps: num, fpsDen: den, videoKbps: 0, gopFrames: gop, segments: 10,
                        pattern: "", toneHz: 440, containers: [.ts, .fmp4], packaging: p),
                    EncodeSpec(
                        id: "audio-de", width: nil, height: nil, fps: num, fpsDen: den, videoKbps: 0, gopFrames: gop, segments: 10,
                        pattern: "", toneHz: 660, containers: [.ts, .fmp4], packaging: p, audioChannels: 6),
                ], at: out.count - 4)
        }
        return out
    }()

    public let directory: URL
    /// Keyed `container/id`, e.g. `ts/v360`.
    public let renditions: [String: MediaRendition]
    /// Progressive MP4 files of the v240 encode, by name: `moov-end.mp4` (as an encoder writes it), `faststart.mp4` (moov
    /// moved to the front) and `fragmented.mp4` (moof fragments, an empty moov first).
    public let progressive: [String: [UInt8]]
    /// Seconds the last generation took (0 when the cache was reused).
    public let generationSeconds: Double
    /// The plain video rungs cut for LL-HLS: 4 s segments of 1 s parts (`ll-ts`, `ll-fmp4`, split 2) and of 0.333 s parts
    /// (`ll-ts-fast`, `ll-fmp4-fast`, split 6), keyed `container/id/split`.
    public let lowLatency: [String: LowLatencyRendition]

    /// The LL-HLS cut of video rung `id`, each 2 s encoded segment in `split` parts.
    public func lowLatency(_ id: String, _ container: Container, split: Int = 2) -> LowLatencyRendition? {
        lowLatency["\(container.rawValue)/\(id)/\(split)"]
    }

    /// How the LL scenarios cut each encoded segment.
    static let lowLatencySplits = [2, 6]

    public func rendition(_ id: String, _ container: Container, _ packaging: Packaging = .plain) -> MediaRendition? {
        renditions["\(packaging.keyPrefix)\(container.rawValue)/\(id)"]
    }

    init(directory: URL, renditions: [String: MediaRendition], progressive: [String: [UInt8]] = [:], generationSeconds: Double) {
        self.directory = directory
        self.renditions = renditions
        self.progressive = progressive
        self.generationSeconds = generationSeconds
        var ll: [String: LowLatencyRendition] = [:]
        for id in OriginTiming.videoRungs {
            for c in [Container.ts, .fmp4] {
                for split in Self.lowLatencySplits {
                    if let r = renditions["\(c.rawValue)/\(id)"], let cut = LowLatencyRendition.make(r, group: 2, split: split) {
                        ll["\(c.rawValue)/\(id)/\(split)"] = cut
                    }
                }
            }
        }
        lowLatency = ll
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
        // One generation at a time in this process (several test suites start origins at once); other processes race safely below.
        return try generation.withLockedValue { _ in
            var seconds = 0.0
            if !FileManager.default.fileExists(atPath: dir.appendingPathComponent("complete").path) {
                let start = Date()
                try generate(into: dir, progress: progress)
                seconds = Date().timeIntervalSince(start)
            }
            let files = dir.appendingPathComponent("progressive")
            var progressive: [String: [UInt8]] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: files.path)) ?? [] where name.hasSuffix(".mp4") {
                progressive[name] = [UInt8](try Data(contentsOf: files.appendingPathComponent(name)))
            }
            return try MediaLibrary(directory: dir, renditions: loadRenditions(dir), progressive: progressive, generationSeconds: seconds)
        }
    }

    /// Held while this process loads (and, the first time, generates) the media.
    static let generation = NIOLockedValueBox(())
    /// The ladder's video rungs, lowest first.
    static let videoRungs = ["v144", "v240", "v360"]

    static func generate(into dir: URL, progress: @Sendable (String) -> Void) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard let ffmpeg = findExecutable("ffmpeg") else {
            throw MediaError(description: "ffmpeg is not installed; run scripts/setup.sh (Debian package ffmpeg) to make the demo media")
        }
        let tmp = dir.deletingLastPathComponent().appendingPathComponent(
            "\(version).tmp-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try? fm.removeItem(at: tmp)
        try fm.createDirectory(at: tmp.appendingPathComponent("src"), withIntermediateDirectories: true)
        for spec in specs {
            progress(
                "encoding \(spec.key) (\(spec.width.map { "\($0)x\(spec.height!)@\(fixed(spec.frameRate, 2))" } ?? "audio"), \(fixed(spec.seconds, 2)) s)"
            )
            let src = tmp.appendingPathComponent(
                "src/\(spec.key.replacingOccurrences(of: "/", with: "-")).\(spec.width == nil ? "m4a" : "mp4")")
            try encodeSource(spec, to: src, ffmpeg: ffmpeg)
            if spec.id == "v240" && spec.packaging == .plain {
                // Progressive MP4 as encoders write it (moov after the media), moved to the front, and fragmented.
                let files = tmp.appendingPathComponent("progressive")
                try fm.createDirectory(at: files, withIntermediateDirectories: true)
                try fm.copyItem(at: src, to: files.appendingPathComponent("moov-end.mp4"))
                for (name, flags) in [("faststart.mp4", "+faststart"), ("fragmented.mp4", "frag_keyframe+empty_moov+default_base_moof")] {
                    try run(
                        ffmpeg,
                        ["-hide_banner", "-loglevel", "error", "-y", "-i", src.path, "-c", "copy", "-movflags", flags]
                            + [files.appendingPathComponent(name).path])
                }
            }
            func segment(_ c: Container, offset: Double) throws -> URL {
                let out = tmp.appendingPathComponent("\(spec.packaging.keyPrefix)\(c.rawValue)/\(spec.id)")
                try? fm.removeItem(at: out)
                try fm.createDirectory(at: out, withIntermediateDirectories: true)
                var args = ["-hide_banner", "-loglevel", "error", "-y", "-i", src.path, "-c", "copy"]
                if offset != 0 { args += ["-output_ts_offset", String(offset)] }
                args += [
                    "-f", "hls", "-hls_time", String(spec.segmentSeconds), "-hls_list_size", "0", "-hls_playlist_type", "vod",
                    "-hls_segment_filename", out.appendingPathComponent("seg%d.\(c.segmentExtension)").path,
                ]
                if c == .fmp4 { args += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"] }
                try run(ffmpeg, args + [out.appendingPathComponent("index.m3u8").path])
                return out
            }
            // Broadcast timestamps start at an hour, and audio-only renditions share the muxed audio's timeline exactly.
            var offset = spec.packaging == .broadcast ? 3600.0 : 0
            if spec.packaging == .broadcast && spec.width == nil {
                let muxed = tmp.appendingPathComponent("\(spec.packaging.keyPrefix)ts/\(videoRungs[0])/seg0.ts")
                let own = try segment(.ts, offset: offset).appendingPathComponent("seg0.ts")
                if let a = TransportStream.probe([UInt8](try Data(contentsOf: muxed))).firstAudioPTS,
                    let b = TransportStream.probe([UInt8](try Data(contentsOf: own))).firstAudioPTS
                {
                    offset += (Double(a) - Double(b)) / 90_000
                }
            }
            for c in spec.containers {
                let out = try segment(c, offset: offset)
                if spec.packaging == .broadcast && c == .ts && spec.width != nil {
                    // Broadcast packagers write each segment's audio before its video: the first packet is audio.
                    for f in try fm.contentsOfDirectory(atPath: out.path) where f.hasSuffix(".ts") {
                        let url = out.appendingPathComponent(f)
                        try Data(TransportStream.audioFirst([UInt8](try Data(contentsOf: url)))).write(to: url)
                    }
                }
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

    /// Encodes `spec`'s source file (`src`). A captioned rung's picture comes from a carrier without B-frames (decode order is
    /// display order) holding the captions, and x264 carries them over into the rung's own encode (its A/53 side data), each
    /// in the frame it belongs to.
    static func encodeSource(_ spec: EncodeSpec, to src: URL, ffmpeg: String) throws {
        guard spec.captions else { return try run(ffmpeg, encodeArguments(spec, output: src.path)) }
        let dir = src.deletingLastPathComponent()
        let plain = dir.appendingPathComponent("\(spec.id)-carrier.h264")
        try run(ffmpeg, carrierArguments(spec, output: plain.path))
        let marked = dir.appendingPathComponent("\(spec.id)-captions.h264")
        let schedule = CaptionSchedule.triplets(frames: spec.gopFrames * spec.segments, perSegment: spec.gopFrames, fps: spec.frameRate)
        try Data(CEA608.inserting(triplets: schedule, into: [UInt8](try Data(contentsOf: plain)))).write(to: marked)
        try run(ffmpeg, encodeArguments(spec, output: src.path, video: marked.path))
    }

    /// The picture a captioned rung is encoded from: the rung's pattern, nearly lossless, without B-frames (Annex B).
    static func carrierArguments(_ s: EncodeSpec, output: String) -> [String] {
        [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
            "\(s.pattern)=size=\(s.width ?? 320)x\(s.height ?? 180):rate=\(s.fpsNum)/\(s.fpsDen):duration=\(s.seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-crf", "8", "-bf", "0", "-g", String(s.gopFrames), "-pix_fmt", "yuv420p",
            "-f", "h264", output,
        ]
    }

    /// `video`: an Annex B file to encode the picture from (a captioned carrier) instead of the rung's lavfi pattern.
    static func encodeArguments(_ s: EncodeSpec, output: String, video: String? = nil) -> [String] {
        var args = ["-hide_banner", "-loglevel", "error", "-y"]
        let broadcast = s.packaging == .broadcast
        // Audio-only encodes stop a little short so the segmenter makes exactly `segments` segments, like the video rungs.
        // Beside video, the whole AAC frames (1024 samples) the loop holds, less one: the encoder's priming frame is muxed a
        // frame before the first picture, so a full-length encode runs a frame past the loop's end, and where the next loop
        // goes on on the same timeline (`StreamModel.loopShift`) its first frame would overlap that one — a player plays both,
        // and its audio falls 21 ms behind the picture and the PDT at each loop. So the audio tiles across the loop, or (a
        // loop of no whole number of frames: 59.94 fps) leaves a gap of under a frame (docs/ORIGIN.md).
        let frames = (s.seconds * 48_000 / 1024).rounded(.down) - 1
        let audioSeconds = s.width == nil ? s.seconds - 0.03 : frames * 1024 / 48_000
        let audio = "sine=frequency=\(s.toneHz):beep_factor=4:sample_rate=48000:duration=\(audioSeconds)"
        if let w = s.width, let h = s.height {
            // Broadcast: the video's timestamps start 40 ms after the audio's (an A/V offset packagers keep).
            if broadcast { args += ["-itsoffset", "0.04"] }
            // A fractional frame rate's exact length rounds up to one frame more: half a frame short gives exactly the frames.
            // (Never `-frames:v`: it ends the output before the audio interleaved behind the last frames is written.)
            let videoSeconds = s.fpsDen == 1 ? s.seconds : s.seconds - 0.5 * Double(s.fpsDen) / Double(s.fpsNum)
            if let video {
                args += ["-f", "h264", "-framerate", "\(s.fpsNum)/\(s.fpsDen)", "-i", video]
            } else {
                args += ["-f", "lavfi", "-i", "\(s.pattern)=size=\(w)x\(h):rate=\(s.fpsNum)/\(s.fpsDen):duration=\(videoSeconds)"]
            }
            args += ["-f", "lavfi", "-i", audio]
            if let f = s.videoFilter {
                args += ["-filter_complex", "[0:v]\(f)[v]", "-map", "[v]", "-map", "1:a"]
            } else {
                args += ["-map", "0:v", "-map", "1:a"]
            }
            args += [
                "-c:v", "libx264", "-preset", broadcast ? "medium" : "veryfast", "-profile:v", broadcast ? "high" : "main",
                "-level", broadcast ? "3.1" : "3.0", "-pix_fmt", "yuv420p",
                "-b:v", "\(s.videoKbps)k", "-maxrate", "\(s.videoKbps * 6 / 5)k", "-bufsize", "\(s.videoKbps * 2)k",
                "-g", String(s.gopFrames), "-keyint_min", String(s.gopFrames), "-sc_threshold", "0",
                "-force_key_frames", "expr:gte(n,n_forced*\(s.gopFrames))",
                "-x264-params", "scenecut=0:open_gop=0",
            ]
            // The video starting 40 ms in must not make FFmpeg's constant-rate output duplicate a frame to fill the gap.
            if broadcast { args += ["-fps_mode", "passthrough"] }
        } else {
            args += ["-f", "lavfi", "-i", audio]
        }
        args += ["-c:a", "aac", "-b:a", "\(32 * s.audioChannels)k", "-ac", String(s.audioChannels), "-ar", "48000"]
        return args + [output]
    }

    static func loadRenditions(_ dir: URL) throws -> [String: MediaRendition] {
        var out: [String: MediaRendition] = [:]
        for spec in specs {
            for c in spec.containers {
                let rdir = dir.appendingPathComponent("\(spec.packaging.keyPrefix)\(c.rawValue)/\(spec.id)")
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
                            if spec.width != nil, let v = H264.codecString(initSection: initSection ?? []) { codecs.append(v) }
                            codecs.append("mp4a.40.2")
                        }
                    }
                    segments.append(MediaSegment(index: i, duration: s.duration, bytes: bytes, firstTime: first, iFrameRange: iframe))
                }
                let r = MediaRendition(
                    id: spec.id, container: c, segments: segments, initSection: initSection, codecs: codecs.joined(separator: ","),
                    resolution: spec.width.map { Resolution(width: $0, height: spec.height!) },
                    frameRate: spec.width == nil ? nil : spec.frameRate, nominalDuration: spec.segmentSeconds)
                let expected = spec.segments
                guard segments.count == expected else {
                    throw MediaError(
                        description:
                            "\(rdir.path): \(segments.count) segments where \(expected) were expected; delete the cache to remake it")
                }
                out["\(spec.packaging.keyPrefix)\(c.rawValue)/\(spec.id)"] = r
            }
        }
        return out
    }

    static func run(_ exe: String, _ args: [String]) throws {
        // stderr goes to a file, not a pipe: a process spawned elsewhere at the same moment could inherit a pipe's
        // write end and keep it open long after ffmpeg has exited.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-ffmpeg-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
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
