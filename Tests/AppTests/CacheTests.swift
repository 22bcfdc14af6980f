import Foundation
import Origin
import Testing

/// An origin of its own: the cache suite stops it to play offline.
enum CacheOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

@Suite("--cache and --offline: what played once plays again without the origin", .serialized)
struct CacheTests {
    /// Each run keeps its vault key in a directory of its own (never the user's).
    static func setting() throws -> (dir: String, env: [String: String]) {
        let d = try CLI.directory([:]).path
        return (d + "/cache", ["XDG_DATA_HOME": d + "/data"])
    }

    static func segmentPaths(since mark: Int) -> [String] {
        CacheOrigin.state.log(since: mark).filter { $0.path.hasSuffix(".ts") }.map { "\($0.path) \($0.range ?? "-")" }
    }

    @Test("kill -9 mid-segment, then a new run asks only for the bytes that segment lacked")
    func killedMidSegment() async throws {
        let state = CacheOrigin.state
        defer { state.clearFaults() }
        let (cache, env) = try Self.setting()
        // Segment 3 stops after a quarter of its body: the session is killed while it waits for the rest.
        _ = state.add(
            Fault(
                id: 0, kind: .stall, target: .segment, status: 200, ms: 0, scenario: "vod-ts", rendition: "v144", msn: 3, remaining: 1,
                since: 0))
        let mark = state.log().count
        let url = "\(CacheOrigin.base)/vod-ts/master.m3u8"
        let died = try await CLI.killed(
            ["monitor", url, "--pin", "0", "--video", "none", "--cache-dir", cache], environment: env,
            when: { state.log(since: mark).contains { $0.path.hasSuffix("v144/seg3.ts") } }, settle: .milliseconds(500))
        #expect(died)
        state.clearFaults()
        let before = Self.segmentPaths(since: mark)
        #expect(before.contains("/vod-ts/v144/seg3.ts bytes=0-"), "\(before)")
        let again = state.log().count
        let r = try await MonitorRun.run([url, "--pin", "0", "--duration", "6", "--cache-dir", cache], environment: env)
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        let seg3 = try #require(r.named("request").first { ($0["url"] as? String)?.hasSuffix("v144/seg3.ts") == true })
        let saved = seg3["savedBytes"] as? Int ?? 0
        #expect(seg3["cache"] as? String == "resumed" && saved > 0, "\(seg3)")
        let asked = Self.segmentPaths(since: again)
        #expect(asked.first == "/vod-ts/v144/seg3.ts bytes=\(saved)-", "only the rest of segment 3 first: \(asked)")
        #expect(!asked.contains { $0.contains("seg0.ts") || $0.contains("seg1.ts") || $0.contains("seg2.ts") }, "\(asked)")
        #expect(
            r.named("request").filter {
                ["seg0.ts", "seg1.ts", "seg2.ts"].contains(($0["url"] as? String)?.split(separator: "/").last ?? "")
            }
            .allSatisfy { $0["cache"] as? String == "hit" })
    }

    @Test("a VOD played with --cache plays again with no segment request upstream, then --offline with the origin stopped")
    func secondPlayAndOffline() async throws {
        let (cache, env) = try Self.setting()
        let url = "\(CacheOrigin.base)/vod-ts/master.m3u8"
        let first = try await MonitorRun.run([url, "--pin", "0", "--cache-dir", cache], environment: env)
        #expect(first.status == 0 && !first.named("ended").isEmpty, "\(first.stderr.suffix(300))")
        let mark = CacheOrigin.state.log().count
        let second = try await MonitorRun.run([url, "--pin", "0", "--cache-dir", cache], environment: env)
        #expect(second.status == 0 && !second.named("ended").isEmpty)
        #expect(Self.segmentPaths(since: mark).isEmpty, "segments asked of the origin again: \(Self.segmentPaths(since: mark))")
        let segments = second.named("request").filter { $0["kind"] as? String == "segment" }
        #expect(!segments.isEmpty && segments.allSatisfy { $0["cache"] as? String == "hit" && ($0["savedBytes"] as? Int ?? 0) > 0 })
        CacheOrigin.server.stop()
        let offline = try await MonitorRun.run([url, "--pin", "0", "--offline", "--cache-dir", cache], environment: env)
        #expect(offline.status == 0 && !offline.named("ended").isEmpty, "\(offline.stderr.suffix(300))")
        #expect(offline.named("stall").isEmpty && offline.named("error").isEmpty)
        let summary = try #require((offline.named("end").first?["summary"] as? [[String: Any]])?.first)
        #expect(summary["segments"] as? Int == segments.count, "\(summary)")
        // A stream never played: one line (the URL is the one the user typed), and the request names it.
        let never = try await MonitorRun.run(
            ["\(CacheOrigin.base)/vod-fmp4/master.m3u8", "--offline", "--cache-dir", cache, "--duration", "5"], environment: env)
        #expect(never.status != 0)
        let said = never.named("error").compactMap { $0["message"] as? String }
        #expect(said == ["cannot open the stream: not in the cache (--offline plays only what the cache holds)"], "\(said)")
        #expect(
            never.named("request").contains {
                ($0["error"] as? String)?.hasPrefix("\(CacheOrigin.base)/vod-fmp4/master.m3u8: not in the cache") == true
            })
    }
}
