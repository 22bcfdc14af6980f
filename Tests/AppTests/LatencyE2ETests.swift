import TestSupport
import Foundation
import Testing

/// `--latency`: hlstui processes that never talk show the same moment (docs/SYNC.md), through real libmpv.
@Suite("--latency: two processes on the wall clock, through real libmpv")
struct LatencyE2ETests {
    let base = AppOrigin.base

    /// Seconds since 1970 of an ISO 8601 date with milliseconds.
    static func seconds(_ text: String?) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return text.flatMap { f.date(from: $0) }?.timeIntervalSince1970
    }

    /// Each tick's (wall clock read, PDT shown − wall clock) of pane 0 while it plays, from `player` events.
    static func leads(_ r: MonitorRun) -> [(wall: Double, lead: Double)] {
        r.named("player").compactMap { e in
            guard e["trigger"] == nil, e["state"] as? String == "playing", let pdt = seconds(e["playheadPDT"] as? String),
                let wall = seconds(e["readAt"] as? String)
            else { return nil }
            return (wall, pdt - wall)
        }
    }

    @Test(
        "two monitors started 3 s apart, --latency 10 each: both lock on the wall clock less 10 s, and the moments they show agree to a frame"
    )
    func twoProcesses() async throws {
        let url = "\(base)/cam-a/cam-a/index.m3u8"
        // Both players at once: the slots are taken for the two together.
        await PlayerSlots.shared.acquire(2, "two processes, --latency")
        defer { Task { await PlayerSlots.shared.release(2, "two processes, --latency") } }
        let args = ["monitor", "--video", "none", "--latency", "10", url, "--duration"]
        async let first = CLI.run(args + ["22"], timeout: 90)
        try await Task.sleep(for: .seconds(3))
        let second = try await CLI.run(args + ["19"], timeout: 90)
        let runs = [try await first, second].map { r in
            MonitorRun(
                status: r.status,
                events: r.stdout.split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                },
                stderr: r.stderr)
        }
        var locks: [Double] = []
        for r in runs {
            #expect(r.status == 0, "\(r.stderr.suffix(400))")
            let sync = r.named("sync")
            #expect(sync.allSatisfy { $0["latency"] as? Double == 10 }, "\(sync.first ?? [:])")
            let lock = try #require(sync.first { $0["locked"] as? Bool == true }, "never locked: \(sync.suffix(3))")
            // Locked means within a frame of the target (34 ms) for half a second.
            let errors = try #require(lock["errorsMs"] as? [Double])
            #expect(errors.count == 1 && abs(errors[0]) <= 34, "\(errors)")
            // The wall clock at the lock: the player sample of the same tick read it.
            let at = try #require(r.named("player").first { ($0["t"] as? Double) == lock["t"] as? Double }?["readAt"] as? String)
            locks.append(try #require(Self.seconds(at)))
            #expect(r.named("stall").isEmpty)
        }
        // After both locked: pane against pane, on their decoded frames (PDT shown at a wall clock reading), the nearest
        // readings of the two paired — the same moment within a frame (40 ms at cam-a's 25 fps) nine times in ten.
        let (a, b) = (Self.leads(runs[0]), Self.leads(runs[1]))
        let from = (locks.max() ?? 0) + 1
        let pairs = a.filter { $0.wall >= from }.compactMap { x -> Double? in
            guard let y = b.min(by: { abs($0.wall - x.wall) < abs($1.wall - x.wall) }), abs(y.wall - x.wall) < 0.2 else { return nil }
            return abs(x.lead - y.lead) * 1000
        }.sorted()
        #expect(pairs.count >= 30, "\(pairs.count) paired readings")
        let p90 = pairs[min(pairs.count - 1, Int(Double(pairs.count) * 0.9))]
        #expect(p90 <= 40, "p90 between the processes \(p90) ms: \(pairs.suffix(5))")
        // And each shows the wall clock less 10 s: the frame shown is the last one due (25 fps: 40 ms apart), so within a frame.
        let own = a.filter { $0.wall >= from }.map { abs($0.lead + 10) * 1000 }.sorted()
        #expect(own[own.count / 2] <= 40, "median error against the target \(own[own.count / 2]) ms")
    }

    @Test("a latency the stream cannot give: one line naming the least it can, the pane plays on at normal speed")
    func tooShort() async throws {
        let r = try await MonitorRun.run(["\(base)/cam-a/cam-a/index.m3u8", "--latency", "1", "--duration", "6"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let sync = r.named("sync")
        let off = try #require(sync.last { $0["state"] as? String == "off" }, "\(sync.suffix(2))")
        let reason = off["reason"] as? String ?? ""
        #expect(
            reason.hasPrefix("pane 1 cannot play 1.0 s behind the wall clock: its playlist ends ") && reason.contains("(--latency "),
            "\(reason)")
        #expect(sync.allSatisfy { ($0["speeds"] as? [Double]) == [1] })
        #expect(r.named("player").contains { $0["state"] as? String == "playing" })
    }

    @Test(
        "low latency: a pane given parts follows 5 s behind the wall clock on ll-ts (PART-HOLD-BACK 3 s), where a pane of whole segments needs 8 s and more"
    )
    func lowLatency() async throws {
        let r = try await MonitorRun.run(["\(base)/ll-ts/master.m3u8", "--latency", "5", "--duration", "14"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let sync = r.named("sync")
        #expect(!sync.isEmpty && sync.allSatisfy { $0["latency"] as? Double == 5 }, "\(sync.first ?? [:])")
        #expect(!sync.contains { $0["state"] as? String == "off" }, "\(sync.first { $0["state"] as? String == "off" } ?? [:])")
        let lock = try #require(sync.firstIndex { $0["locked"] as? Bool == true }, "never locked: \(sync.suffix(3))")
        let errors = try #require(sync[lock]["errorsMs"] as? [Double])
        #expect(errors.count == 1 && abs(errors[0]) <= 34, "\(errors)")
        // The frames shown are the wall clock less 5 s.
        let at = try #require(r.named("player").first { ($0["t"] as? Double) == sync[lock]["t"] as? Double }?["readAt"] as? String)
        let from = try #require(Self.seconds(at)) + 1
        // Within a frame of it (a player shows the last frame due: 30 fps, 33 ms) half the time.
        let own = Self.leads(r).filter { $0.wall >= from }.map { abs($0.lead + 5) * 1000 }.sorted()
        #expect(own.count >= 10 && own[own.count / 2] <= 34, "\(own.count) readings, \(own.suffix(5))")
    }

    @Test("--latency is read: a bad value and --no-sync beside it are one line each, exit 64")
    func flags() async throws {
        let bad = try await CLI.run(["monitor", "--latency", "soon", "\(base)/cam-a/cam-a/index.m3u8"], timeout: 30)
        #expect(
            bad.status == 64 && bad.stderr.contains("--latency takes seconds behind the wall clock (0 to 86400) or auto, got soon"),
            "\(bad.stderr)")
        let both = try await CLI.run(["monitor", "--latency", "5", "--no-sync", "\(base)/cam-a/cam-a/index.m3u8"], timeout: 30)
        #expect(both.status == 64 && both.stderr.contains("--latency and --no-sync"), "\(both.stderr)")
    }
}
