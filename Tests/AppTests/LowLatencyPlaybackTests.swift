import Foundation
import HLS
import Origin
import Testing

enum LowLatencyOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

@Suite("LL-HLS through hlstui: blocking reloads, delta updates and parts upstream; the playhead at PART-HOLD-BACK", .serialized)
struct LowLatencyPlaybackTests {
    @Test("--no-parts on the origin's ll-ts: reloads block for the next segment and ask for deltas; no error, no stall")
    func directives() async throws {
        let state = LowLatencyOrigin.state
        let mark = state.log().count
        // One rung: the first reload of a rung has no playlist of the player's to take a delta against or block after, so a
        // switch before the first reload would leave a 12 s run with nothing to see.
        let r = try await MonitorRun.run(["\(LowLatencyOrigin.base)/ll-ts/master.m3u8", "--pin", "2", "--duration", "12", "--no-parts"])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(r.named("error").isEmpty && r.named("stall").isEmpty, "\(r.named("error")) \(r.named("stall"))")
        #expect(r.named("diagnostic").isEmpty, "\(r.named("diagnostic"))")
        let playing = r.named("player").filter { $0["state"] as? String == "playing" }
        #expect(playing.count >= 20, "\(playing.count) samples playing")
        let reloads = state.log(since: mark).map(\.path).filter { $0.contains("/index.m3u8?") }
        let all = state.log(since: mark).map(\.path).filter { $0.contains("index.m3u8") }
        #expect(reloads.contains { $0.contains("_HLS_msn=") }, "\(all)")
        #expect(reloads.contains { $0.contains("_HLS_skip=YES") }, "\(reloads)")
        // Each such reload is a `reload` event: the hold, and what the delta saved against the whole playlist.
        let events = r.named("reload")
        // (A reload the origin answered as the run ended may not have reached the monitor.)
        let asked = reloads.filter { $0.contains("_HLS_") }.count
        #expect(events.count == asked || events.count == asked - 1, "\(events.count) events, \(reloads)")
        // Every reload the player asks for after its first read carries directives.
        let playerReads = r.named("request").filter { $0["kind"] as? String == "media" && $0["prefetch"] as? Bool == false }
        #expect(
            events.count == playerReads.count || events.count == playerReads.count - 1,
            "\(events.count) reload events for \(playerReads.count) player reads; switches: \(r.named("variant"))")
        let deltas = events.filter { $0["delta"] as? Bool == true && ($0["skipped"] as? Int ?? 0) > 0 }
        #expect(!deltas.isEmpty && deltas.allSatisfy { ($0["savedBytes"] as? Int ?? 0) > 0 }, "\(events)")
        #expect(events.allSatisfy { ($0["holdMs"] as? Double ?? -1) >= 0 && $0["partTarget"] as? Double == 1 }, "\(events)")
    }

    @Test("--no-parts, a server whose delta updates skip wrongly: one line naming the mismatch, full playlists from then on")
    func wrongDelta() async throws {
        let state = LowLatencyOrigin.state
        let mark = state.log().count
        let r = try await MonitorRun.run([
            "\(LowLatencyOrigin.base)/ll-ts/v240/index.m3u8?llfault=badskip", "--duration", "12", "--no-parts",
        ])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        let lines = r.named("diagnostic").compactMap { $0["message"] as? String }.filter { $0.contains("delta update") }
        #expect(lines.count == 1, "\(r.named("diagnostic"))")
        #expect(lines.first?.contains("the full playlist had") == true, "\(lines)")
        #expect(r.named("error").isEmpty && r.named("stall").isEmpty)
        // After the refusal no delta is asked for again.
        let reloads = state.log(since: mark).map(\.path).filter { $0.contains("index.m3u8") }
        let skips = reloads.filter { $0.contains("_HLS_skip=YES") }
        #expect(skips.count == 1, "\(reloads)")
        let playing = r.named("player").filter { $0["state"] as? String == "playing" }
        #expect(playing.count >= 20)
    }
    @Test(
        "starts PART-HOLD-BACK behind the last part, stays within a part target of it; a switch at the edge; no stall",
        // The -fast streams (a second behind the edge) are measured over ten minutes on a quiet machine (BENCHMARKS.md, "LL-HLS
        // latency"): here, beside the suite's other players, a second of buffer measures the scheduler.
        arguments: ["ll-ts", "ll-fmp4"])
    func nearTheEdge(scenario: String) async throws {
        let state = LowLatencyOrigin.state
        let mark = state.log().count
        // A switch at the edge, at 9 s: on MPEG-TS a splice (a reload would restart the player for nothing: the splice takes
        // effect at the same boundary).
        let dir = try CLI.directory(["cmds": "9 pin 0\n"])
        let r = try await MonitorRun.run(
            [
                "\(LowLatencyOrigin.base)/\(scenario)/master.m3u8", "--pin", "2", "--duration", "20", "--verbose", "--commands",
                dir.appendingPathComponent("cmds").path,
            ])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(r.named("error").isEmpty && r.named("stall").isEmpty, "\(r.named("error")) \(r.named("stall"))")
        // The origin's loop (every 20 s): ll-ts's timeline goes on across it; ll-fmp4's is a discontinuity the pane crosses by a
        // reload at the break. Nothing dropped either way.
        let skipped = r.named("skip").compactMap { $0["seconds"] as? Double }
        #expect(skipped.allSatisfy { $0 < 0.05 }, "\(r.named("skip"))")
        let said = r.named("log").compactMap { $0["text"] as? String }
        // PART-HOLD-BACK 3 s of 1 s parts.
        let holdBack = 3.0
        #expect(
            said.contains { $0.hasPrefix("low latency: starting \(fixed(holdBack, 1)) s (PART-HOLD-BACK) behind the last part") },
            "\(said)")
        // Glass to glass: the origin's PDT is its wall clock, so the sample's wall clock minus the playhead's PDT is the
        // latency the origin's truth gives.
        let playing = r.named("player").filter { $0["state"] as? String == "playing" }
        let latencies = playing.compactMap { $0["pdtLatency"] as? Double }
        #expect(latencies.count >= 40, "\(latencies.count) samples with a latency")
        let sorted = latencies.sorted()
        #expect(sorted[sorted.count / 2] <= holdBack + 1, "median \(sorted[sorted.count / 2]) s: \(latencies)")
        #expect((sorted.last ?? 99) <= holdBack + 2, "\(latencies)")
        // Parts asked for as published: listed or hinted, and blocking reloads for parts.
        let paths = state.log(since: mark).map(\.path)
        #expect(paths.contains { $0.range(of: #"/s\d+\.\d+\.(ts|m4s)$"#, options: .regularExpression) != nil }, "\(paths.suffix(20))")
        #expect(paths.contains { $0.contains("_HLS_part=") }, "\(paths.suffix(20))")
        let parts = r.named("request").filter { $0["kind"] as? String == "part" }
        #expect(!parts.isEmpty && parts.allSatisfy { $0["status"] as? Int == 200 }, "\(parts.prefix(3))")
        // The segments the player read as they were published: paced, so the switching rules never took them for slow ones.
        let paced = r.named("request").filter { $0["kind"] as? String == "segment" && $0["paced"] as? Bool == true }
        #expect(paced.count >= 3, "\(paced.count) paced segments")
        // The switch at 9 s, at the edge: to 144p, on screen without a stall (checked above).
        let pinned = r.named("variant").filter { $0["to"] as? Int == 0 && $0["reason"] as? String == "manual" }
        // MPEG-TS: a splice; fMP4 (no splice): a reload at the next boundary.
        let mechanism = scenario.hasPrefix("ll-ts") ? "splice" : "reload@boundary"
        #expect(pinned.count == 1 && pinned.first?["mechanism"] as? String == mechanism, "\(r.named("variant"))")
        let after = playing.filter { ($0["t"] as? Double ?? 0) > 16 }
        #expect(!after.isEmpty && after.allSatisfy { $0["height"] as? Int == 144 }, "\(after.map { $0["height"] ?? "nil" })")
    }
}
