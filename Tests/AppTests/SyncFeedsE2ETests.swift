import Foundation
import HLS
import Origin
import Session
import Testing

/// Live feeds as other encoders deliver them, kept in sync through real libmpv: an encoder clock drifting against its PDT,
/// PDT only after discontinuities, a pane that rebuffers, a feed that loses PDT and gets it back. Faults are switched on for
/// one client (`?client=`) of an origin of this suite's own, so no other test meets them.
/// Not serialized: each test's players run `alone` (the player slots keep them one at a time), so the four wait together
/// and run back to back at the end of the tier, with no other test's players between them (docs/TESTING.md).
@Suite("Live feeds as encoders deliver them, in sync through real libmpv")
struct SyncFeedsE2ETests {
    static let origin = AppOrigin.own()
    var base: String { Self.origin.httpBase }
    var state: OriginState { Self.origin.router.state }

    /// Distinct values in order.
    func changes(_ values: [String]) -> [String] {
        var out: [String] = []
        for v in values where out.last != v { out.append(v) }
        return out
    }

    /// Session time of the first sync event after `t` that is locked.
    func lock(_ sync: [[String: Any]], after t: Double = 0) -> Double? {
        sync.first { ($0["t"] as? Double ?? 0) > t && $0["locked"] as? Bool == true }?["t"] as? Double
    }

    /// p90 of |offset| in ms over the sync events in `range` (session seconds).
    func p90(_ sync: [[String: Any]], from t: Double) -> Double? {
        let v = sync.filter { ($0["t"] as? Double ?? 0) >= t }.compactMap { $0["offsetMs"] as? Double }.map(abs).sorted()
        return v.isEmpty ? nil : v[min(v.count - 1, Int(Double(v.count) * 0.9))]
    }

    func later(
        _ after: Double, _ kind: Fault.Kind, target: Fault.Target, status: Int, on scenario: String, for seconds: Double
    ) -> (client: String, task: Task<Void, Never>) {
        ClientFault.later(state, after, kind, target: target, status: status, on: scenario, for: seconds)
    }

    @Test("media running 0.5 % fast against its PDT: the controller keeps steering, the offset stays within a frame")
    func drift() async throws {
        // The same camera twice, the second one's encoder clock drifting: its PDT falls 5 ms behind every second.
        let r = try await MonitorRun.run(
            [
                "\(base)/cam-a/cam-a/index.m3u8", "\(base)/cam-a/cam-a/index.m3u8?drift=5000", "--duration", "30",
            ], alone: true)
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let sync = r.named("sync")
        let locked = try #require(lock(sync), "never locked: \(changes(sync.compactMap { $0["state"] as? String }))")
        // After the lock nothing is held or reloaded again: speed alone follows the drift.
        let states = changes(sync.filter { ($0["t"] as? Double ?? 0) > locked }.compactMap { $0["state"] as? String })
        #expect(!states.contains("aligning"), "\(states)")
        let p = try #require(p90(sync, from: locked + 1))
        #expect(p <= 34, "p90 offset \(p) ms (a frame at 30 fps: 33 ms)")
        // The pane whose media runs fast is sped up at every segment and never slowed: each segment's PDT lands 10 ms late,
        // the steering takes it up before the next (a sawtooth of a segment's period, its mean the drift) and, on the audio
        // clock's exact readings, is back within a millisecond before the next lands, where the speed is 1 to within noise.
        let late = sync.filter { ($0["t"] as? Double ?? 0) >= locked + 5 }.compactMap { ($0["speeds"] as? [Double])?.last }
        let mean = late.reduce(0, +) / Double(max(1, late.count))
        let slower = late.filter { $0 < 0.999 }.count
        let spedUp = late.filter { $0 > 1.01 }.count
        #expect(late.count >= 20 && Double(slower) <= 0.1 * Double(late.count), "\(slower) of \(late.count) readings slower than 0.999")
        #expect(Double(spedUp) >= 0.1 * Double(late.count), "\(spedUp) of \(late.count) readings over 1.01: not sped up at each segment")
        #expect(mean > 1.001 && mean < 1.02, "pane 2's mean speed \(mean)")
        #expect(r.named("stall").isEmpty)
    }

    @Test("PDT only after discontinuities: the tag leaves the window, the pane keeps its moment and stays locked")
    func pdtAtDiscontinuities() async throws {
        // With the knob cam-a marks its loop (every 24 s) with a discontinuity, its timestamps going on; a 6-segment window
        // lists it from 2 s to 14 s after the loop starts.
        // Started 9 s into a loop the playhead is past the tagged segment, which leaves the window 5 s later.
        // The phase is waited for once the players may start (`before`): waiting for a slot first would lose it.
        let r = try await MonitorRun.run(
            ["\(base)/cam-a/cam-a/index.m3u8?pdtat=discontinuity&window=6", "\(base)/cam-b/cam-b/index.m3u8", "--duration", "18"],
            alone: true,
            before: {
                let into = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 24)
                try await Task.sleep(for: .seconds((9 - into + 24).truncatingRemainder(dividingBy: 24)))
            })
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let sync = r.named("sync")
        let locked = try #require(lock(sync), "never locked: \(changes(sync.compactMap { $0["state"] as? String }))")
        // From 6 s on (the tag gone from the window) to the end, pane 1 has its moment and the lock holds.
        let late = sync.filter { ($0["t"] as? Double ?? 0) >= max(locked, 7) }
        #expect(late.count >= 30, "\(late.count) readings after the tag left")
        #expect(late.allSatisfy { ($0["pdts"] as? [Any])?.first is String }, "pane 1 keeps its PDT")
        #expect(!late.contains { $0["state"] as? String == "off" }, "\(late.compactMap { $0["reason"] as? String }.first ?? "")")
        let p = try #require(p90(sync, from: locked + 1))
        #expect(p <= 40, "p90 offset \(p) ms")
    }

    @Test("a pane that rebuffers: the other waits for it (paused), then both play on together, locked again")
    func stalledPane() async throws {
        let (client, fault) = later(9, Fault.Kind.status, target: .segment, status: 503, on: "cam-b", for: 14)
        let r = try await MonitorRun.run(
            [
                "\(base)/cam-a/cam-a/index.m3u8?window=20", "\(base)/cam-b/cam-b/index.m3u8?client=\(client)", "--duration", "34",
            ], alone: true)
        fault.cancel()
        _ = await fault.value
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let sync = r.named("sync")
        let first = try #require(lock(sync), "never locked before the outage")
        #expect(first < 9, "locked at \(first) s, before the outage")
        // Pane 2 stalls on the outage (from 9 s); meanwhile pane 1 waits, paused. What follows is measured from the end of that
        // stall: a shorter one later (pane 2 near its live edge after going past the refused segments) may end as the run does.
        let stall = try #require(
            r.named("stall").first { $0["pane"] as? Int == 1 && $0["end"] is Double && ($0["start"] as? Double ?? 0) >= 9 },
            "pane 2 stalled and played again: \(r.named("stall"))"
        )
        #expect(!r.named("stall").contains { $0["pane"] as? Int == 0 }, "pane 1 waited, it did not stall")
        // Each run of ticks in which sync waits for pane 2 (its player may play a moment between two tries): pane 1's picture
        // does not move, past the 0.6 s its pause takes to be seen.
        var runs: [(from: Double, to: Double)] = []
        for e in sync {
            guard let t = e["t"] as? Double else { continue }
            if (e["waitingFor"] as? [Int]) == [1] {
                if let last = runs.last, t - last.to < 0.3 { runs[runs.count - 1].to = t } else { runs.append((t, t)) }
            }
        }
        let longest = runs.map { $0.to - $0.from }.max() ?? 0
        #expect(longest >= 2, "sync waited for pane 2: \(runs)")
        for run in runs where run.to - run.from > 0.6 {
            let held = r.players(after: run.from + 0.6).filter { ($0["t"] as? Double ?? 0) <= run.to && $0["pane"] as? Int == 0 }
                .compactMap { ($0["playheadPDT"] as? String).flatMap(DateTime.init(iso8601:)) }
            let spread = held.isEmpty ? 0 : held.max { $0.seconds(since: $1) < 0 }!.seconds(since: held.min { $0.seconds(since: $1) < 0 }!)
            #expect(spread < 0.3, "pane 1 paused while waiting \(run): its PDT moved \(spread) s")
        }
        // Both play on: locked again soon after pane 2 plays, without holding pane 1 for the outage. When the outage outlasted
        // its player's retries, pane 2's player went past the segments refused (a skip, reported) and one reload brings the
        // panes together again, its landing error held away; otherwise nothing moves. Pane 1 is held only for a move of its own:
        // aimed a reload's time past the other's moment, it lands there, or — a discontinuity following that moment — at the
        // next segment's start, up to one cam-a segment (2 s) later (`SessionState.planRealign`).
        let end = try #require(stall["end"] as? Double)
        let again = try #require(lock(sync, after: end), "locked again after the stall")
        #expect(again - end <= 5, "locked again \(again - end) s after pane 2 played")
        let actions = changes(sync.filter { ($0["t"] as? Double ?? 0) > end }.compactMap { $0["action"] as? String })
        let skipped = r.named("skip").contains { ($0["pane"] as? Int) == 1 && ($0["seconds"] as? Double ?? 0) > 5 }
        let moves = actions.filter { $0.hasSuffix(" back") || $0.hasSuffix(" forward") }
        let holds = actions.compactMap { a in a.hasPrefix("pane 1 held ") ? Double(a.dropFirst(12).dropLast(2)) : nil }
        let skips = r.named("skip").filter { ($0["pane"] as? Int) == 1 }.map { "\($0["t"] ?? "") \($0["seconds"] ?? "")" }
        // Each later skip of pane 2 moves its picture and may take one move to follow (the outage's).
        let laterSkips = r.named("skip").filter { ($0["pane"] as? Int) == 1 && ($0["t"] as? Double ?? 0) >= end - 0.5 }
        // Should it fail: pane 2's readings around the end of its stall, where a jump would show.
        let around = r.named("player").filter { $0["pane"] as? Int == 1 && abs(($0["t"] as? Double ?? 0) - end - 0.5) < 1.5 }
            .map { "\($0["t"] ?? "") \($0["state"] ?? "") \($0["timePos"] ?? "nil")" }
        #expect(moves.count <= laterSkips.count, "\(actions); pane 2's skips: \(skips); pane 2: \(around)")
        // One cam-a segment, and the margin the move aims past the moment (`SyncController.landingMargin`).
        let landing = 2.0 + SyncController().landingMargin
        #expect(holds.allSatisfy { $0 <= (skipped ? landing : 0) }, "\(actions)")
    }

    @Test("a feed that loses PDT for 10 s: that pane leaves the lock with one line, and rejoins when PDT comes back")
    func pdtLostAndBack() async throws {
        let (client, fault) = later(6, Fault.Kind.nopdt, target: .playlist, status: 0, on: "cam-a", for: 10)
        let r = try await MonitorRun.run(
            [
                "\(base)/cam-a/cam-a/index.m3u8?client=\(client)", "\(base)/cam-b/cam-b/index.m3u8", "--duration", "36",
            ], alone: true)
        fault.cancel()
        _ = await fault.value
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let sync = r.named("sync")
        let states = changes(sync.compactMap { s in (s["state"] as? String).map { $0 == "off" ? "off: \(s["reason"] ?? "")" : $0 } })
        let off = try #require(
            sync.first { $0["reason"] as? String == "pane 1 has no EXT-X-PROGRAM-DATE-TIME" }?["t"] as? Double, "left the lock: \(states)")
        #expect(try #require(lock(sync)) < off, "locked before PDT was lost: \(states)")
        let back = try #require(lock(sync, after: off), "rejoined: \(states)")
        // The lost span is 10 s of media; back within it and a few seconds to lock.
        #expect(back - off <= 16, "rejoined \(back - off) s after leaving: \(states)")
        #expect(r.named("stall").isEmpty)
        #expect(r.named("error").isEmpty)
    }
}
