import Foundation
import Origin
import Testing

/// An origin of its own (its faults touch no other suite), serving the same media as the shared one.
enum OutageOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

/// A second host for the redundant-streams case: another origin on its own port with the same clock (live windows line up).
enum OutageOriginB {
    static let server = AppOrigin.own()
}

/// Origins that fail the way CDNs do: hlstui never crashes, names every failure in an event, fails over, recovers by itself.
@Suite("Origin outages: no crash, one event per failure, failover to another rung, recovery without a person", .serialized)
struct OutageTests {
    var base: String { OutageOrigin.base }
    var state: OriginState { OutageOrigin.state }

    /// What runs beside a monitor run: every `scenario` request (of `target`) answers 503 from `after` seconds into the run
    /// for `seconds`.
    static func outage(
        _ state: OriginState, after: Double, for seconds: Double, target: Fault.Target, on scenario: String
    ) -> @Sendable () async -> Void {
        {
            try? await Task.sleep(for: .seconds(after))
            let start = Date().timeIntervalSince1970
            _ = state.add(
                Fault(
                    id: 0, kind: .status, target: target, status: 503, ms: 0, scenario: scenario, rendition: nil, msn: nil, remaining: nil,
                    since: start, until: start + seconds))
        }
    }

    struct Case: CustomStringConvertible, Sendable {
        var target: Fault.Target
        var kind: Fault.Kind
        var status: Int
        var scenario: String
        var description: String { "\(target.rawValue) \(kind == .status ? String(status) : kind.rawValue) on \(scenario)" }
    }

    /// Each resource kind × each way it can fail; the fault hits the first three requests of that kind (a 5xx outlasts the
    /// Loader's two retries).
    static let matrix: [Case] = [Fault.Target.playlist, .segment, .initSection, .key].flatMap { target -> [Case] in
        let scenario = target == .initSection ? "vod-fmp4" : target == .key ? "aes-vod" : "vod-ts"
        return [
            Case(target: target, kind: .status, status: 404, scenario: scenario),
            Case(target: target, kind: .status, status: 503, scenario: scenario),
            Case(target: target, kind: .truncate, status: 200, scenario: scenario),
        ]
    }

    @Test("fault matrix: every resource kind × 404, 503, truncated body — hlstui exits normally and names the failure", arguments: matrix)
    func faultMatrix(_ c: Case) async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        // Keys are fetched four at a time at open: enough failures that one key fails for good, not only retried.
        let remaining = c.target == .key ? 12 : 3
        _ = state.add(
            Fault(
                id: 0, kind: c.kind, target: c.target, status: c.status, ms: 0, scenario: c.scenario, rendition: nil, msn: nil,
                remaining: remaining, since: 0))
        let r = try await MonitorRun.run(["\(base)/\(c.scenario)/master.m3u8", "--duration", "5"])
        #expect([0, 1, 2].contains(r.status), "\(c): a documented exit status, not a crash (\(r.status)): \(r.stderr.suffix(400))")
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtrace"), "\(c): \(r.stderr.suffix(400))")
        #expect(r.named("end").count == 1, "\(c): the session ended with its summary")
        // The failure is named: a request event with its error, an error event, a diagnostic, a failover, or a body's break
        // and its resumption.
        let named =
            r.named("request").contains { ($0["error"] as? String).map { !$0.isEmpty && $0 != "GAP" } ?? false }
            || !r.named("error").isEmpty || !r.named("diagnostic").isEmpty || !r.named("failover").isEmpty
            || !r.named("resume").isEmpty
        #expect(named, "\(c): no event names the failure")
        // A media body cut after its head went out is resumed: the player gets all of it, nothing is skipped.
        if c.kind == .truncate, c.target == .segment || c.target == .initSection {
            let phases = r.named("resume").compactMap { $0["phase"] as? String }
            #expect(phases.contains("resumed") && !phases.contains("gaveUp"), "\(c): \(r.named("resume"))")
            #expect(r.named("skip").isEmpty, "\(c): \(r.named("skip"))")
        }
        if r.status == 2 {
            #expect(r.named("error").contains { ($0["message"] as? String)?.isEmpty == false }, "\(c): why it could not start")
        }
    }

    @Test("the top rung answers 503 for 3 s while pinned: no crash, its segments come from another rung, it is used again once it answers")
    func rungOutage() async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        let state = self.state
        let r = try await MonitorRun.run(
            ["\(base)/vod-ts/master.m3u8", "--pin", "2", "--rate", "10", "--duration", "14"],
            before: {
                _ = state.add(
                    Fault(
                        id: 0, kind: .status, target: .segment, status: 503, ms: 0, scenario: "vod-ts", rendition: "v360", msn: nil,
                        remaining: nil, since: 0, until: Date().timeIntervalSince1970 + 3))
            })
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let failovers = r.named("failover")
        #expect(!failovers.isEmpty && failovers.allSatisfy { $0["failedRung"] as? Int == 2 && $0["by"] as? Int == 1 }, "\(failovers)")
        #expect(failovers.allSatisfy { ($0["cause"] as? String)?.contains("HTTP 503") == true })
        #expect(r.named("variant").contains { $0["reason"] as? String == "failover" })
        let recovered = try #require(r.named("recovered").first { $0["rung"] as? Int == 2 }, "the rung is used again once it answers")
        let back = recovered["t"] as? Double ?? .infinity
        let served = r.named("request").filter {
            $0["kind"] as? String == "segment" && $0["rung"] as? Int == 2 && ($0["t"] as? Double ?? 0) >= back - 0.1
        }
        #expect(
            !served.isEmpty && served.allSatisfy { [200, 206].contains($0["status"] as? Int ?? 0) },
            "segments of rung 2 after it answers: \(served.count)")
        #expect(r.named("stall").isEmpty, "another rung had the media: no freeze")
        let heights = r.named("player").compactMap { $0["height"] as? Int }
        #expect(heights.contains(240), "the failover rung was decoded: \(heights.suffix(20))")
        // The failed rung was not asked every time: a doubling backoff (at most ~4 tries in 6 s, not one per segment).
        let asked = state.log().filter { $0.scenario == "vod-ts" && $0.rendition == "v360" && $0.status == 503 }
        #expect(asked.count <= 5, "requests to the failed rung during its outage: \(asked.count)")
    }

    @Test("a live camera whose playlists and segments answer 503 for 8 s: a stall with its cause, then playing again by itself")
    func liveOutage() async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        let state = self.state
        let r = try await MonitorRun.run(
            ["\(base)/cam-a/cam-a/index.m3u8", "--rate", "4", "--duration", "30"],
            alongside: Self.outage(state, after: 4, for: 8, target: .any, on: "cam-a"))
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let stalls = r.named("stall")
        let ended = try #require(stalls.last { $0["end"] is Double }, "the stall ended: \(stalls)")
        #expect((ended["cause"] as? String)?.contains("HTTP 503") == true, "\(ended)")
        let players = r.named("player")
        #expect(!players.contains { $0["state"] as? String == "paused" }, "a freeze is never shown as a pause")
        let after = players.filter { ($0["t"] as? Double ?? 0) > 24 }
        #expect(
            !after.isEmpty && after.allSatisfy(MonitorRun.moving), "playing again: \(after.map { $0["state"] ?? "" })")
        // What counts is that media time moves forward after the recovery.
        let times = after.compactMap { $0["timePos"] as? Double }
        let advanced = zip(times, times.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
        #expect(times.count >= 4 && advanced > 2, "time advances after the recovery: \(times)")
        let summary = try #require((r.named("end").first?["summary"] as? [[String: Any]])?.first)
        #expect((summary["stalls"] as? Int ?? 0) >= 1)
    }

    @Test(
        "redundant streams: host A answers 503 to everything for 8 s; the copy on host B is a pathway: moved to without a stall, A retested once after 30 s and used again"
    )
    func redundantHosts() async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        let a = base, b = OutageOriginB.server.httpBase
        let inf = "#EXT-X-STREAM-INF:BANDWIDTH=494064,CODECS=\"avc1.4d401e,mp4a.40.2\",RESOLUTION=426x240,FRAME-RATE=30\n"
        let master =
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n" + inf + "\(a)/live-ts/v240/index.m3u8\n" + inf
            + "\(b)/live-ts/v240/index.m3u8\n"
        let dir = try CLI.directory(["master.m3u8": master])
        let fixture = try await FixtureServer.start(serving: dir)
        defer { fixture.kill() }
        let state = self.state
        let (pathA, pathB) = ("127.0.0.1-\(OutageOrigin.server.httpPort)", "127.0.0.1-\(OutageOriginB.server.httpPort)")
        let r = try await MonitorRun.run(
            ["\(fixture.base)/master.m3u8", "--duration", "42"],
            alongside: Self.outage(state, after: 4, for: 8, target: .any, on: "live-ts"))
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        #expect(r.named("stall").isEmpty, "host B had the media: no freeze: \(r.named("stall"))")
        #expect(
            r.named("diagnostic").filter { ($0["message"] as? String)?.contains("reads rung 1's") == true }.count == 1,
            "the switch of host is said, once per outage")
        let moves = r.named("pathway").map { "\($0["to"] as? String ?? "?") (\($0["cause"] as? String ?? "?"))" }
        #expect(moves == ["\(pathB) (failure)", "\(pathA) (recovered)"], "\(r.named("pathway"))")
        let away = try #require(r.named("pathway").first?["t"] as? Double)
        let back = try #require(r.named("pathway").dropFirst().first?["t"] as? Double)
        // Penalised for 30 s (no steering server, no TTL: DECISIONS.md, content steering), then one retest that answers.
        #expect(back - away >= 29.5 && back - away <= 33, "back \(back - away) s after the move")
        let toA = r.named("request").compactMap { e -> Double? in
            guard let u = e["url"] as? String, u.hasPrefix(a), let t = e["t"] as? Double, t > away + 1, t < back else { return nil }
            return t
        }
        #expect(toA.count <= 1, "requests to the penalised copy between retests: \(toA)")
        let playing = r.named("player").filter { ($0["t"] as? Double ?? 0) > 6 && ($0["t"] as? Double ?? 0) < 40 }
        #expect(!playing.isEmpty && playing.allSatisfy(MonitorRun.moving), "\(playing.map { $0["state"] ?? "" })")
    }

    @Test(
        "a VOD whose segments all answer 503 for 6 s: the Loader holds and retries them, the player stalls with the cause and then plays every segment"
    )
    func vodOutage() async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        let state = self.state
        let r = try await MonitorRun.run(
            // Deutsch: audio a rendition of its own, whose segments are held and retried too.
            ["\(base)/vod-fmp4/master.m3u8", "--audio", "de", "--readahead", "4", "--duration", "45"],
            alongside: Self.outage(state, after: 2.5, for: 6, target: .segment, on: "vod-fmp4"))
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let players = r.named("player")
        #expect(!players.contains { $0["state"] as? String == "paused" }, "a freeze is never shown as a pause")
        // 4 s read ahead cannot cover 6 s without segments: one stall, named after the origin's answer.
        let stalls = r.named("stall").filter { $0["end"] is Double }
        #expect(!stalls.isEmpty && stalls.allSatisfy { ($0["cause"] as? String)?.contains("HTTP 503") == true }, "\(stalls)")
        let segments = r.named("request").filter { $0["kind"] as? String == "segment" }
        #expect(segments.contains { $0["status"] as? Int == 503 }, "the outage reached the Loader")
        #expect(r.named("diagnostic").contains { ($0["message"] as? String ?? "").contains("held and retried") })
        // No segment was skipped: every video and audio segment of the VOD reached the player in the end, and the stream ended.
        func served(_ pick: ([String: Any]) -> Bool) -> Set<Int> {
            Set(segments.filter { pick($0) && (200..<300).contains($0["status"] as? Int ?? 0) }.compactMap { $0["msn"] as? Int })
        }
        #expect(served { $0["rung"] is Int } == Set(0..<10), "video segments served: \(served { $0["rung"] is Int }.sorted())")
        #expect(served { ($0["url"] as? String ?? "").contains("/audio-") } == Set(0..<10), "audio segments served")
        #expect(r.named("ended").count == 1, "the VOD played to its end: \(players.suffix(3).map { $0["state"] ?? "" })")
    }
}
