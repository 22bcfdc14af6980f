import CMCD
import Foundation
import NIOConcurrencyHelpers
import Prometheus

/// `hlstui proxy --metrics`: each player that sends CMCD through the proxy as Prometheus metrics, labelled by its session ID
/// (docs/CMCD.md, docs/METRICS.md): its buffer, bitrate and throughput as it last reported them, how long it took to start,
/// and its requests, stalls, switches and CTA-5004 findings as counters.
public final class PlayerCMCDMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    /// Per session: the counts already added to the counters.
    private let seen = NIOLockedValueBox([String: [String: Int]]())

    public init(_ metrics: PlaybackMetrics) { registry = metrics.registry }

    /// Brings the metrics of `players` up to date.
    public func update(_ players: [CMCDPlayers.Player]) {
        for p in players {
            let sid = [("sid", p.sid)]
            let latest = p.latest
            gauge("hlstui_cmcd_buffer_seconds", "The buffer a player reported (CMCD bl), seconds.", sid).set(to: latest?.buffer ?? .nan)
            let br = p.samples.last { $0.bitrate != nil }?.bitrate
            gauge("hlstui_cmcd_bitrate_bps", "The encoded bitrate a player asked for last (CMCD br), bits/s.", sid).set(
                to: br.map(Double.init) ?? .nan)
            let mtp = p.samples.last { $0.throughput != nil }?.throughput
            gauge("hlstui_cmcd_throughput_bps", "The throughput a player measured (CMCD mtp), bits/s.", sid).set(
                to: mtp.map(Double.init) ?? .nan)
            gauge("hlstui_cmcd_startup_seconds", "From a player's first request to its first media request past startup (CMCD su).", sid)
                .set(to: p.startup ?? .nan)
            var now = ["requests": p.requests, "stalls": p.stalls, "switches": p.switches]
            for (rule, n) in p.findings { now["finding:" + rule] = n }
            let adds = seen.withLockedValue { counts in
                var known = counts[p.sid] ?? [:]
                var out: [String: Int] = [:]
                for (k, v) in now {
                    out[k] = v - (known[k] ?? 0)
                    known[k] = v
                }
                counts[p.sid] = known
                return out
            }
            // Every counter of a session exists from its first request on, at 0 where nothing happened yet: a counter that
            // appears at its first increment shows no increase to Prometheus.
            for (name, n) in adds {
                let c: Counter
                switch name {
                case "requests": c = counter("hlstui_cmcd_requests_total", "Requests a player made with CMCD.", sid)
                case "stalls": c = counter("hlstui_cmcd_stalls_total", "Stalls a player reported (CMCD bs).", sid)
                case "switches": c = counter("hlstui_cmcd_switches_total", "Bitrate changes of a player's video requests (CMCD br).", sid)
                default:
                    let rule = String(name.dropFirst("finding:".count))
                    c = counter("hlstui_cmcd_findings_total", "What CTA-5004 says of a player's CMCD, by rule.", sid + [("rule", rule)])
                }
                if n > 0 { c.increment(by: Int64(n)) }
            }
        }
    }

    private func gauge(_ name: String, _ help: String, _ labels: [(String, String)]) -> Gauge {
        registry.makeGauge(descriptor: StreamMetrics.descriptor(name, help), labels: labels)
    }

    private func counter(_ name: String, _ help: String, _ labels: [(String, String)]) -> Counter {
        registry.makeCounter(descriptor: StreamMetrics.descriptor(name, help), labels: labels)
    }
}
