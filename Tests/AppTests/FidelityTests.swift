import Foundation
import HLS
import Origin
import Testing
import Session

/// An origin of its own, so its request log holds this suite's runs only (one scenario per run).
enum FidelityOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

/// Every number the dashboard shows, held against what the origin itself recorded delivering: the PDT and media time of each
/// segment it sent, when, and how many bytes. The runs include an ABR switch (a TS splice, an fMP4 reload at a boundary) and,
/// live, the loop's discontinuity with its timestamp reset.
@Suite("Fidelity: the numbers on screen against the origin's own record")
struct FidelityTests {
    static func seconds(_ text: Any?) -> Double? {
        (text as? String).flatMap { DateTime(iso8601: $0) }.map { Double($0.microseconds) / 1_000_000 }
    }

    /// What the origin says about the frame at media time `tp` as of wall time `wall`: the latest video segment it delivered
    /// (complete before `wall`) whose media starts at or before `tp` and covers it.
    static func truth(_ records: [RequestRecord], tp: Double, wall: Double) -> RequestRecord? {
        records.filter { r in
            guard let mt = r.mediaTime else { return false }
            return r.wall + r.durationMs / 1000 <= wall && mt <= tp + 0.0005 && tp < mt + 2.0 - 0.0005
        }.max { $0.wall < $1.wall }
    }

    @Test(
        "PDT at the playhead, buffered ahead, glass-to-glass latency, rung, decoded size, request count and bytes",
        arguments: ["vod-ts", "vod-fmp4", "live-ts", "live-fmp4"])
    func fidelity(name: String) async throws {
        let live = name.hasPrefix("live")
        let r = try await MonitorRun.run([
            "\(FidelityOrigin.base)/\(name)/master.m3u8", "--readahead", "6", "--duration", live ? "26" : "30",
        ])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let all = FidelityOrigin.state.log().filter { $0.scenario == name }
        // Read ahead at start and never asked for by the player (a reload came first): hlstui logs it without an MSN; the
        // origin sent it, the player never had it.
        let unused = Set(
            r.named("request").filter { $0["prefetch"] as? Bool == true && !($0["msn"] is Int) }.compactMap {
                ($0["url"] as? String).flatMap { URL(string: $0)?.path }
            })
        let video = all.filter {
            $0.kind == "segment" && ($0.rendition ?? "").hasPrefix("v") && $0.status / 100 == 2
                && !unused.contains(String($0.path.split(separator: "?")[0]))
        }
        let variants = try #require(r.named("ladder").first?["variants"] as? [[String: Any]])
        let rungOf = { (rendition: String) in variants.firstIndex { ($0["uri"] as? String ?? "").hasPrefix(rendition + "/") } }
        let heights = variants.map { v in (v["resolution"] as? String)?.split(separator: "x").last.flatMap { Int($0) } }
        #expect(r.named("variant").contains { $0["reason"] as? String == "abr" }, "the run includes a switch")

        var checked = 0
        var pdtErrors: [Double] = [], aheadErrors: [Double] = [], latencyErrors: [Double] = [], rungMisses = 0, sizeMisses = 0,
            vodLatencies = 0
        var missing: [String] = [], aheadMisses: [String] = []
        let switches = r.named("variant").compactMap { $0["t"] as? Double }
        for p in r.named("player") where p["state"] as? String == "playing" {
            guard let t = p["t"] as? Double, t > 2, let tp = p["timePos"] as? Double, let wall = Self.seconds(p["wall"]) else { continue }
            // Around a switch the old rung's segments the player dropped still count as delivered at the origin.
            let nearSwitch = switches.contains { t >= $0 && t - $0 < 4 }
            guard let seg = Self.truth(video, tp: tp, wall: wall), let mt = seg.mediaTime, let segPDT = Self.seconds(seg.pdt) else {
                continue
            }
            checked += 1
            let truePDT = segPDT + (tp - mt)
            if let shown = Self.seconds(p["playheadPDT"]) {
                pdtErrors.append(abs(shown - truePDT))
            } else {
                pdtErrors.append(.infinity)
                missing.append("t=\(t) tp=\(tp) msn=\(seg.msn ?? -1) \(seg.rendition ?? "")")
            }
            if live {
                // Glass to glass is taken when the player's properties were read (`readAt`), not when the line was written:
                // on a loaded machine the line may go out a tenth of a second later.
                if let g2g = p["pdtLatency"] as? Double {
                    let readAt = Self.seconds(p["readAt"]) ?? wall
                    latencyErrors.append(abs(g2g - (readAt - truePDT)))
                } else {
                    latencyErrors.append(.infinity)
                }
            } else if !(p["pdtLatency"] == nil || p["pdtLatency"] is NSNull) {
                vodLatencies += 1
            }
            if !nearSwitch {
                // Delivered ahead: the run of the playing rung's segments after the playhead's that the origin had sent whole
                // (any rung's: the rungs' segments line up, a splice takes the next one from another rung). hlstui learns of a
                // segment when the Loader has passed its last byte on, a moment after the origin's record, and a sample may be
                // written a moment after its wall time: segments finished within `lag` of the sample may count or not (a
                // reload reads several at once), so the figure must lie between the two runs.
                let lag = 0.75
                func ahead(by limit: Double) -> Double {
                    var msn = seg.msn ?? 0
                    while video.contains(where: { $0.msn == msn + 1 && $0.wall + $0.durationMs / 1000 <= limit }) { msn += 1 }
                    return Double(msn - (seg.msn ?? 0) + 1) * 2 - (tp - mt)
                }
                let (least, most) = (ahead(by: wall - lag), ahead(by: wall + lag))
                if let shown = p["bufferedAhead"] as? Double {
                    // The two sides take the position in a segment from different readings of its first timestamp: a few
                    // microseconds apart.
                    let error = max(0, least - shown, shown - most)
                    aheadErrors.append(error)
                    if error > 0.001 {
                        // What the origin sent after the playhead's segment, each as rendition/msn and when it ended against
                        // the sample's wall time.
                        let after = video.filter { ($0.msn ?? 0) > (seg.msn ?? 0) && ($0.msn ?? 0) <= (seg.msn ?? 0) + 4 }.map {
                            "\($0.rendition ?? "")/\($0.msn ?? -1) \(String(format: "%+.2f", $0.wall + $0.durationMs / 1000 - wall))"
                        }
                        aheadMisses.append("t=\(t) msn \(seg.msn ?? -1): \(shown) s shown, \(least)–\(most) s sent \(after)")
                    }
                } else {
                    aheadErrors.append(.infinity)
                }
                if let rr = seg.rendition.flatMap(rungOf), p["rung"] as? Int != rr { rungMisses += 1 }
                if let h = p["height"] as? Int, let rr = (p["rung"] as? Int), heights[safe: rr] != h { sizeMisses += 1 }
            }
        }
        #expect(checked >= 30, "samples held against the origin: \(checked)")
        let worstPDT = pdtErrors.max() ?? .infinity
        #expect(worstPDT <= 0.04, "PDT at the playhead off by \(worstPDT) s at worst; none shown at \(missing)")
        #expect(
            aheadErrors.count >= 10 && aheadErrors.allSatisfy { $0 <= 0.001 },
            "buffered ahead outside what the origin had sent: \(aheadMisses)")
        if live {
            #expect(
                !latencyErrors.isEmpty && latencyErrors.allSatisfy { $0 <= 0.1 },
                "glass to glass off by up to \(latencyErrors.max() ?? -1) s")
        }
        #expect(vodLatencies == 0, "a VOD's PDT is its recording time: no glass-to-glass figure")
        #expect(rungMisses == 0, "the rung shown is the rung whose segment is at the playhead: \(rungMisses) misses")
        #expect(sizeMisses <= 2, "decoded size matches the rung: \(sizeMisses) misses")
        // Every request the origin saw is in the log hlstui shows, with its bytes, and hlstui shows none the origin did not see
        // (matched by path and bytes; requests still in flight when the run stopped are left out).
        let endWall = try #require(Self.seconds(r.named("end").first?["wall"]))
        let shown = r.named("request").filter { $0["local"] as? Bool != true }.compactMap { e -> String? in
            guard let u = e["url"] as? String, let b = e["bytes"] as? Int else { return nil }
            return "\(URL(string: u)?.path ?? u) \(b)"
        }
        let seen = all.map { "\($0.path) \($0.bytes)" }
        var unmatched = shown
        var unshown: [String] = []
        for (rec, key) in zip(all, seen) {
            if let i = unmatched.firstIndex(of: key) {
                unmatched.remove(at: i)
            } else if rec.wall + rec.durationMs / 1000 < endWall - 1 {
                unshown.append(key)
            }
        }
        #expect(unshown.isEmpty, "the origin served these and hlstui's request log does not show them: \(unshown)")
        #expect(unmatched.isEmpty, "hlstui's request log shows these and the origin never served them: \(unmatched)")
        let summary = try #require((r.named("end").first?["summary"] as? [[String: Any]])?.first)
        #expect(summary["requests"] as? Int == shown.count + r.named("request").filter { $0["local"] as? Bool == true }.count)
    }
}
