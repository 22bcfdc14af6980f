import CMCD
import Foundation
import Loader
import NIOPosix
import Origin
import TestSupport
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
        // This run's requests only: other suites send broken CMCD to the same origin on purpose.
        let mine = Set(requests.compactMap { ($0["cmcd"] as? String).flatMap { Self.cmcd($0)[.sid]?.text } })
        let findings = CMCDOrigin.state.log().filter { r in
            !r.cmcdFindings.isEmpty && mine.contains { sid in r.cmcd?.contains(#"sid="\#(sid)""#) == true }
        }
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
            // As long as the run waits for its player slot (an hour at most): until it plays, or until it is over and this task
            // cancelled.
            _ = await eventually(timeout: 3600, every: 0.1) {
                Task.isCancelled || state.log(since: since).contains { $0.kind == "segment" && $0.scenario == "live-ts" }
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

/// `hlstui proxy --players` in a real terminal: two players that send CMCD as hls.js does are drawn as panes of their own.
@Suite("hlstui proxy --players in tmux: each player that sends CMCD a pane of its own, q restores the terminal")
struct PlayersScreenE2ETests {
    var hlstui: String { CLI.binary.path }

    /// Plays like hls.js in query mode: the media playlist, then segments, each with its CMCD; `broken` reports a starvation a
    /// full buffer cannot have had, in a bitrate the ladder does not have.
    static func player(_ entry: String, sid: String, broken: Bool) async throws {
        let c = try UpstreamClient(group: MultiThreadedEventLoopGroup.singleton, options: UpstreamOptions())
        defer { c.shutdown() }
        let master = String(decoding: try await c.get(entry).body, as: UTF8.self)
        let media = try #require(master.split(separator: "\n").first { $0.hasPrefix("http") && $0.contains("/media/") }.map(String.init))
        let q = { (kv: String) in "?CMCD=" + CMCD.percentEncode(kv) }
        let text = String(decoding: try await c.get(media + q(#"ot=m,sf=h,sid="\#(sid)",st=v,su"#)).body, as: UTF8.self)
        for (i, seg) in text.split(separator: "\n").filter({ $0.hasPrefix("http") }).prefix(5).enumerated() {
            var kv = #"bl=\#(min(i + 1, 4) * 2000),br=277,d=2000,mtp=5000,ot=av,sf=h,sid="\#(sid)",st=v"#
            if i == 0 { kv += ",su" }
            if broken && i == 3 { kv = #"bl=4123,br=800,bs,ot=av,sid="\#(sid)""# }
            _ = try await c.get(String(seg) + q(kv))
        }
    }

    @Test("two players: their buffer, bitrate and throughput plotted, start and stalls counted, the broken one's findings named")
    func twoPlayers() async throws {
        let t = Tmux()
        await t.start("\(hlstui) proxy --players \(CMCDOrigin.base)/vod-ts/master.m3u8", width: 100, height: 24)
        var s = await t.wait { $0.contains("play: http://127.0.0.1:") && $0.contains("no player has sent CMCD yet") }
        #expect(t.alternateScreen && s.contains("0 players sending CMCD"), "\(s)")
        let entry = try #require(
            s.split(separator: "\n").first { $0.contains("play: ") }.map { String($0.split(separator: " ").last ?? "") })
        async let a: Void = Self.player(entry, sid: "clean-1", broken: false)
        async let b: Void = Self.player(entry, sid: "broken-2", broken: true)
        _ = try await (a, b)
        s = await t.wait { $0.contains("player broken-2") && $0.contains("player clean-1") && $0.contains("stalls 1") }
        #expect(s.contains("2 players sending CMCD") && s.contains("6 requests"), "\(s)")
        let clean = try #require(s.components(separatedBy: "player clean-1").last)
        #expect(clean.contains("started ") && clean.contains("stalls 0") && clean.contains("CTA-5004: nothing to say"), "\(s)")
        let broken = try #require(s.components(separatedBy: "player broken-2").last?.components(separatedBy: "player clean-1").first)
        #expect(broken.contains("stalls 1") && broken.contains("bitrate 1, rounding 1, starvation 1"), "\(s)")
        // Plotted: a block character on each of the three rows of a pane.
        let plots = s.split(separator: "\n").filter {
            $0.hasPrefix(" buffer  ") || $0.hasPrefix(" bitrate ") || $0.hasPrefix(" throughput")
        }
        #expect(plots.count == 6 && plots.allSatisfy { $0.contains { "▁▂▃▄▅▆▇█".contains($0) } }, "\(plots)")
        #expect(s.split(separator: "\n").allSatisfy { $0.count <= 100 })
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0") && !t.alternateScreen, "\(s)")
    }

    @Test("--metrics: each player session as Prometheus metrics by sid, its findings by rule")
    func metrics() async throws {
        let t = Tmux()
        await t.start("\(hlstui) proxy --metrics 127.0.0.1:0 \(CMCDOrigin.base)/vod-ts/master.m3u8", width: 160, height: 30)
        let s = await t.wait { $0.contains("metrics: http://") && $0.contains("play it: mpv") }
        let words = s.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "'" }).map(String.init)
        let entry = try #require(words.first { $0.hasPrefix("http") && $0.contains("/multivariant/") })
        let endpoint = try #require(words.first { $0.hasSuffix("/metrics") })
        try await Self.player(entry, sid: "metered-3", broken: true)
        let c = try UpstreamClient(group: MultiThreadedEventLoopGroup.singleton, options: UpstreamOptions())
        defer { c.shutdown() }
        var text = ""
        let found = await eventually(timeout: 10) {
            text = String(decoding: (try? await c.get(endpoint).body) ?? [], as: UTF8.self)
            return text.contains(#"hlstui_cmcd_findings_total{sid="metered-3",rule="starvation"} 1"#)
        }
        #expect(found, "\(text)")
        for line in [
            #"hlstui_cmcd_requests_total{sid="metered-3"} 6"#, #"hlstui_cmcd_stalls_total{sid="metered-3"} 1"#,
            #"hlstui_cmcd_buffer_seconds{sid="metered-3"} 8.0"#, #"hlstui_cmcd_bitrate_bps{sid="metered-3"} 277000.0"#,
        ] {
            #expect(text.contains(line), "\(line) in \(text)")
        }
        t.keys("C-c")
        #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT="))
    }

    @Test("hlstui origin --players: a player that sends CMCD straight to the origin gets its pane too")
    func origin() async throws {
        let t = Tmux()
        await t.start("\(hlstui) origin --port 0 --players", width: 100, height: 24)
        var s = await t.wait { $0.contains("hlstui origin  0 players sending CMCD") && $0.contains("play: http://127.0.0.1:") }
        let base = try #require(s.split(separator: "\n").first { $0.contains("play: ") }?.split(separator: " ").dropFirst().first)
        let c = try UpstreamClient(group: MultiThreadedEventLoopGroup.singleton, options: UpstreamOptions())
        defer { c.shutdown() }
        let q = { (kv: String) in "?CMCD=" + CMCD.percentEncode(kv) }
        _ = try await c.get("\(base)/vod-ts/v144/index.m3u8" + q(#"ot=m,sf=h,sid="direct-4",st=v,su"#))
        for i in 0..<4 {
            _ = try await c.get("\(base)/vod-ts/v144/seg\(i).ts" + q(#"bl=\#((i + 1) * 2000),br=277,d=2000,ot=av,sid="direct-4""#))
        }
        s = await t.wait { $0.contains("player direct-4") && $0.contains("5 requests") }
        #expect(s.contains("player direct-4 · VOD · 5 requests") && s.contains("CTA-5004: nothing to say"), "\(s)")
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0") && !t.alternateScreen, "\(s)")
    }
}
