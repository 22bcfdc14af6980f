import CMCD
import Foundation
import Origin
import Testing

/// An origin of its own: `/control/cmsd` changes what every answer of it says.
enum CMCDOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

/// CMCD sent and CMSD followed through real libmpv, held against what the embedded origin received (docs/CMCD.md).
@Suite("CMCD and CMSD through real libmpv: what hlstui sends is what the origin received, CTA-5004 clean; the server's cap followed")
struct CMCDE2ETests {
    static func cmcd(_ text: String?) -> CMCDData {
        CMCD.read(headers: [], url: "http://h/x?CMCD=" + CMCD.percentEncode(text ?? "")).data
    }

    @Test(
        "both modes: every request carries CMCD the origin reads clean, the same hlstui's log shows; measured keys on segments",
        arguments: ["query", "header"])
    func sent(mode: String) async throws {
        let r = try await MonitorRun.run([
            "\(CMCDOrigin.base)/vod-ts/master.m3u8", "--cmcd", mode, "--cmcd-content", "vod-ts", "--duration", "12",
        ])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let requests = r.named("request").filter { $0["local"] as? Bool != true }
        #expect(requests.count >= 10)
        // Every request hlstui made carried CMCD, and the origin's checker found nothing in any.
        #expect(requests.allSatisfy { $0["cmcd"] is String }, "\(requests.filter { !($0["cmcd"] is String) })")
        let findings = CMCDOrigin.state.log().filter { $0.cmcd != nil && !$0.cmcdFindings.isEmpty }
        #expect(findings.isEmpty, "\(findings.map { "\($0.path): \($0.cmcdFindings)" })")
        // What hlstui's log says it sent is what the origin received for that path (`CMCD=` taken off the path; the other
        // mode's run asks for the same paths).
        for e in requests {
            let url = try #require(e["url"] as? String)
            let path = URL(string: url).map { $0.path + ($0.query.map { "?" + $0 } ?? "") } ?? url
            let got = CMCDOrigin.state.log().filter { CMCD.removingQuery(from: $0.path) == path }.compactMap(\.cmcd)
            #expect(got.contains(e["cmcd"] as? String ?? "-"), "\(path): sent \(e["cmcd"] ?? "-"), the origin has \(got)")
        }
        let sent = requests.map { Self.cmcd($0["cmcd"] as? String) }
        // One session: one sid, the content ID given, HLS, VOD.
        #expect(Set(sent.compactMap { $0[.sid]?.text }).count == 1)
        #expect(sent.allSatisfy { $0[.cid] == .string("vod-ts") && $0[.sf] == .token("h") })
        #expect(sent.allSatisfy { $0[.st] == nil || $0[.st] == .token("v") })
        // The first requests are urgent (startup); later segments carry what the buffer and the network measured.
        #expect(sent.first?[.su] == .boolean(true) && sent.first?[.ot] == .token("m"))
        let ladder = try #require(r.named("ladder").first?["variants"] as? [[String: Any]])
        let kbps = Set(ladder.compactMap { $0["bandwidth"] as? Int }.map { ($0 + 500) / 1000 })
        let segments = zip(requests, sent).filter { $0.0["kind"] as? String == "segment" && $0.0["rung"] is Int }.map(\.1)
        #expect(segments.count >= 5)
        #expect(
            segments.allSatisfy { $0[.ot] == .token("av") && kbps.contains($0[.br]?.int ?? -1) }, "\(segments.map { CMCD.serialize($0) })")
        #expect(segments.allSatisfy { ($0[.d]?.int).map { abs($0 - 2000) <= 100 } ?? false })
        #expect(segments.contains { $0[.nor] != nil })
        let steady = segments.filter { $0[.su] == nil }
        #expect(
            !steady.isEmpty && steady.allSatisfy { $0[.bl] != nil && $0[.mtp] != nil && $0[.tb] != nil },
            "\(steady.map { CMCD.serialize($0) })")
    }

    @Test(
        "--cmsd-cap on live: the server suggests 300 kbps and hlstui switches under it, saying why; the suggestion stops and the cap lifts")
    func cap() async throws {
        let state = CMCDOrigin.state
        let since = state.log().count
        // 6 s after the first segment the origin starts to suggest 300 kbps, for 8 s.
        let control = Task {
            while !Task.isCancelled && !state.log(since: since).contains(where: { $0.kind == "segment" && $0.scenario == "live-ts" }) {
                try? await Task.sleep(for: .milliseconds(100))
            }
            try? await Task.sleep(for: .seconds(6))
            state.cmsdMaxKbps = 300
            try? await Task.sleep(for: .seconds(8))
            state.cmsdMaxKbps = nil
        }
        let r = try await MonitorRun.run(["\(CMCDOrigin.base)/live-ts/master.m3u8", "--cmsd-cap", "--duration", "36"])
        control.cancel()
        _ = await control.value
        state.cmsdMaxKbps = nil
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let ladder = try #require(r.named("ladder").first?["variants"] as? [[String: Any]])
        let bandwidth = ladder.map { $0["bandwidth"] as? Int ?? 0 }
        let switches = r.named("variant").filter { $0["reason"] as? String == "cmsd" }
        #expect(switches.count == 2, "\(r.named("variant"))")
        let down = try #require(switches.first), up = try #require(switches.last)
        #expect(bandwidth[down["to"] as? Int ?? 0] <= 300_000 && down["detail"] as? String == "CMSD mb 300kbps", "\(down)")
        #expect(bandwidth[up["to"] as? Int ?? 0] > 300_000 && up["detail"] as? String == "CMSD cap lifted", "\(up)")
        // Under the cap, the answers carried it.
        let capped = r.named("request").filter {
            (($0["cmsd"] as? [String: Any])?["dynamic"] as? [[String: Any]])?.first?["mb"] as? Int == 300
        }
        #expect(!capped.isEmpty)
    }
}
