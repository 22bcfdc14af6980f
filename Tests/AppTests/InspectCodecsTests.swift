import Foundation
import TestSupport
import Testing

/// `inspect --media` on HEVC made by x265 (docs/VALIDATION.md): the codec string the bytes give, in fMP4 (hvc1 and hev1
/// sample entries) and MPEG-TS, held against CODECS.
@Suite("hlstui inspect --media on codecs from other encoders: HEVC (hvcC, the SPS in MPEG-TS, the sample entry), AC-3 and E-AC-3")
struct InspectCodecsTests {
    /// Two seconds of x265 Main (level 1 at 160×90) as fMP4 (`tag`: the sample entry) or MPEG-TS, in `dir/name/`.
    static func encode(_ dir: URL, _ name: String, fmp4: Bool, tag: String = "hvc1") async throws {
        let video = ["-f", "lavfi", "-i", "testsrc=size=160x90:rate=25", "-t", "2", "-pix_fmt", "yuv420p"]
        try await hls(dir, name, video + ["-c:v", "libx265", "-x265-params", "log-level=none", "-tag:v", tag], fmp4: fmp4)
    }

    /// ffmpeg's HLS muxer writes `args`' two seconds in one-second segments to `dir/name/index.m3u8`.
    static func hls(_ dir: URL, _ name: String, _ args: [String], fmp4: Bool) async throws {
        let out = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let muxer = ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"] + (fmp4 ? ["-hls_segment_type", "fmp4"] : [])
        let r = try await ChildProcess.run(
            tool: "ffmpeg", ["-hide_banner", "-loglevel", "error"] + args + muxer + [out.appendingPathComponent("index.m3u8").path])
        try #require(r.status == 0, "\(r.stderr)")
    }

    @Test("declared as the bytes say: no finding; another level, H.264 over HEVC, hvc1 over an hev1 sample entry: each named, exit 1")
    func hevc() async throws {
        let dir = try CLI.directory([:])
        defer { try? FileManager.default.removeItem(at: dir) }
        try await Self.encode(dir, "fmp4", fmp4: true)
        try await Self.encode(dir, "hev1", fmp4: true, tag: "hev1")
        try await Self.encode(dir, "ts", fmp4: false)
        func ladder(_ codecs: [String]) -> String {
            let names = ["fmp4", "hev1", "ts"]
            return "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"
                + names.indices.map { i in
                    "#EXT-X-STREAM-INF:BANDWIDTH=\(2_000_000 + i * 100_000),CODECS=\"\(codecs[i])\"\n\(names[i])/index.m3u8\n"
                }.joined()
        }
        try ladder(["hvc1.1.6.L30.90", "hev1.1.6.L30.90", "hvc1.1.6.L30.90"]).write(
            to: dir.appendingPathComponent("right.m3u8"), atomically: true, encoding: .utf8)
        try ladder(["hvc1.1.6.L93.90", "hvc1.1.6.L30.90", "avc1.64001e"]).write(
            to: dir.appendingPathComponent("wrong.m3u8"), atomically: true, encoding: .utf8)
        let server = try await FixtureServer.start(serving: dir)
        defer { server.kill() }

        let right = try await CLI.run(["inspect", "--media", "\(server.base)/right.m3u8"])
        #expect(!right.stdout.contains("codecs-"), "\(right.stdout)")
        #expect(right.stdout.contains("video hvc1.1.6.L30.90") && right.stdout.contains("video hev1.1.6.L30.90"), "\(right.stdout)")

        let wrong = try await CLI.run(["inspect", "--media", "--json", "\(server.base)/wrong.m3u8"])
        #expect(wrong.status == 1, "\(wrong.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(wrong.stdout.utf8)) as? [String: Any])
        let findings = (doc["findings"] as? [[String: Any]] ?? []).filter { ($0["rule"] as? String)?.hasPrefix("codecs") == true }
        #expect(findings.map { $0["variant"] as? Int } == [0, 1, 2], "\(findings)")
        #expect(
            findings.map { $0["message"] as? String ?? "" } == [
                "2000k: CODECS says hvc1.1.6.L93.90, the media's init section says hvc1.1.6.L30.90 (profile and level as the bytes give them)",
                "2100k: CODECS says hvc1.1.6.L30.90, the media's init section says hev1.1.6.L30.90 (profile and level as the bytes give them)",
                "2200k: CODECS says avc1.64001e, the media's SPS says hvc1.1.6.L30.90 (profile and level as the bytes give them)",
            ], "\(findings)")
    }

    /// Two seconds of H.264 with `audio` ("ac3", "eac3", "aac"; nil: none) as MPEG-TS, or of audio alone as fMP4, in `dir/name/`.
    static func encode(_ dir: URL, _ name: String, audio: String?, video: Bool = true, fmp4: Bool = false) async throws {
        var args: [String] = []
        if video { args += ["-f", "lavfi", "-i", "testsrc=size=160x90:rate=25"] }
        if audio != nil { args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"] }
        args += ["-t", "2"]
        args += video ? ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-g", "25"] : []
        args += audio.map { ["-c:a", $0, "-b:a", "96k"] } ?? []
        try await hls(dir, name, args, fmp4: fmp4)
    }

    @Test("audio codecs: AC-3 muxed in MPEG-TS and E-AC-3 in an fMP4 rendition read from the bytes; CODECS that names them not, each said")
    func audio() async throws {
        let dir = try CLI.directory([:])
        defer { try? FileManager.default.removeItem(at: dir) }
        try await Self.encode(dir, "ac3", audio: "ac3")
        try await Self.encode(dir, "picture", audio: nil)
        try await Self.encode(dir, "eac3", audio: "eac3", video: false, fmp4: true)
        let ladder = """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="dd",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="eac3/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64000c,ac-3"
            ac3/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2100000,CODECS="avc1.64000c,mp4a.40.2"
            ac3/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2200000,CODECS="avc1.64000c,mp4a.40.2",AUDIO="dd"
            picture/index.m3u8

            """
        try ladder.write(to: dir.appendingPathComponent("audio.m3u8"), atomically: true, encoding: .utf8)
        let server = try await FixtureServer.start(serving: dir)
        defer { server.kill() }
        let text = try await CLI.run(["inspect", "--media", "\(server.base)/audio.m3u8"])
        #expect(
            text.stdout.contains("  audio ac-3") && text.stdout.contains("audio English [en]") && text.stdout.contains("  ec-3"),
            "\(text.stdout)")
        let r = try await CLI.run(["inspect", "--media", "--json", "\(server.base)/audio.m3u8"])
        #expect(r.status == 1, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let findings = (doc["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "codecs-audio" }
        #expect(
            findings.map { $0["message"] as? String ?? "" } == [
                "2100k: CODECS says mp4a.40.2, the audio in its segments is ac-3",
                "2200k: CODECS says mp4a.40.2, the audio in audio English [en] is ec-3",
            ], "\(findings)")
    }
}
