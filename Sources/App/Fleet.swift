import CMalloc
import Fleet
import Foundation
import Session

/// Runs a fleet: one headless session per stream in this process, one metrics registry, each session started again with
/// backoff when it ends or fails, the others untouched.
public enum FleetRunner {
    /// After a session: the memory it freed goes back to the system. malloc keeps freed chunks inside its arenas, and a
    /// session's player leaves them scattered, so without this a fleet's RSS settles tens of MiB above what it holds
    /// (DECISIONS.md, "Two malloc arenas"; BENCHMARKS.md "Restarts").
    public static func sessionEnded() { _ = hl_malloc_trim() }

    /// Runs until the task is cancelled. `pane` makes a stream's URL into a pane's configuration; `say` gets one line per
    /// start, end and restart.
    public static func run(
        _ config: FleetConfig, metrics: PlaybackMetrics, pane: @escaping @Sendable (FleetConfig.Stream, String) throws -> PaneConfig,
        say: @escaping @Sendable (String) -> Void
    ) async {
        await withTaskGroup(of: Void.self) { g in
            for stream in config.streams {
                g.addTask { await keep(stream, metrics: metrics.stream(stream.name), pane: pane, say: say) }
            }
        }
    }

    /// One stream: run, and when the session ends, start it again after the backoff.
    static func keep(
        _ stream: FleetConfig.Stream, metrics: StreamMetrics, pane: @Sendable (FleetConfig.Stream, String) throws -> PaneConfig,
        say: @Sendable (String) -> Void
    ) async {
        var backoff = RestartBackoff()
        if stream.insecure { say("\(stream.name): --insecure: TLS certificates are not checked") }
        while !Task.isCancelled {
            let began = ContinuousClock.now
            let outcome: MonitorRunner.Outcome
            do {
                var request = MonitorRequest(panes: try stream.urls.map { try pane(stream, $0) }, duration: nil)
                request.observer = metrics
                request.latency = stream.latency.map { l in
                    switch l {
                    case .seconds(let s): return .seconds(s)
                    case .auto: return .auto
                    }
                }
                metrics.up(true)
                outcome = await MonitorRunner.session(request, write: nil)
                metrics.up(false)
                sessionEnded()
            } catch {
                say("\(stream.name): cannot start: \(error)")
                return
            }
            if Task.isCancelled { break }
            let ran = Pane.seconds(ContinuousClock.now - began)
            let failed = outcome.status != 0
            let why =
                outcome.states.compactMap(\.error).first ?? (outcome.states.allSatisfy(\.ended) ? "the stream ended" : "it could not start")
            let delay = backoff.delay(after: ran)
            say(
                "\(stream.name): session \(failed ? "failed" : "ended") after \(Int(ran.rounded())) s (\(why)); starting again in \(Int(delay)) s"
            )
            metrics.restarted(failed: failed)
            try? await Task.sleep(for: .seconds(delay))
        }
    }
}
