import App
import CMalloc
import Foundation
import JSONValue
import Origin

/// `hlstui-session-bench MEDIA_CACHE restarts N`: N sessions run one after another as a fleet runs them (`MonitorRunner.session`,
/// no JSON written), in turn one whose stream answers 404 at once, one VOD and one live stream each stopped after a second;
/// the process's threads, descriptors and RSS between sessions after the first 10 (the baseline) and after all N.
enum RestartsBench {
    struct Floor {
        var threads: Int
        var descriptors: Int
        var rssMiB: Double
        /// What malloc has handed out and not had back: growth here is memory held (a leak); RSS growing without it is
        /// free memory malloc keeps (fragmentation).
        var inUseMiB: Double

        static func now() -> Floor {
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            func field(_ name: String) -> Double {
                let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
                return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
            }
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
            return Floor(
                threads: Int(field("Threads")), descriptors: fds, rssMiB: field("VmRSS") / 1024,
                inUseMiB: Double(hl_malloc_in_use()) / 1_048_576)
        }

        var json: JSONValue {
            .object([
                ("threads", .int(threads)), ("descriptors", .int(descriptors)), ("rssMiB", .double((rssMiB * 10).rounded() / 10)),
                ("inUseMiB", .double((inUseMiB * 10).rounded() / 10)),
            ])
        }
    }

    /// `origin`: the in-process origin's state; its request log is forgotten after each session, so what grows is hlstui's.
    static func run(base: String, origin: OriginState, count: Int, player: PlayerOptions) async -> JSONValue {
        // As `hlstui fleet` runs (DECISIONS.md, "Two malloc arenas"); RESTARTS_ARENAS=0 leaves glibc's default, the baseline.
        let arenas = Int(ProcessInfo.processInfo.environment["RESTARTS_ARENAS"] ?? "") ?? 2
        if arenas > 0 { _ = hl_malloc_arenas(Int32(arenas)) }
        // As `hlstui fleet` does after each session (`FleetRunner.sessionEnded`); RESTARTS_TRIM=0 leaves it out.
        let trim = ProcessInfo.processInfo.environment["RESTARTS_TRIM"] != "0"
        let all = ["\(base)/no-such-stream/master.m3u8", "\(base)/vod-ts/master.m3u8", "\(base)/live-ts/master.m3u8"]
        // RESTARTS_ONLY=0, 1 or 2: that kind of session alone (the 404, the VOD, the live), to tell which one grows.
        let urls =
            Int(ProcessInfo.processInfo.environment["RESTARTS_ONLY"] ?? "").flatMap { all.indices.contains($0) ? [all[$0]] : nil } ?? all
        var baseline: Floor?
        var failed = 0
        let t0 = ContinuousClock.now
        for i in 0..<count {
            var pane = PaneConfig(url: urls[i % urls.count])
            pane.player = player
            let outcome = await MonitorRunner.session(MonitorRequest(panes: [pane], duration: 1), write: nil)
            if outcome.status != 0 { failed += 1 }
            origin.clearLog()
            if trim { FleetRunner.sessionEnded() }
            if i + 1 == 10 { baseline = Floor.now() }
            // The floor along the way (stderr), to tell growth that goes on from growth that settles.
            if (i + 1) % 50 == 0 {
                let f = Floor.now()
                FileHandle.standardError.write(
                    Data(
                        "\(i + 1) sessions: rss \(f.rssMiB) MiB, in use \(f.inUseMiB) MiB, threads \(f.threads), fds \(f.descriptors)\n"
                            .utf8))
            }
        }
        let seconds = Double((ContinuousClock.now - t0).components.seconds)
        let after = Floor.now()
        return .object([
            ("sessions", .int(count)), ("arenas", .int(arenas)), ("trim", .bool(trim)), ("failed", .int(failed)),
            ("seconds", .double(seconds)),
            ("after10", baseline?.json ?? .null), ("afterAll", after.json),
        ])
    }
}
