import Foundation
import Origin
import Testing

/// An origin of its own: the progressive suite switches faults on and stops nothing else's.
enum ProgressiveOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }

    /// The origin's requests for progressive files since `mark`, as `path range`.
    static func fileRequests(since mark: Int) -> [String] {
        state.log(since: mark).filter { $0.path.hasPrefix("/progressive/") }.map { "\($0.path) \($0.range ?? "-")" }
    }
}

@Suite("Progressive MP4 through the Loader: plays by ranges, the span cache, --offline, resume after kill -9", .serialized)
struct ProgressiveTests {
    static func fileRequests(_ r: MonitorRun) -> [[String: Any]] { r.named("request").filter { $0["kind"] as? String == "file" } }
    /// How far into the file the playhead got.
    static func played(_ r: MonitorRun) -> Double { r.named("player").compactMap { $0["position"] as? Double }.max() ?? 0 }

    @Test(
        "a plain .mp4 URL plays to its end through the Loader: moov at the front, at the end (named, a second round trip), fragmented",
        arguments: ["faststart", "moov-end", "fragmented"])
    func plays(_ name: String) async throws {
        let url = "\(ProgressiveOrigin.base)/progressive/\(name).mp4"
        let mark = ProgressiveOrigin.state.log().count
        let r = try await MonitorRun.run([url])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(r.named("error").isEmpty, "\(r.named("error"))")
        #expect(!r.named("ended").isEmpty, "played to the end")
        let ladder = try #require(r.named("ladder").first)
        #expect(ladder["file"] as? Bool == true)
        // The player read the file through the Loader, by ranges: every origin request was one the Loader made.
        let requests = Self.fileRequests(r)
        #expect(
            !requests.isEmpty
                && requests.allSatisfy { ($0["range"] as? String)?.hasPrefix("bytes=") == true && $0["status"] as? Int == 206 })
        let asked = ProgressiveOrigin.fileRequests(since: mark)
        #expect(asked.count == requests.count, "\(asked)")
        #expect(asked.allSatisfy { $0.hasPrefix("/progressive/\(name).mp4 bytes=") }, "\(asked)")
        // The playhead crossed the file on the file's own timeline: positions from 0 to its length (20 s).
        #expect(Self.played(r) > 15, "\(Self.played(r))")
        let notes = r.named("diagnostic").compactMap { $0["message"] as? String }
        #expect(notes.contains { $0.contains("moov at the end") } == (name == "moov-end"), "\(notes)")
    }

    @Test("with --cache a second play asks the origin nothing; --offline plays it; a file never played is one line")
    func cached() async throws {
        let dir = try CLI.directory([:]).path
        let env = ["XDG_DATA_HOME": dir + "/data"]
        let url = "\(ProgressiveOrigin.base)/progressive/moov-end.mp4"
        let first = try await MonitorRun.run([url, "--cache-dir", dir + "/cache"], environment: env)
        #expect(first.status == 0 && !first.named("ended").isEmpty, "\(first.stderr.suffix(300))")
        let mark = ProgressiveOrigin.state.log().count
        // The first play read the whole file; the next ones play a while from the cache.
        let second = try await MonitorRun.run([url, "--cache-dir", dir + "/cache", "--duration", "6"], environment: env)
        #expect(second.status == 0 && Self.played(second) > 3, "\(second.stderr.suffix(300))")
        #expect(ProgressiveOrigin.fileRequests(since: mark).isEmpty, "\(ProgressiveOrigin.fileRequests(since: mark))")
        let hits = Self.fileRequests(second)
        #expect(!hits.isEmpty && hits.allSatisfy { $0["cache"] as? String == "hit" && ($0["savedBytes"] as? Int ?? 0) > 0 })
        let offline = try await MonitorRun.run([url, "--offline", "--cache-dir", dir + "/cache", "--duration", "6"], environment: env)
        #expect(offline.status == 0 && Self.played(offline) > 3 && offline.named("error").isEmpty, "\(offline.stderr.suffix(300))")
        #expect(ProgressiveOrigin.fileRequests(since: mark).isEmpty)
        let never = try await MonitorRun.run(
            ["\(ProgressiveOrigin.base)/progressive/faststart.mp4", "--offline", "--cache-dir", dir + "/cache", "--duration", "5"],
            environment: env)
        #expect(never.status != 0)
        let said = never.named("error").compactMap { $0["message"] as? String }
        #expect(
            said == ["cannot open the stream: bytes=0-65535 not in the cache (--offline plays only what the cache holds)"], "\(said)")
    }

    @Test("a recorded progressive session replays with the origin out of the loop: the same ranges, each answered as recorded")
    func replayed() async throws {
        let file = try CLI.directory([:]).path + "/progressive.sqlite"
        let url = "\(ProgressiveOrigin.base)/progressive/moov-end.mp4"
        let recorded = try await MonitorRun.run([url, "--duration", "6", "--record", file])
        #expect(recorded.status == 0, "\(recorded.stderr.suffix(300))")
        let mark = ProgressiveOrigin.state.log().count
        let replayed = try await MonitorRun.run(["--json", "--duration", "6"], command: ["replay", file])
        #expect(replayed.status == 0 && replayed.named("error").isEmpty, "\(replayed.stderr.suffix(300))")
        #expect(ProgressiveOrigin.fileRequests(since: mark).isEmpty, "the replay asked the origin")
        // Every range the replay was asked for is one the recording holds, answered with the recorded status — or one the
        // recording never asked whose bytes it holds, cut from them and said as a divergence. Not the same list: the player
        // reads `moov` on a second connection while the first still reads, and how far the first gets before it is dropped
        // depends on timing (one run asked 786432- as well as 786480-, the next did not) — the replay answers what the
        // player asks, it cannot make mpv ask the same.
        func ranges(_ r: MonitorRun) -> [String] { Self.fileRequests(r).map { "\($0["range"] ?? "-") \($0["status"] ?? "-")" }.sorted() }
        let held = Set(ranges(recorded))
        let said = replayed.named("divergence").compactMap { $0["message"] as? String }
        let unrecorded = ranges(replayed).filter { !held.contains($0) }
        #expect(!held.isEmpty && !ranges(replayed).isEmpty, "\(ranges(replayed)) vs \(ranges(recorded))")
        for r in unrecorded {
            let range = String(r.split(separator: " ")[0])
            #expect(
                r.hasSuffix(" 206")
                    && said.contains { $0.contains("(\(range)), which the recording never asked: answered from the bytes it recorded") },
                "\(r) not recorded; said: \(said)")
        }
        #expect(Self.played(replayed) > 3)
    }

    @Test("kill -9 mid-download, then a new run asks the origin only for the bytes the file lacked")
    func killedMidDownload() async throws {
        let state = ProgressiveOrigin.state
        defer { state.clearFaults() }
        let dir = try CLI.directory([:]).path
        let env = ["XDG_DATA_HOME": dir + "/data"]
        // The file's first range stops after a quarter of its body: the session is killed while it waits for the rest.
        _ = state.add(
            Fault(
                id: 0, kind: .stall, target: .segment, status: 200, ms: 0, scenario: "progressive", rendition: "faststart.mp4", msn: nil,
                remaining: 1, since: 0))
        let mark = state.log().count
        let url = "\(ProgressiveOrigin.base)/progressive/faststart.mp4"
        // Settled longer than the cache takes to record what arrived (0.2 s).
        let died = try await CLI.killed(
            ["monitor", url, "--video", "none", "--cache-dir", dir + "/cache"], environment: env,
            when: { !ProgressiveOrigin.fileRequests(since: mark).isEmpty }, settle: .milliseconds(700))
        #expect(died)
        state.clearFaults()
        #expect(ProgressiveOrigin.fileRequests(since: mark) == ["/progressive/faststart.mp4 bytes=0-65535"])
        let again = state.log().count
        let r = try await MonitorRun.run([url, "--cache-dir", dir + "/cache"], environment: env)
        #expect(r.status == 0 && !r.named("ended").isEmpty, "\(r.stderr.suffix(300))")
        // A quarter of the first 64 kB arrived before the stall: the new run starts after it.
        let asked = ProgressiveOrigin.fileRequests(since: again)
        #expect(asked.first == "/progressive/faststart.mp4 bytes=16384-65535", "\(asked)")
        #expect(!asked.contains { $0.contains("bytes=0-") }, "\(asked)")
        let held = try #require(Self.fileRequests(r).first)
        #expect(held["cache"] as? String == "hit" && held["range"] as? String == "bytes=0-16383", "\(held)")
    }
}
