import Foundation
import Origin
import Testing

/// An origin of its own: these tests break its bodies.
enum ResumeE2EOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

@Suite("Bodies that break mid-way, with real mpv: nothing skipped, every segment whole, the stalls named", .serialized)
struct ResumeE2ETests {
    var state: OriginState { ResumeE2EOrigin.state }

    func fault(_ scenario: String, _ kind: Fault.Kind, msn: Int?, bytes: Int?, count: Int, hold: Double? = nil) {
        var f = Fault(
            id: 0, kind: kind, target: .segment, status: 200, ms: 0, scenario: scenario, rendition: "v144", msn: msn, remaining: count,
            since: 0)
        f.bytes = bytes
        f.hold = hold
        _ = state.add(f)
    }

    @Test(
        "VOD pinned to 144p: a body cut twice, one stalled and closed, one reset three times, one resumed from an origin that ignores Range",
        arguments: ["vod-ts", "vod-fmp4", "aes-vod"])
    func vod(scenario: String) async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        fault(scenario, .truncate, msn: 3, bytes: 30_000, count: 2)
        fault(scenario, .stall, msn: 5, bytes: 8192, count: 1, hold: 3)
        fault(scenario, .truncate, msn: 7, bytes: 1000, count: 3)
        fault(scenario, .truncate, msn: 8, bytes: 20_000, count: 1)
        fault(scenario, .norange, msn: 8, bytes: nil, count: 1)
        let r = try await MonitorRun.run(["\(ResumeE2EOrigin.base)/\(scenario)/master.m3u8", "--pin", "0", "--duration", "45"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        #expect(r.named("skip").isEmpty, "\(r.named("skip"))")
        #expect(r.named("end").first?["state"] as? String == "ended" || !r.named("ended").isEmpty, "\(r.named("end"))")
        let resumes = r.named("resume")
        let resumed = Set(resumes.filter { $0["phase"] as? String == "resumed" }.compactMap { $0["msn"] as? Int })
        #expect(resumed == [3, 5, 7, 8], "\(resumes.map { $0["message"] ?? "" })")
        #expect(!resumes.contains { $0["phase"] as? String == "gaveUp" }, "\(resumes)")
        // Every segment the player read is the origin's whole file.
        let segments = r.named("request").filter { $0["kind"] as? String == "segment" && $0["rung"] as? Int == 0 }
        #expect(segments.count >= 10, "\(segments.count) segments")
        for s in segments {
            let url = try #require(s["url"] as? String)
            let whole = try await CLI.tool("curl", ["-s", url])
            #expect(
                [200, 206].contains(s["status"] as? Int ?? 0) && s["bytes"] as? Int == whole.count,
                "\(url): \(s["bytes"] ?? "-") of \(whole.count)")
        }
        // A stall, if the player's buffer ran out while a body was resumed, names the break.
        for stall in r.named("stall") {
            #expect((stall["cause"] as? String)?.contains("origin body") == true, "\(stall)")
        }
    }

    @Test("live, pinned to 144p: the first two segment bodies cut after 20 KB are resumed; none skipped for it")
    func live() async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        fault("live-ts", .truncate, msn: nil, bytes: 20_000, count: 2)
        let r = try await MonitorRun.run(["\(ResumeE2EOrigin.base)/live-ts/master.m3u8", "--pin", "0", "--duration", "10"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let phases = r.named("resume").compactMap { $0["phase"] as? String }
        #expect(phases.contains("resumed") && !phases.contains("gaveUp"), "\(r.named("resume"))")
        // The origin's loop resets timestamps (a skip with that cause); no skip for a failed segment.
        #expect(!r.named("skip").contains { ($0["cause"] as? String)?.contains("failed") == true }, "\(r.named("skip"))")
        let failed = r.named("request").filter { $0["kind"] as? String == "segment" && $0["error"] as? String != nil }
        #expect(failed.isEmpty, "\(failed)")
    }
}
