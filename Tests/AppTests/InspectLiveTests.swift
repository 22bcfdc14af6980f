import Foundation
import Origin
import Testing

/// `inspect --media --duration` on a live stream over real HTTP (docs/VALIDATION.md): its playlists read again as RFC 8216bis
/// §6.3.4 lets a client, each reload held to the reload rules, each new segment measured.
@Suite("inspect --media --duration: a live stream's reloads held to the rules as a user runs it")
struct InspectLiveTests {
    @Test(
        "a camera that freezes 7 s with a two-segment window: stale, segments never listed, a window too short, each once, exit 1; a rung 6 s behind: drift; a clean camera: nothing, its new segments measured"
    )
    func watched() async throws {
        let state = CueOrigin.server.router.state
        let (client, fault) = ClientFault.later(state, 3, .freeze, target: .playlist, status: 0, on: "cam-a", for: 7)
        async let cleanRun = CLI.run(["inspect", "--media", "--sample", "1", "--duration", "6", "\(CueOrigin.base)/cam-a/cam-a/index.m3u8"])
        let (outClient, outage) = ClientFault.later(state, 2, .status, target: .playlist, status: 503, on: "cam-a", for: 3)
        async let outageRun = CLI.run([
            "inspect", "--media", "--sample", "1", "--duration", "8", "\(CueOrigin.base)/cam-a/cam-a/index.m3u8?client=\(outClient)",
        ])
        async let lagRun = CLI.run([
            "inspect", "--media", "--sample", "1", "--duration", "4", "\(CueOrigin.base)/live-ts/master.m3u8?lag=6@v240",
        ])
        let r = try await CLI.run([
            "inspect", "--media", "--json", "--sample", "1", "--duration", "14",
            "\(CueOrigin.base)/cam-a/cam-a/index.m3u8?window=2&client=\(client)",
        ])
        fault.cancel()
        _ = await fault.value
        #expect(r.status == 1, "\(r.stdout.suffix(600)) \(r.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let findings = obj["findings"] as? [[String: Any]] ?? []
        let rules = findings.compactMap { $0["rule"] as? String }
        #expect(Set(rules) == ["window-short", "playlist-stale", "msn-skipped"] && rules.count == 3, "\(findings)")
        let sections = Dictionary(findings.compactMap { f in (f["rule"] as? String).map { ($0, f["section"] as? String ?? "") } }) { a, _ in
            a
        }
        #expect(
            sections == ["window-short": "RFC 8216bis §6.2.2", "msn-skipped": "RFC 8216bis §6.2.2", "playlist-stale": "RFC 8216bis §6.3.4"])
        let stale = findings.first { $0["rule"] as? String == "playlist-stale" }
        #expect(
            (stale?["severity"] as? String) == "should"
                && (stale?["message"] as? String)?.hasPrefix("media playlist: unchanged for") == true, "\(stale ?? [:])")
        let live = try #require(obj["live"] as? [String: Any])
        #expect((live["seconds"] as? NSNumber)?.doubleValue == 14 && (live["playlists"] as? Int) == 1, "\(live)")
        #expect((live["reloads"] as? Int ?? 0) >= 8 && (live["newSegments"] as? Int ?? 0) >= 2, "\(live)")

        // Its playlist answered 503 for 3 s: one line for the outage, from when to when, and the read that came back.
        let down = try await outageRun
        outage.cancel()
        _ = await outage.value
        let line = down.stdout.split(separator: "\n").filter { $0.hasPrefix("live: media playlist: reloads failed from ") }
        #expect(
            down.status == 1 && line.count == 1 && line.first?.contains("HTTP 503") == true
                && line.first?.contains("; read again at ") == true, "\(down.stdout)")
        // One rung's encoder 6 s behind the others: each pair with it said once, naming it.
        let lag = try await lagRun
        let drifts = lag.stdout.split(separator: "\n").filter { $0.contains("(variants-drift, RFC 8216bis §6.2.4)") }
        #expect(
            lag.status == 1 && drifts.count == 3 && drifts.allSatisfy { $0.contains("240p") && $0.contains("must fix") }, "\(lag.stdout)")

        let clean = try await cleanRun
        #expect(clean.status == 0 && clean.stdout.contains("media: no problems found"), "\(clean.stdout) \(clean.stderr)")
        #expect(clean.stdout.contains("  live: 6 s watched, "), "\(clean.stdout)")
        // A new segment every 2 s, each read and measured: the first window's one (--sample 1) and two more at least.
        let counts = clean.stdout.firstMatch(of: /\((\d+) of (\d+) segments/)
        #expect((counts.flatMap { Int($0.1) } ?? 0) >= 3 && (counts.flatMap { Int($0.2) } ?? 0) >= 10, "\(clean.stdout)")
    }

    @Test("--duration goes with --media and a number of seconds above 0; on VOD nothing more is read")
    func arguments() async throws {
        let alone = try await CLI.run(["inspect", "--duration", "5", "\(CueOrigin.base)/vod-ts/master.m3u8"])
        #expect(alone.status != 0 && alone.stderr.contains("--duration goes with --media"), "\(alone.stderr)")
        let zero = try await CLI.run(["inspect", "--media", "--duration", "0", "\(CueOrigin.base)/vod-ts/master.m3u8"])
        #expect(zero.status != 0 && zero.stderr.contains("--duration takes a number of seconds above 0"), "\(zero.stderr)")
        let vod = try await CLI.run(["inspect", "--media", "--sample", "1", "--duration", "30", "\(CueOrigin.base)/vod-ts/master.m3u8"])
        #expect(vod.status == 0 && vod.stdout.contains("live: nothing more read: every playlist has ended"), "\(vod.stdout)")
    }
}
