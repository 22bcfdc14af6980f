import Foundation
import HLS
@testable import Origin
import Testing

/// An origin of its own: one test here switches a fault on.
enum ContinuityOrigin {
    static let server = AppOrigin.own()
}

extension MonitorRun {
    /// The largest amount by which the raw media time moved forward beyond the session time between consecutive samples after
    /// `t` — content the player went past without showing it. Measured on mpv's own `time-pos`, not on hlstui's skip check.
    func largestForwardExcess(after t: Double) -> (seconds: Double, between: String) {
        // Timed by when each sample was read, not when it was written out (a loaded machine delays the writing), and taken in
        // that order: a sample read on a property change can be written after one read later (seen at a loop's reload as
        // 20.03 s, then 0.10 s read 6 ms earlier, a forward "jump" of 20 s).
        // While hlstui holds the player paused to move it inside a freshly loaded rung, it stands at that rung's segment start:
        // not content shown, so those samples are left out.
        let samples = players(after: t).compactMap { p -> (Double, Double)? in
            guard !(p["state"] as? String == "buffering" && p["paused"] as? Bool == true),
                let read = (p["readAt"] as? String).flatMap(DateTime.init(iso8601:)), let pos = p["timePos"] as? Double
            else { return nil }
            return (read.seconds, pos)
        }.sorted { $0.0 < $1.0 }
        // While a reload loads, samples repeat the last position read before it: measured from that read.
        var fresh: [(Double, Double)] = []
        for s in samples where fresh.last?.1 != s.1 { fresh.append(s) }
        let steps = zip(fresh, fresh.dropFirst()).map { a, b in ((b.1 - a.1) - (b.0 - a.0), "\(a.1) → \(b.1) in \(fixed(b.0 - a.0, 3)) s") }
        return steps.max { $0.0 < $1.0 }.map { ($0.0, $0.1) } ?? (0, "")
    }
}

/// One switching case: a stream, the switch mode, and the mechanism hlstui must use for it.
struct ContinuityCase: CustomTestStringConvertible, Sendable {
    var scenario: String
    var mode: String
    var mechanism: String
    var testDescription: String { "\(scenario) \(mode) (\(mechanism))" }
}

@Suite("A switch never skips content, whoever packaged the stream", .serialized)
struct ContinuityTests {
    let base = ContinuityOrigin.server.httpBase
    var state: OriginState { ContinuityOrigin.server.router.state }

    static let cases: [ContinuityCase] = [
        ContinuityCase(scenario: "vod-ts", mode: "immediate", mechanism: "splice+seek"),
        ContinuityCase(scenario: "broadcast-vod-ts", mode: "immediate", mechanism: "splice+seek"),
        ContinuityCase(scenario: "broadcast-vod-ts", mode: "smooth", mechanism: "splice"),
        ContinuityCase(scenario: "vod-fmp4", mode: "immediate", mechanism: "reload+seek"),
        ContinuityCase(scenario: "broadcast-vod-fmp4", mode: "immediate", mechanism: "reload+seek"),
        ContinuityCase(scenario: "broadcast-vod-fmp4", mode: "smooth", mechanism: "reload@boundary"),
        ContinuityCase(scenario: "live-ts", mode: "immediate", mechanism: "splice+reload@boundary"),
        ContinuityCase(scenario: "broadcast-live-ts", mode: "immediate", mechanism: "splice+reload@boundary"),
        ContinuityCase(scenario: "live-fmp4", mode: "immediate", mechanism: "reload@boundary"),
        ContinuityCase(scenario: "broadcast-live-fmp4", mode: "immediate", mechanism: "reload@boundary"),
    ]

    @Test(
        "up and down the ladder: the new rung is decoded, the media time never moves past what was shown, no skip reported",
        arguments: cases)
    func continuity(c: ContinuityCase) async throws {
        let cmds = try CLI.directory(["cmds": "3.5 pin 2\n7.5 pin 0\n"]).appendingPathComponent("cmds").path
        // Smooth switches take effect after what is buffered: a short readahead brings them inside the run.
        let r = try await MonitorRun.run(
            [
                "\(base)/\(c.scenario)/master.m3u8", "--switch", c.mode, "--rate", "10", "--duration", "11.5",
                "--readahead", c.mode == "smooth" ? "2" : "10", "--commands", cmds,
            ],
            before: {
                if c.scenario.contains("live") { try await Self.clearOfLoop(segment: c.scenario.hasPrefix("broadcast") ? 2.002 : 2) }
            })
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let manual = r.named("variant").filter { $0["reason"] as? String == "manual" }
        // On a loaded machine the first command can come while the player is still in its first segment, which FFmpeg cannot
        // re-read exactly: there splice+seek is replaced by reload+seek, by rule (DECISIONS.md, switches never skip content).
        let expected = { (v: [String: Any]) -> Bool in
            let m = v["mechanism"] as? String
            return m == c.mechanism || (c.mechanism == "splice+seek" && m == "reload+seek" && v["atMsn"] as? Int == 0)
        }
        #expect(manual.count == 2 && manual.allSatisfy(expected), "\(manual.map { [$0["mechanism"] ?? "", $0["atMsn"] ?? ""] })")
        #expect(r.firstHeight(360, after: 3.5) != nil && r.firstHeight(144, after: 7.5) != nil, "both switches reached the screen")
        let excess = r.largestForwardExcess(after: 1)
        #expect(
            excess.seconds < 0.15,
            "the media time moved \(excess.seconds) s further than the clock between two samples: \(excess.between); \(r.named("log").suffix(8))"
        )
        #expect(r.named("skip").isEmpty, "\(r.named("skip"))")
        let summary = try #require((r.named("end").first?["summary"] as? [[String: Any]])?.first)
        #expect(summary["skips"] as? Int == 0)
        #expect(r.named("stall").isEmpty, "\(r.named("stall"))")
    }

    /// Waits until the origin's live loop point (a timestamp reset, every 10 segments of the wall-clock grid) is far from the
    /// stretch the next run plays: a timestamp reset is not a switch, and one the player meets is tested on its own.
    static func clearOfLoop(segment: Double) async throws {
        let loop = 10 * segment
        // The playhead runs 6–10 s behind the wall clock; the run plays 12 s of it (a loop is 20 s).
        let phase = (Date().timeIntervalSince1970 - 10).truncatingRemainder(dividingBy: loop)
        let wait = phase < 0.5 ? 0.5 - phase : loop - phase + 0.5
        if wait > 0.05 && wait < loop { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
    }

    @Test("a VOD segment every rung answers 404 for: the player goes past it, and hlstui reports the skip with its cause")
    func reportedSkip() async throws {
        state.clearFaults()
        defer { state.clearFaults() }
        for rung in ["v144", "v240", "v360"] {
            _ = state.add(
                Fault(
                    id: 0, kind: .status, target: .segment, status: 404, ms: 0, scenario: "broadcast-vod-ts", rendition: rung, msn: 2,
                    remaining: nil, since: 0, until: nil))
        }
        // Pinned: only the failed segment is under test here (rung switches have their own suite above).
        let r = try await MonitorRun.run(["\(base)/broadcast-vod-ts/master.m3u8", "--pin", "0", "--rate", "10", "--duration", "8"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let skips = r.named("skip")
        #expect(skips.count == 1, "\(skips)")
        let k = try #require(skips.first)
        #expect(k["fromMsn"] as? Int == 1 && k["toMsn"] as? Int == 3, "\(k)")
        #expect(abs((k["seconds"] as? Double ?? 0) - 2.0) < 0.4, "about the failed segment's 2 s: \(k)")
        #expect((k["cause"] as? String)?.contains("msn 2 failed (HTTP 404)") == true, "\(k)")
        let summary = try #require((r.named("end").first?["summary"] as? [[String: Any]])?.first)
        #expect(summary["skips"] as? Int == 1)
    }
}
