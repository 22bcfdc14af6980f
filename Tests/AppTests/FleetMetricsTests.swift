import Foundation
import LoaderEvents
@testable import Session
import Testing

@testable import App
import HLS

/// The metrics a session's reports make, and where they are served (pure: no player, no network).
@Suite("Playback metrics")
struct FleetMetricsTests {
    @Test("--metrics addresses: HOST:PORT, [v6]:PORT, :PORT; anything else is refused")
    func addresses() {
        #expect(MetricsServer.parse("127.0.0.1:9464")! == ("127.0.0.1", 9464))
        #expect(MetricsServer.parse("[::1]:9464")! == ("::1", 9464))
        #expect(MetricsServer.parse(":9464")! == ("127.0.0.1", 9464))
        #expect(MetricsServer.parse("9464") == nil && MetricsServer.parse("h:99999") == nil && MetricsServer.parse("h:x") == nil)
    }

    /// One pane's report of `output`, its state `state`.
    func report(_ output: PaneOutput, t: Double = 1, state: SessionState = SessionState(url: "http://o/s/master.m3u8?token=SECRET"))
        -> PaneReport
    {
        PaneReport(pane: 0, t: t, output: output, state: state)
    }

    func request(
        _ kind: ResourceKind, status: Int, ms: Double, bytes: Int, ttfb: Double?, outcome: RequestOutcome = .ok, local: Bool = false
    )
        -> PaneOutput
    {
        .loader(
            .request(
                RequestEvent(
                    kind: kind, url: "http://o/s/seg1.ts?token=SECRET", rung: 0, msn: 1, start: 0, ttfbMs: ttfb, durationMs: ms,
                    bytes: bytes,
                    status: status, local: local, prefetch: false, retries: 0, outcome: outcome, firstPTS: nil)))
    }

    func key(_ failure: KeyFailure?) -> PaneOutput {
        .loader(
            .key(
                KeyEvent(
                    uri: "http://o/k.key?token=SECRET", method: .aes128, keyFormat: "identity", fingerprint: nil, firstMSN: 1, lastMSN: 1,
                    requested: 0, latencyMs: 5, prefetch: false, repair: nil, source: "origin", error: failure.map { "key: \($0)" },
                    failure: failure)))
    }

    @Test("the renditions in use: 1 for the audio and subtitle rendition playing, 0 for the one before; cues shown counted")
    func renditions() {
        let metrics = PlaybackMetrics()
        let m = metrics.stream("news")
        func r(_ type: String, _ name: String, _ lang: String) -> Rendition {
            Rendition(
                type: type, uri: "x.m3u8", groupID: "g", language: lang, name: name, isDefault: false, autoselect: true, forced: false)
        }
        let (en, de, subs) = (r("AUDIO", "English", "en"), r("AUDIO", "Deutsch", "de"), r("SUBTITLES", "English", "en"))
        m.report(report(.fact(.audio(AudioChange(t: 0, from: nil, to: en, reason: .start, honoured: true)))))
        m.report(report(.fact(.audio(AudioChange(t: 3, from: en, to: de, reason: .manual, honoured: true)))))
        m.report(report(.fact(.subtitleRendition(SubtitleChange(t: 0, from: nil, to: subs, reason: .start, honoured: true)))))
        for i in 0..<3 {
            let lines = i == 1 ? [] : ["cue \(i)"]
            m.report(report(.fact(.subtitle(SubtitleShown(t: Double(i), lines: lines, start: 0, end: 1, at: 0, rendition: subs)))))
        }
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        let has = { (line: String) in text.split(separator: "\n").contains { $0 == line } }
        #expect(has(#"hlstui_rendition_in_use{stream="news",pane="1",type="audio",name="English",language="en"} 0.0"#), "\(text)")
        #expect(has(#"hlstui_rendition_in_use{stream="news",pane="1",type="audio",name="Deutsch",language="de"} 1.0"#))
        #expect(has(#"hlstui_rendition_in_use{stream="news",pane="1",type="subtitles",name="English",language="en"} 1.0"#))
        #expect(has(#"hlstui_subtitle_cues_total{stream="news",pane="1"} 2"#), "a cue cleared is not a cue shown")
    }

    @Test("reports become counters and histograms with fixed labels; no URL, token or time is ever a label")
    func reports() {
        let metrics = PlaybackMetrics()
        let m = metrics.stream("news")
        m.report(report(request(.segment, status: 200, ms: 40, bytes: 1000, ttfb: 10)))
        m.report(report(request(.segment, status: 503, ms: 2000, bytes: 0, ttfb: 5, outcome: .failed("HTTP 503"))))
        m.report(report(request(.media, status: 502, ms: 30, bytes: 0, ttfb: nil, outcome: .failed("connection refused"))))
        m.report(report(request(.segment, status: 200, ms: 0, bytes: 500, ttfb: nil, outcome: .gap, local: true)))
        m.report(report(key(nil)))
        m.report(report(key(.status4xx)))
        m.report(report(.switched(VariantSwitch(t: 1, from: nil, to: 0, reason: .start, mechanism: .load))))
        m.report(report(.switched(VariantSwitch(t: 5, from: 0, to: 2, reason: .abr, mechanism: .splice))))
        m.report(report(.fact(.stallStarted(3))))
        m.report(report(.fact(.stallEnded(Stall(start: 3, end: 4.5, cause: "HTTP 503")))))
        m.report(report(.fact(.gap(rung: 0, msn: 7, pdt: nil, duration: 2, action: "served from rung 1"))))
        m.report(report(.fact(.gap(rung: 0, msn: 9, pdt: nil, duration: 2, action: "crossed: reloaded at msn 10"))))
        m.report(report(.fact(.picture(.frozen(since: 3)))))
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        let has = { (line: String) in text.split(separator: "\n").contains { $0 == line } }
        #expect(has(#"hlstui_bytes_total{stream="news",kind="segment"} 1000"#), "\(text)")
        #expect(has(#"hlstui_request_duration_seconds_count{stream="news",kind="segment",status="2xx"} 1"#))
        #expect(has(#"hlstui_request_duration_seconds_count{stream="news",kind="segment",status="5xx"} 1"#))
        #expect(has(#"hlstui_request_duration_seconds_count{stream="news",kind="media",status="none"} 1"#), "no answer: none")
        #expect(has(#"hlstui_request_duration_seconds_bucket{stream="news",kind="segment",status="2xx",le="0.05"} 1"#))
        #expect(has(#"hlstui_key_requests_total{stream="news",pane="1"} 2"#))
        #expect(has(#"hlstui_key_failures_total{stream="news",pane="1",cause="http_4xx"} 1"#))
        #expect(has(#"hlstui_variant_switches_total{stream="news",pane="1",reason="abr",mechanism="splice"} 1"#))
        #expect(has(#"hlstui_stalls_total{stream="news",pane="1"} 1"#))
        #expect(has(#"hlstui_stalled_seconds_total{stream="news",pane="1"} 1.5"#))
        #expect(has(#"hlstui_gap_segments_total{stream="news",pane="1",action="filled"} 1"#))
        #expect(has(#"hlstui_gap_segments_total{stream="news",pane="1",action="crossed"} 1"#))
        #expect(
            has(#"hlstui_picture_frozen_total{stream="news",pane="1"} 1"#) && has(#"hlstui_picture_black_total{stream="news",pane="1"} 0"#))
        // The local GAP answer is not an origin request.
        #expect(!text.contains("bytes_total{stream=\"news\",kind=\"segment\"} 1500"))
        #expect(!text.contains("SECRET") && !text.contains("http://"), "no URL in any label")
        #expect(has(#"hlstui_exits_before_first_frame_total{stream="news"} 0"#), "alerted series exist at zero")
        #expect(has(#"hlstui_key_failures_total{stream="news",pane="1",cause="transport"} 0"#), "every cause, from the pane's first report")
        #expect(has(#"hlstui_playback_failures_total{stream="news",pane="1"} 0"#))
    }

    @Test("ticks set gauges (NaN when unknown); startup counted once per session; dropped frames as a counter across player restarts")
    func ticks() {
        let metrics = PlaybackMetrics()
        let m = metrics.stream("cam")
        var s = SessionState(url: "http://o/cam/index.m3u8")
        s.now = 0.8
        _ = s.playback.restarted(at: 0.8)
        s.sample.droppedFrames = 3
        m.tick([s], sync: nil)
        s.now = 1.6
        s.sample.droppedFrames = 5
        m.tick([s], sync: nil)
        var text = String(decoding: metrics.exposition(), as: UTF8.self)
        let has = { (t: String, line: String) in t.split(separator: "\n").contains { $0 == line } }
        #expect(has(text, #"hlstui_startup_seconds_count{stream="cam",pane="1"} 1"#), "\(text)")
        #expect(has(text, #"hlstui_startup_seconds_bucket{stream="cam",pane="1",le="1.0"} 1"#))
        #expect(has(text, #"hlstui_dropped_frames_total{stream="cam",pane="1"} 5"#))
        #expect(has(text, #"hlstui_live_latency_seconds{stream="cam",pane="1"} nan"#))
        #expect(has(text, #"hlstui_picture_frozen{stream="cam",pane="1"} nan"#), "no frame sampled: not known")
        m.finished([s])
        #expect(has(String(decoding: metrics.exposition(), as: UTF8.self), #"hlstui_playing{stream="cam",pane="1"} 0.0"#))
        // The next session: a new player counts from 0 again; its first frame is a second startup.
        s.sample.droppedFrames = 2
        s.now = 2.5
        m.tick([s], sync: nil)
        text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(has(text, #"hlstui_dropped_frames_total{stream="cam",pane="1"} 7"#))
        #expect(has(text, #"hlstui_startup_seconds_count{stream="cam",pane="1"} 2"#))
        // A session that never showed a frame.
        m.finished([SessionState(url: "x")])
        m.restarted(failed: true)
        text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(has(text, #"hlstui_exits_before_first_frame_total{stream="cam"} 1"#))
        #expect(has(text, #"hlstui_session_restarts_total{stream="cam",reason="failed"} 1"#))
    }
}
