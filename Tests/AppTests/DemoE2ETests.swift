import Foundation
import Origin
import Testing

@Suite("The demo a newcomer watches first: across its loop point nothing is skipped, nothing restarts")
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
}
