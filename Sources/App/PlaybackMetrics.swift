import Foundation
import NIOConcurrencyHelpers
import LoaderEvents
import Prometheus
import Session
import HLS

/// Playback quality of headless sessions as Prometheus metrics (docs/METRICS.md): one registry per process, one
/// `StreamMetrics` per stream. Labels come only from a fixed set — stream (the name given), pane, kind, status class, reason,
/// mechanism, action, cause — never a URL or a time, so the number of series is bounded by the streams watched.
public final class PlaybackMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// The fleet's shard (`--shard`), a label on every series when the streams are shared out.
    let shard: String?

    public init(shard: String? = nil) { self.shard = shard }

    /// The metrics of the stream named `name` (a fleet entry's name; `monitor`'s `--metrics-name`).
    public func stream(_ name: String) -> StreamMetrics { StreamMetrics(name: name, shard: shard, registry: registry) }

    /// A fleet says how many processes share its file and how many streams it plays (1 and all of them without `--shard`):
    /// `hlstui_fleet_shards` is N on each shard, so a shard missing shows as fewer `shard` labels than N
    /// (deploy/prometheus/hlstui-rules.yml, HlstuiFleetShardMissing; docs/FLEET.md).
    public func fleet(shards: Int, streams: Int) {
        let labels = shard.map { [("shard", $0)] } ?? []
        registry.makeGauge(
            descriptor: StreamMetrics.descriptor("hlstui_fleet_shards", "How many processes share the fleet file (--shard K/N: N)."),
            labels: labels
        ).set(to: Double(shards))
        registry.makeGauge(
            descriptor: StreamMetrics.descriptor("hlstui_fleet_streams", "Streams this process plays (its shard's share of the file)."),
            labels: labels
        ).set(to: Double(streams))
    }

    /// The exposition text (Prometheus text format 0.0.4).
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

    /// Seconds buckets for startup: a good start is under a second, a bad one tens of seconds.
    static let startupBuckets: [Double] = [0.25, 0.5, 1, 1.5, 2, 3, 5, 8, 13, 20, 30]
    /// Seconds buckets for requests: from a cached key to a segment over a slow link.
    static let requestBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
}

/// What a headless session reports to whoever watches it besides its JSON lines.
public protocol SessionObserver: Sendable {
    /// Every report of a pane, as it happens (from any thread).
    func report(_ report: PaneReport)
    /// Every tick: each pane's state and, with several panes, the sync controller's view.
    func tick(_ states: [SessionState], sync: SyncSnapshot?)
    /// The session is over (ended, failed or stopped).
    func finished(_ states: [SessionState])
}

/// One stream's metrics. Counters only ever grow across the stream's restarts (a fleet restarts a failed session under the
/// same name); gauges are the latest tick's.
public final class StreamMetrics: SessionObserver, Sendable {
    let name: String
    let shard: String?
    private let registry: PrometheusCollectorRegistry
    /// Per pane: whether its first frame was counted, and the dropped-frame count last read (mpv's counter restarts with a
    /// new player); panes whose alerted counters exist (at zero until something happens).
    private struct Seen {
        var counted: Set<Int> = []
        var known: Set<Int> = []
        var dropped: [Int: Int] = [:]
    }
    private let seen = NIOLockedValueBox(Seen())

    init(name: String, shard: String?, registry: PrometheusCollectorRegistry) {
        self.name = name
        self.shard = shard
        self.registry = registry
        // Series that alerts compare against exist from the start, at zero.
        _ = counter("hlstui_session_restarts_total", "Sessions restarted after they ended or failed.", [("reason", "failed")])
        _ = counter("hlstui_exits_before_first_frame_total", "Sessions that ended or failed before their first frame.", [])
        _ = counter("hlstui_session_restarts_total", "Sessions restarted after they ended or failed.", [("reason", "ended")])
    }

    /// Makes the counters the alert rules take `increase` of exist at zero for a pane, the first time it is seen: a series
    /// that appears at its first increment shows no increase to Prometheus, so the first stall or key failure would be missed.
    private func zeros(pane p: Int) {
        guard seen.withLockedValue({ $0.known.insert(p).inserted }) else { return }
        _ = counter("hlstui_stalls_total", "Stalls: playback waited for data after it had started.", pane: p, [])
        _ = counter("hlstui_stalled_seconds_total", "Seconds spent stalled.", pane: p, [])
        _ = counter("hlstui_playback_failures_total", "Playback that failed (the session's error).", pane: p, [])
        _ = counter("hlstui_picture_frozen_total", "Times the picture froze (no change for 2 s of playback).", pane: p, [])
        _ = counter("hlstui_picture_black_total", "Times the picture went black (for 2 s or more).", pane: p, [])
        for cause in KeyFailure.allCases {
            _ = counter("hlstui_key_failures_total", "Keys that could not be had, by cause.", pane: p, [("cause", cause.rawValue)])
        }
    }

    private func labels(_ pane: Int?, _ extra: [(String, String)]) -> [(String, String)] {
        [("stream", name)] + (shard.map { [("shard", $0)] } ?? []) + (pane.map { [("pane", String($0 + 1))] } ?? []) + extra
    }

    private func counter(_ metric: String, _ help: String, pane: Int? = nil, _ extra: [(String, String)]) -> Counter {
        registry.makeCounter(descriptor: Self.descriptor(metric, help), labels: labels(pane, extra))
    }

    private func gauge(_ metric: String, _ help: String, pane: Int? = nil, _ extra: [(String, String)] = []) -> Gauge {
        registry.makeGauge(descriptor: Self.descriptor(metric, help), labels: labels(pane, extra))
    }

    private func histogram(_ metric: String, _ help: String, buckets: [Double], pane: Int? = nil, _ extra: [(String, String)])
        -> ValueHistogram
    {
        registry.makeValueHistogram(descriptor: Self.descriptor(metric, help), labels: labels(pane, extra), buckets: buckets)
    }

    /// A metric's whole name (docs/METRICS.md lists them) and its HELP line.
    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// The session is running (1) or waiting to be restarted (0).
    public func up(_ running: Bool) { gauge("hlstui_session_up", "1 while the stream's session runs.").set(to: running ? 1 : 0) }

    /// The session ended (`ended`: the stream's end, or a stop) or failed, and is started again.
    public func restarted(failed: Bool) {
        counter(
            "hlstui_session_restarts_total", "Sessions restarted after they ended or failed.", [("reason", failed ? "failed" : "ended")]
        )
        .increment()
    }

    public func report(_ report: PaneReport) {
        let p = report.pane
        zeros(pane: p)
        switch report.output {
        case .loader(.request(let r)) where !r.local:
            let status = Self.statusClass(r)
            histogram(
                "hlstui_request_duration_seconds", "Requests to the origin, from the request to the last byte.",
                buckets: PlaybackMetrics.requestBuckets, [("kind", r.kind.rawValue), ("status", status)]
            ).record(r.durationMs / 1000)
            counter("hlstui_bytes_total", "Bytes received from the origin.", [("kind", r.kind.rawValue)]).increment(by: Int64(r.bytes))
        case .loader(.key(let k)):
            counter("hlstui_key_requests_total", "Keys asked for (fetched, from the cache or given).", pane: p, []).increment()
            if let f = k.failure {
                counter("hlstui_key_failures_total", "Keys that could not be had, by cause.", pane: p, [("cause", f.rawValue)]).increment()
            }
        case .loader(.gapFilled):
            counter("hlstui_gap_segments_total", "GAP segments met, by what hlstui did.", pane: p, [("action", "filled")]).increment()
        case .fact(.gap(_, _, _, _, let action)):
            counter("hlstui_gap_segments_total", "GAP segments met, by what hlstui did.", pane: p, [("action", Self.gapAction(action))])
                .increment()
        case .switched(let s):
            counter(
                "hlstui_variant_switches_total", "Variant switches, by reason and mechanism.", pane: p,
                [("reason", s.reason.rawValue), ("mechanism", s.mechanism.rawValue)]
            ).increment()
        case .fact(.stallStarted):
            counter("hlstui_stalls_total", "Stalls: playback waited for data after it had started.", pane: p, []).increment()
        case .fact(.stallEnded(let s)):
            counter("hlstui_stalled_seconds_total", "Seconds spent stalled.", pane: p, []).increment(
                by: max(0, (s.end ?? s.start) - s.start))
        case .fact(.violation(_, _, let f)):
            counter(
                "hlstui_stream_violations_total", "Reloads of a live playlist that broke a rule of RFC 8216bis, by rule and severity.",
                pane: p, [("rule", f.rule.rawValue), ("severity", f.severity == .error ? "must" : "should")]
            ).increment()
        case .fact(.audio(let a)):
            rendition(pane: p, type: "audio", from: a.from, to: a.to)
        case .fact(.subtitleRendition(let c)):
            rendition(pane: p, type: "subtitles", from: c.from, to: c.to)
        case .fact(.subtitle(let c)) where !c.lines.isEmpty:
            counter("hlstui_subtitle_cues_total", "Subtitle cues shown at the playhead.", pane: p, []).increment()
        case .fact(.skipped(let k)):
            counter("hlstui_skips_total", "Jumps forward past content never shown.", pane: p, []).increment()
            counter("hlstui_skipped_seconds_total", "Seconds of content skipped.", pane: p, []).increment(by: k.seconds)
        case .fact(.failed):
            counter("hlstui_playback_failures_total", "Playback that failed (the session's error).", pane: p, []).increment()
        case .fact(.picture(.frozen)):
            counter("hlstui_picture_frozen_total", "Times the picture froze (no change for 2 s of playback).", pane: p, []).increment()
        case .fact(.picture(.black)):
            counter("hlstui_picture_black_total", "Times the picture went black (for 2 s or more).", pane: p, []).increment()
        default: break
        }
        if report.state.started { firstFrame(pane: p, at: report.state.firstFrameAt ?? report.t) }
    }

    /// Which audio and subtitle renditions play: 1 for the one in use, 0 for those before it (docs/METRICS.md). The labels
    /// are the stream's own NAMEs and LANGUAGEs, as few as its renditions.
    private func rendition(pane p: Int, type: String, from: Rendition?, to: Rendition?) {
        let help = "1 for the audio or subtitle rendition in use, 0 for one used before."
        func labels(_ r: Rendition) -> [(String, String)] { [("type", type), ("name", r.name), ("language", r.language ?? "")] }
        if let from { gauge("hlstui_rendition_in_use", help, pane: p, labels(from)).set(to: 0) }
        if let to { gauge("hlstui_rendition_in_use", help, pane: p, labels(to)).set(to: 1) }
    }

    public func tick(_ states: [SessionState], sync: SyncSnapshot?) {
        for (p, s) in states.enumerated() {
            zeros(pane: p)
            if s.started { firstFrame(pane: p, at: s.firstFrameAt ?? s.now) }
            gauge("hlstui_playing", "1 while the pane plays (not starting, buffering, paused, ended or failed).", pane: p)
                .set(to: s.state == .playing ? 1 : 0)
            let rung = s.playingRung
            set("hlstui_live_latency_seconds", "Seconds the playhead is behind the live edge.", pane: p, s.liveLatency)
            set("hlstui_glass_to_glass_seconds", "Wall clock minus the PROGRAM-DATE-TIME at the playhead.", pane: p, s.pdtLatency)
            set("hlstui_buffer_ahead_seconds", "Seconds of media held ahead of the playhead.", pane: p, s.bufferedAhead)
            // Bytes, as Prometheus names units (HLS's BANDWIDTH and hlstui's screen say bits: divide by 8 once, here).
            set("hlstui_throughput_bytes_per_second", "Measured throughput estimate.", pane: p, s.throughput.estimate.map { $0 / 8 })
            set("hlstui_playing_rung", "Index of the variant on screen in the multivariant playlist.", pane: p, rung.map(Double.init))
            set(
                "hlstui_playing_bandwidth_bytes_per_second", "BANDWIDTH of the variant on screen, in bytes.", pane: p,
                rung.flatMap { s.ladder.rungs[safe: $0]?.variant.bandwidth }.map { Double($0) / 8 })
            let live = rung ?? s.loadedRung ?? 0
            let m = s.media[live]
            set(
                "hlstui_target_duration_seconds", "EXT-X-TARGETDURATION of the playing media playlist.", pane: p,
                m?.targetDuration.map(Double.init))
            set(
                "hlstui_playlist_stale_seconds", "Seconds since the live playlist last gained a segment.", pane: p,
                s.liveEdgeAge(rung: live))
            set(
                "hlstui_live_edge_gap", "1 when the newest segment of the live playlist is a GAP.", pane: p,
                m.flatMap { $0.isLive ? ($0.segments.last?.gap == true ? 1 : 0) : nil })
            let sampled = s.picture.label != nil
            set(
                "hlstui_picture_frozen", "1 while the picture is frozen (NaN: not sampled).", pane: p,
                sampled ? (s.picture.frozenSince != nil ? 1 : 0) : nil)
            set(
                "hlstui_picture_black", "1 while the picture is black (NaN: not sampled).", pane: p,
                sampled ? (s.picture.blackSince != nil ? 1 : 0) : nil)
            let frames = s.sample.droppedFrames
            let before = seen.withLockedValue { s in
                defer { s.dropped[p] = frames }
                return s.dropped[p] ?? 0
            }
            if frames > before {
                counter("hlstui_dropped_frames_total", "Video frames the player dropped.", pane: p, []).increment(
                    by: Int64(frames - before))
            }
        }
        guard let y = sync else { return }
        gauge("hlstui_sync_locked", "1 while the panes play locked on a common PROGRAM-DATE-TIME.").set(to: y.state == .locked ? 1 : 0)
        guard y.followsClock else {
            for (p, o) in y.offsets.enumerated() {
                set("hlstui_sync_offset_seconds", "Seconds the pane is ahead of the sync reference.", pane: p, o)
            }
            return
        }
        // `--latency`: the clock is the reference (docs/SYNC.md).
        if let s = y.latency {
            gauge("hlstui_latency_target_seconds", "--latency: the seconds behind the wall clock every pane follows.").set(to: s)
        }
        for (p, o) in y.offsets.enumerated() {
            set(
                "hlstui_latency_error_seconds",
                "--latency: seconds the pane plays ahead of the wall clock less the latency (negative: behind).", pane: p, o)
        }
    }

    public func finished(_ states: [SessionState]) {
        if states.contains(where: { !$0.started }) {
            counter("hlstui_exits_before_first_frame_total", "Sessions that ended or failed before their first frame.", []).increment()
        }
        for p in states.indices {
            gauge("hlstui_playing", "1 while the pane plays (not starting, buffering, paused, ended or failed).", pane: p).set(to: 0)
        }
        seen.withLockedValue { s in
            s.counted = []
            s.dropped = [:]
        }
    }

    /// A gauge set to `value`, or NaN when it is not known now (Prometheus reads NaN as no number; the series stays).
    private func set(_ metric: String, _ help: String, pane: Int, _ value: Double?) {
        gauge(metric, help, pane: pane).set(to: value ?? .nan)
    }

    /// Counts the pane's startup once per session: seconds from the session's start to the first frame.
    private func firstFrame(pane: Int, at t: Double) {
        let first = seen.withLockedValue { $0.counted.insert(pane).inserted }
        guard first else { return }
        histogram(
            "hlstui_startup_seconds", "Seconds from the session's start to the first frame.", buckets: PlaybackMetrics.startupBuckets,
            pane: pane, []
        ).record(t)
    }

    /// The origin's answer: "2xx" … "5xx", or "none" when none came (refused, reset, timed out: the status the Loader gave the
    /// player then is its own).
    static func statusClass(_ r: RequestEvent) -> String {
        if case .failed = r.outcome, r.ttfbMs == nil { return "none" }
        return (100..<600).contains(r.status) ? "\(r.status / 100)xx" : "none"
    }

    /// A GAP fact's action, as a label: answered locally, crossed by a reload, or unfillable.
    static func gapAction(_ action: String) -> String {
        if action.hasPrefix("crossed") { return "crossed" }
        if action.hasPrefix("served from") { return "filled" }
        if action.hasPrefix("answered locally") { return "local" }
        return "unfillable"
    }
}
