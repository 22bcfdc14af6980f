import Foundation
import HLS
import Testing

/// HLS Interstitials played in the pane by a real player (docs/EVENTS.md, "Interstitials played"): `monitor`'s
/// `interstitial` events, the player's samples around them and the Loader's requests, on the embedded origin's
/// `?interstitials=1` streams with short assets.
@Suite("Interstitials through real libmpv: the primary leaves for each, its assets play, and it resumes where the RFC says")
struct InterstitialsE2ETests {
    static func phases(_ r: MonitorRun) -> [String] {
        r.named("interstitial").map { "\($0["phase"] ?? "") \($0["id"] ?? "")" }
    }

    static func seconds(_ pdt: Any?) -> Double? { (pdt as? String).flatMap { DateTime(iso8601: $0) }.map { $0.seconds } }

    @Test(
        "VOD: the pre-roll before the first frame, the mid-roll's list read (its missing asset skipped with its cause, the other played), the primary resumed at START-DATE with nothing skipped, the post-roll, then the end"
    )
    func vod() async throws {
        let url = "\(CueOrigin.base)/vod-ts/master.m3u8?interstitials=1&assetseconds=4&assetlist=badasset"
        // Played to its end, where monitor ends by itself; `--duration` only bounds a hang.
        let r = try await MonitorRun.run([url, "--duration", "80"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let end = try #require(r.named("end").first?["summary"] as? [[String: Any]])
        #expect(end.first?["state"] as? String == "ended", "\(end)")
        #expect(
            Self.phases(r) == [
                "begin pre", "asset pre", "assetEnded pre", "resume pre", "begin mid-4", "list mid-4", "asset mid-4", "assetFailed mid-4",
                "asset mid-4", "assetEnded mid-4", "resume mid-4", "begin post", "asset post", "assetEnded post", "resume post",
            ], "\(Self.phases(r))")
        let events = r.named("interstitial")
        func event(_ phase: String, _ id: String) -> [String: Any]? {
            events.first { $0["phase"] as? String == phase && $0["id"] as? String == id }
        }
        // Each asset played whole (4 s), the pre-roll before the primary's first frame.
        for e in events where e["phase"] as? String == "assetEnded" { #expect((e["seconds"] as? Double ?? 0) >= 3.5, "\(e)") }
        let firstFrame = try #require(r.named("firstFrame").first?["t"] as? Double)
        #expect(firstFrame > (event("resume", "pre")?["t"] as? Double ?? .infinity))
        let failed = try #require(event("assetFailed", "mid-4"))
        #expect(
            (failed["cause"] as? String ?? "").contains("404") && (failed["uri"] as? String ?? "").hasSuffix("missing.m3u8"), "\(failed)")
        // The list asked as a player asks it, through the Loader: in the request log.
        let lists = r.named("request").filter { $0["kind"] as? String == "asset-list" }
        #expect(lists.count == 1 && (lists.first?["url"] as? String ?? "").contains("_HLS_primary_id="), "\(lists)")
        // Left at START-DATE (08.000: the first sample past it), resumed there (X-RESUME-OFFSET=0): the primary's playhead
        // after the resumption starts at or before where it left, and nothing of it is skipped.
        let begin = try #require(event("begin", "mid-4"))
        let resume = try #require(event("resume", "mid-4"))
        let left = try #require(Self.seconds(begin["playheadPDT"]))
        let start = try #require(DateTime(iso8601: "2026-01-01T00:00:08.000Z")).seconds
        #expect(left >= start - 0.04, "\(begin)")
        #expect(resume["at"] as? String == "2026-01-01T00:00:08.000Z", "\(resume)")
        let resumedAt = try #require(resume["t"] as? Double)
        // Each primary moment after it, less the time since the resumption (a moment advances no faster than the clock): the
        // earliest is where the primary went on from, whenever the first sample after it was read on a loaded machine.
        let after = r.named("player").filter { ($0["t"] as? Double ?? 0) > resumedAt && !($0["interstitial"] is String) }
            .compactMap { e in Self.seconds(e["playheadPDT"]).map { ($0, e["t"] as? Double ?? resumedAt) } }.filter { $0.0 != left }
        let firstShown = try #require(after.map(\.0).min())
        let first = try #require(after.map { $0.0 - ($0.1 - resumedAt) }.min())
        #expect(firstShown >= start - 0.05, "a primary moment before START-DATE after the resumption: \(firstShown - start) s")
        let seen = r.named("player").filter { ($0["t"] as? Double ?? 0) > resumedAt - 0.5 }.prefix(8).map {
            "\($0["t"] ?? "") \($0["state"] ?? "") \($0["timePos"] ?? "") \($0["playheadPDT"] ?? "") \($0["interstitial"] ?? "")"
        }
        #expect(
            first <= left + 0.05,
            "the primary went on from \(first - start) s after START-DATE (it left at \(left - start)): \(seen)")
        // While the asset played, the samples said so and held the primary's moment.
        let during = r.named("player").filter { ($0["interstitial"] as? String ?? "").hasPrefix("interstitial mid-4") }
        #expect(!during.isEmpty && during.allSatisfy { Self.seconds($0["playheadPDT"]) == left })
        #expect(r.named("skip").isEmpty, "\(r.named("skip"))")
    }

    @Test("live: the mid-roll's assets played, the primary resumed at the live moment — the latency it had, no skip at the resumption")
    func live() async throws {
        let url = "\(CueOrigin.base)/live-ts/master.m3u8?interstitials=1&assetseconds=4"
        // The pre-roll (4 s), then a mid-roll every 20 s of the primary (8 s of assets): one at least within 45 s.
        let r = try await MonitorRun.run([url, "--duration", "45"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let events = r.named("interstitial")
        let resume = try #require(events.first { $0["phase"] as? String == "resume" && ($0["id"] as? String ?? "").hasPrefix("mid-") })
        let id = try #require(resume["id"] as? String)
        let begin = try #require(events.first { $0["phase"] as? String == "begin" && $0["id"] as? String == id })
        #expect(events.filter { $0["id"] as? String == id && $0["phase"] as? String == "assetEnded" }.count == 2, "\(Self.phases(r))")
        let (t0, t1) = (try #require(begin["t"] as? Double), try #require(resume["t"] as? Double))
        let players = r.named("player")
        let before = try #require(players.last { ($0["t"] as? Double ?? 0) < t0 }?["pdtLatency"] as? Double)
        // Settled: the reload done and the player sampled twice since.
        let settled = players.filter {
            ($0["t"] as? Double ?? 0) > t1 + 1 && !($0["interstitial"] is String) && $0["state"] as? String == "playing"
        }
        let latency = try #require(settled.first?["pdtLatency"] as? Double)
        #expect(abs(latency - before) < 1.5, "latency \(before) s before the break, \(latency) s after")
        // The resumption is a move the RFC asks for, not a skip (the live stream's own loop discontinuity may be one).
        let skips = r.named("skip").filter { ($0["t"] as? Double ?? 0) >= t1 && ($0["t"] as? Double ?? 0) < t1 + 3 }
        #expect(skips.filter { !($0["cause"] as? String ?? "").hasPrefix("a discontinuity") }.isEmpty, "\(skips)")
        #expect(r.named("violation").isEmpty, "\(r.named("violation"))")
    }
}
