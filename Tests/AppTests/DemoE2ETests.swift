import Foundation
import Origin
import Testing

@Suite("The demo and cameras a newcomer watches first: across their loop points nothing is skipped, nothing restarts")
struct DemoE2ETests {
    @Test("monitor on the demo for 24 s (a loop point crossed): skips 0, no stall, the player never restarts, no warning")
    func acrossTheLoop() async throws {
        let state = AppOrigin.state
        let mark = state.log().count
        let r = try await MonitorRun.run(["\(AppOrigin.base)/demo/master.m3u8", "--duration", "24"])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        // The run crossed the loop: a segment at a loop point (every tenth) after the first segment it read.
        let read = state.log(since: mark).filter { $0.scenario == "demo" && $0.kind == "segment" }.compactMap(\.msn)
        #expect(read.dropFirst().contains { $0 % 10 == 0 }, "\(read)")
        #expect(r.named("skip").isEmpty, "\(r.named("skip"))")
        #expect(r.named("stall").isEmpty, "\(r.named("stall"))")
        let states = Set(r.named("player").compactMap { $0["state"] as? String })
        #expect(!states.contains("restarting"), "\(states)")
        #expect(r.named("diagnostic").isEmpty && r.named("error").isEmpty, "\(r.named("diagnostic")) \(r.named("error"))")
        let end = try #require(r.named("end").first?["summary"] as? [[String: Any]])
        #expect(end.first?["skips"] as? Int == 0)
    }

    @Test("the cameras across their loop points (26 s, each alone in its process): skips 0, no restart, no packet marked corrupt")
    func camerasAcrossTheLoop() async throws {
        let state = AppOrigin.state
        let mark = state.log().count
        // One process per camera: FFmpeg's lines reach the first player of a process only (docs/MESSAGES.md), so each run's are
        // its own camera's.
        async let a = MonitorRun.run(["\(AppOrigin.base)/cam-a/cam-a/index.m3u8", "--duration", "26", "--verbose"])
        async let b = MonitorRun.run(["\(AppOrigin.base)/cam-b/cam-b/index.m3u8", "--duration", "26", "--verbose"])
        for (camera, loop, r) in [("cam-a", 12, try await a), ("cam-b", 8, try await b)] {
            #expect(r.status == 0, "\(camera): \(r.stderr.suffix(300))")
            let read = state.log(since: mark).filter { $0.scenario == camera && $0.kind == "segment" }.compactMap(\.msn)
            #expect(read.dropFirst().contains { $0 % loop == 0 }, "\(camera) crossed no loop point: \(read)")
            #expect(r.named("skip").isEmpty && r.named("stall").isEmpty, "\(camera): \(r.named("skip")) \(r.named("stall"))")
            #expect(!r.named("player").contains { $0["state"] as? String == "restarting" }, "\(camera) restarted")
            let lines = r.named("log").compactMap { $0["text"] as? String }
            #expect(!lines.contains { $0.contains("Packet corrupt") || $0.contains("timestamp reset") }, "\(camera): \(lines)")
        }
    }
}
