import Foundation
import TestSupport
import Testing

/// `inspect --media` on HEVC made by x265 (docs/VALIDATION.md): the codec string the bytes give, in fMP4 (hvc1 and hev1
/// sample entries) and MPEG-TS, held against CODECS.
@Suite("hlstui inspect --media on HEVC media: hvcC, the SPS in MPEG-TS, the sample entry type")
struct InspectHEVCTests {
    /// Two seconds of x265 Main (level 1 at 160×90) as fMP4 (`tag`: the sample entry) or MPEG-TS, in `dir/name/`.
    static func encode(_ dir: URL, _ name: String, fmp4: Bool, tag: String = "hvc1") async throws {
        let out = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var args = [
            "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25", "-t", "2", "-pix_fmt", "yuv420p",
            "-c:v", "libx265", "-x265-params", "log-level=none", "-tag:v", tag, "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
        ]
        if fmp4 { args += ["-hls_segment_type", "fmp4"] }
        let r = try await ChildProcess.run(tool: "ffmpeg", args + [out.appendingPathComponent("index.m3u8").path])
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
        let server = try FixtureServer(serving: dir)
        defer { server.stop() }

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
}
