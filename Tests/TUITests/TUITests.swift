import Foundation
import HLS
import LoaderEvents
@testable import Session
import SessionFixtures
import Testing
@testable import TUI

/// A session as the dashboard would see it mid-playback: ladder, playlist with GAP and keys, requests, a buffered range.
func sampleSession() -> SessionState {
    let mv = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,FRAME-RATE=30,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=700000,RESOLUTION=640x360,FRAME-RATE=30,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        v360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720,FRAME-RATE=30,CODECS="hev1.1.6.L93.B0,mp4a.40.2",AUDIO="aac"
        v720/index.m3u8

        """
    // The Session's rung with one GAP (segment 6): keys every four segments, 2 s each, VOD.
    var s = Fixture.loaded(mv, rung: 1, media: Fixture.media(gaps: [6]), mediaURL: "http://origin.test/v360/index.m3u8")
    s.apply(
        .loader(
            .key(
                KeyEvent(
                    uri: "http://origin.test/k0.key", method: .aes128, keyFormat: "identity", fingerprint: "5bd4e1f0", firstMSN: 0,
                    lastMSN: 3,
                    requested: 0.05, latencyMs: 300, prefetch: true, repair: nil, source: "origin", error: nil))), at: 0.1)
    s.apply(
        .loader(
            .key(
                KeyEvent(
                    uri: "http://origin.test/k1.key", method: .aes128, keyFormat: "identity", fingerprint: "77aa0c12", firstMSN: 4,
                    lastMSN: 7,
                    requested: 0.06, latencyMs: 12, prefetch: true, repair: "17 bytes: trailing newline dropped", source: "origin",
                    error: nil))), at: 0.1)
    for i in 0..<5 {
        s.apply(
            .loader(
                .request(
                    RequestEvent(
                        kind: .segment, url: "http://origin.test/v360/seg\(i).ts", rung: 1, msn: i, start: 0.2 + Double(i) / 100,
                        ttfbMs: 1.5,
                        durationMs: 20, bytes: 120_000, status: 200, local: false, prefetch: false, retries: 0, outcome: .ok,
                        firstPTS: 1.4 + Double(i) * 2))), at: 0.3)
    }
    s.apply(
        .loader(
            .request(
                RequestEvent(
                    kind: .segment, url: "http://origin.test/v360/seg6.ts", rung: 1, msn: 6, start: 0.4, ttfbMs: nil, durationMs: 0,
                    bytes: 0, status: 404, local: true, prefetch: false, retries: 0, outcome: .gap, firstPTS: nil))), at: 0.4)
    s.apply(.playbackStarted, at: 0.5)
    var p = PlayerSample()
    p.timePos = 6.4
    p.width = 640
    p.height = 360
    p.seekableRanges = [TimeRange(start: 1.4, end: 11.4)]
    s.apply(.sample(p), at: 5)
    _ = s.select(.capHeight(360))
    return s
}

@Suite("Dashboard panels as text snapshots")
struct SnapshotTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    func check(_ name: String, _ canvas: Canvas) throws {
        let url = Self.dir.appendingPathComponent(name)
        let text = canvas.lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            // Recording is never a pass: the run that writes a snapshot fails, so a changed picture is always looked at.
            let old = try? String(contentsOf: url, encoding: .utf8)
            try text.write(to: url, atomically: true, encoding: .utf8)
            #expect(old == text, "snapshot \(name) recorded (UPDATE_SNAPSHOTS=1): check the diff and run again without it")
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "snapshot \(name) differs:\n\(text)")
    }

    @Test("a frame differs from the last when only a log line's colour does: the model's equality covers every field")
    func logLineRoleRedraws() throws {
        let a = DashboardModel(sampleSession(), ui: UIState())
        var b = a
        #expect(a == b)
        try #require(!b.logLines.isEmpty)
        b.logLines[0].role = b.logLines[0].role == .bad ? .normal : .bad
        #expect(a != b)
    }

    @Test("80x24 dashboard", arguments: [(80, 24), (120, 40)])
    func dashboard(size: (Int, Int)) throws {
        let c = Dashboard.render(DashboardModel(sampleSession(), ui: UIState()), width: size.0, height: size.1)
        #expect(c.lines.count == size.1 && c.lines.allSatisfy { displayWidth($0) == size.0 })
        try check("dashboard-\(size.0)x\(size.1).txt", c)
    }

    @Test("LL-HLS reloads: the last hold and what delta updates saved, on the second status line")
    func lowLatency() {
        var s = sampleSession()
        #expect(!Dashboard.render(DashboardModel(s, ui: UIState()), width: 120, height: 40).text.contains("LL "))
        for (bytes, whole, hold) in [(1000, 1000, 0.4), (600, 1000, 0.62)] {
            s.apply(
                .loader(
                    .reload(
                        ReloadEvent(
                            url: "http://origin.test/v360/index.m3u8", rung: 1, blockedFor: 9, delta: true, holdSeconds: hold, bytes: bytes,
                            wholeBytes: whole, skipped: bytes < whole ? 5 : 0, lastMSN: 9, targetDuration: 4, partTarget: 1))),
                at: 6)
        }
        let text = Dashboard.render(DashboardModel(s, ui: UIState()), width: 120, height: 40).text
        // 400 of 2000 playlist bytes saved; the last reload was held 0.62 s.
        #expect(text.contains("LL held 0.62s delta -20%"), "\(text)")
    }

    @Test("the LL-HLS panel (L): parts at the edge, holds against PART-TARGET, hints, deltas, reports; fits 80 columns")
    func lowLatencyPanel() throws {
        var s = sampleSession()
        var ui = UIState()
        ui.toggleLower(.lowLatency)
        #expect(Dashboard.render(DashboardModel(s, ui: ui), width: 80, height: 24).text.contains("not a low-latency stream"))
        var text = "#EXTM3U\n#EXT-X-VERSION:9\n#EXT-X-TARGETDURATION:4\n#EXT-X-PART-INF:PART-TARGET=1\n"
        text += "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3,CAN-SKIP-UNTIL=24\n#EXT-X-MEDIA-SEQUENCE:100\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for n in 100..<103 {
            if n == 102 { for i in 0..<4 { text += "#EXT-X-PART:DURATION=1,URI=\"s\(n).\(i).ts\"\n" } }
            text += "#EXTINF:4,\ns\(n).ts\n"
        }
        text += "#EXT-X-PART:DURATION=1,URI=\"s103.0.ts\",INDEPENDENT=YES\n#EXT-X-PART:DURATION=1,URI=\"s103.1.ts\"\n"
        text += "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s103.2.ts\"\n"
        text += "#EXT-X-RENDITION-REPORT:URI=\"../v144/index.m3u8\",LAST-MSN=103,LAST-PART=0\n"
        let m = try #require(PlaylistParser.parseLenient(text).playlist.media)
        #expect(m.renditionReportLag == 1)
        s.apply(
            .loader(.playlist(PlaylistEvent(url: "http://origin.test/v360/index.m3u8", rung: 1, rendition: nil, playlist: m, received: 6))),
            at: 6)
        for (hold, bytes) in [(0.98, 600), (1.0, 620), (14.0, 1000)] {
            s.apply(
                .loader(
                    .reload(
                        ReloadEvent(
                            url: "http://origin.test/v360/index.m3u8", rung: 1, blockedFor: 103, delta: true, holdSeconds: hold,
                            bytes: bytes,
                            wholeBytes: 1000, skipped: 5, lastMSN: 102, targetDuration: 4, partTarget: 1, blockedPart: 1, reportLag: 1))),
                at: 6)
        }
        for status in [200, 200, 404] {
            s.apply(
                .loader(
                    .request(
                        RequestEvent(
                            kind: .part, url: "http://origin.test/v360/s103.1.ts", rung: 1, msn: 103, start: 6, ttfbMs: 900,
                            durationMs: 901,
                            bytes: 1000, status: status, local: false, prefetch: true, retries: 0,
                            outcome: status == 200 ? .ok : .failed("HTTP 404"),
                            firstPTS: nil, hint: true))),
                at: 6)
        }
        let c = Dashboard.render(DashboardModel(s, ui: ui), width: 80, height: 24)
        #expect(c.lines.count == 24 && c.lines.allSatisfy { displayWidth($0) == 80 })
        let screen = c.text
        #expect(screen.contains("LL-HLS") && screen.contains("PART-TARGET 1.00 s  PART-HOLD-BACK 3.0 s"), "\(screen)")
        // Segment 102 whole (four parts), 103 in progress with two, and the hinted third.
        #expect(screen.contains("edge ") && screen.contains("102 ▮▮▮▮") && screen.contains("103 ▮▮  ▯"), "\(screen)")
        #expect(screen.contains("holds  3 blocking reloads: p50 1.00 s"), "\(screen)")
        #expect(screen.contains("2 came true, 1 did not"), "\(screen)")
        #expect(screen.contains("deltas 26 % of playlist bytes saved"), "\(screen)")
        #expect(screen.contains("trails this playlist by 1 part"), "\(screen)")
        // The hold of 14 s is over three target durations.
        let wide = Dashboard.render(DashboardModel(s, ui: ui), width: 160, height: 40).text
        #expect(wide.contains("1 over three target durations (§6.2.5.2)"), "\(wide)")
    }

    @Test("a downloaded key's countdown to the clock that ends it first fits the 80-column key row; an expired one says so")
    func persistedKeys() {
        var s = sampleSession()
        var sample = s.sample
        sample.wall = DateTime(seconds: 1_000_000)
        s.apply(.sample(sample), at: 6)
        for (uri, fp, expires) in [
            ("http://origin.test/k0.key", "5bd4e1f0", 1_003_592.0), ("http://origin.test/k1.key", "77aa0c12", 999_000.0),
        ] {
            s.apply(
                .loader(
                    .key(
                        KeyEvent(
                            uri: uri, method: .aes128, keyFormat: "identity", fingerprint: fp, firstMSN: 0, lastMSN: 3, requested: 0.05,
                            latencyMs: 1, prefetch: true, repair: nil, source: "download", error: nil, expires: expires,
                            expiresClock: "playback"))), at: 6)
        }
        let text = Dashboard.render(DashboardModel(s, ui: UIState()), width: 80, height: 24).text
        #expect(text.contains("fp 5bd4e1f0 msn 0–3 stored · playback 59m 52s left"), "\(text)")
        #expect(text.contains("fp 77aa0c12 msn 0–3 stored · EXPIRED (playback)"), "\(text)")
    }

    @Test("what the dashboard says is what the session measured")
    func content() {
        let text = Dashboard.render(DashboardModel(sampleSession(), ui: UIState()), width: 120, height: 40).text
        #expect(text.contains("▶ PLAYING  00:05.0/00:20.0  #1 360p 800k  640x360"))
        #expect(text.contains("PDT 2026-01-01T00:00:05.000Z  cap ≤360p  auto"))
        #expect(text.contains("✕cap"), "the 720p rung is excluded by the cap")
        #expect(text.contains("⚠hev1"))
        #expect(text.contains("fp 5bd4e1f0 msn 0–3 300ms prefetch"))
        #expect(text.contains("repaired(17 bytes: trailing newline dropped)"))
        #expect(text.contains("buffered 10.0s, 5.0s ahead"))
        #expect(text.contains("GAP"))
        #expect(!text.contains("nan") && !text.contains("inf"))
    }

    @Test("with --cache each request line says hit, miss or resumed and the bytes saved; a hit is dimmed like a local answer")
    func cacheNotes() {
        func request(_ cache: CacheOutcome?, saved: Int) -> RequestEvent {
            RequestEvent(
                kind: .segment, url: "http://o/v/seg3.ts", rung: 0, msn: 3, start: 1, ttfbMs: 1, durationMs: 2, bytes: 58_000, status: 206,
                local: cache == .hit, prefetch: false, retries: 0, outcome: .ok, firstPTS: nil, cache: cache, savedBytes: saved)
        }
        let hit = DashboardModel.requestLine(request(.hit, saved: 58_000))
        #expect(hit.text.hasSuffix("seg3.ts  hit 56.6k saved") && hit.role == .dim, "\(hit)")
        #expect(DashboardModel.requestLine(request(.resumed, saved: 4096)).text.hasSuffix("seg3.ts  resumed 4.0k saved"))
        #expect(DashboardModel.requestLine(request(.miss, saved: 0)).text.hasSuffix("seg3.ts  miss"))
        #expect(DashboardModel.requestLine(request(nil, saved: 0)).text.hasSuffix("seg3.ts"))
    }

    @Test("a progressive file: its pieces with their byte ranges in the request log, the ladder's one rung named MP4 file")
    func progressiveFile() {
        let piece = RequestEvent(
            kind: .file, url: "http://o/progressive/movie.mp4", rung: 0, msn: nil, start: 1, ttfbMs: 1, durationMs: 2, bytes: 262_144,
            status: 206, local: false, prefetch: false, retries: 0, outcome: .ok, firstPTS: nil, cache: .miss, range: "bytes=0-262143")
        #expect(DashboardModel.requestLine(piece).text.hasSuffix("movie.mp4 bytes=0-262143  miss"), "\(DashboardModel.requestLine(piece))")
        var media = MediaPlaylist()
        (media.targetDuration, media.endList, media.playlistType) = (20, true, "VOD")
        media.segments = [Segment(uri: "http://o/progressive/movie.mp4", duration: 20)]
        var s = SessionState(url: "http://o/progressive/movie.mp4")
        s.apply(.opened(url: s.url, playlist: Playlist(body: .media(media)), diagnostics: [], file: true), at: 0)
        let text = Dashboard.render(DashboardModel(s, ui: UIState()), width: 100, height: 30).text
        #expect(text.contains("MP4 file"), "\(text)")
    }

    @Test("the buffer bar marks buffered ranges, GAP segments and the playhead in their own roles")
    func bar() {
        let t = TimelineModel(
            length: 20, segments: (0..<10).map { SegmentMark(start: Double($0) * 2, duration: 2, gap: $0 == 6, discontinuity: $0 == 8) },
            buffered: [TimeRange(start: 0, end: 10)], playhead: 5, live: false, firstMSN: 0)
        let cells = Dashboard.bar(t, width: 20)
        #expect(cells.map(\.0).joined() == "█████┃████░░╳╳░░¦░░░")
        #expect(cells[12].1 == .gap && cells[5].1 == .playhead && cells[0].1 == .buffered && cells[16].1 == .discontinuity)
        // A break the stream announces starts at 8 s: marked there, named in the title and the legend (docs/EVENTS.md).
        var b = t
        b.breaks = [8]
        #expect(Dashboard.bar(b, width: 20).map(\.0).joined() == "█████┃██◆█░░╳╳░░¦░░░")
        let c = Dashboard.bar(b, width: 20)
        #expect(c[8].1 == .accent)
    }

    @Test("a stream with breaks: the session's breaks are marked where they start in the window, each once")
    func breakMarks() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for i in 0..<10 {
            if i == 4 {
                text += "#EXT-X-CUE-OUT:4\n"
                text += "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:08.000Z\",PLANNED-DURATION=4,SCTE35-OUT=0xFC00\n"
            }
            if i == 6 { text += "#EXT-X-CUE-IN\n" }
            text += "#EXTINF:2,\ns\(i).ts\n"
        }
        text += "#EXT-X-ENDLIST\n"
        let m = try #require(PlaylistParser.parseLenient(text).playlist.media)
        var s = SessionState(url: "http://o/v/index.m3u8")
        s.apply(.opened(url: s.url, playlist: Playlist(body: .media(m)), diagnostics: []), at: 0)
        s.apply(.loader(.playlist(PlaylistEvent(url: s.url, rung: 0, rendition: nil, playlist: m, received: 0.1))), at: 0.1)
        let t = try #require(DashboardModel(s, ui: UIState()).timeline)
        #expect(t.breaks == [8], "\(t.breaks)")
        let screen = Dashboard.render(DashboardModel(s, ui: UIState()), width: 100, height: 30).text
        #expect(screen.contains("10 segments, 1 break") && screen.contains("◆ break"), "\(screen)")
        // `E`: the events panel in place of the log, each break with its messages; the date range is the break, not listed twice.
        var ui = UIState()
        ui.toggleLower(.events)
        let events = DashboardModel(s, ui: ui).events
        // The date range has no end in the playlist (PLANNED-DURATION only): how long it has run by the last segment.
        #expect(events.first == "◆ ad  DATERANGE  00:00:08.000  planned 4.0s, so far 12.0s", "\(events)")
        #expect(events.contains("    SCTE35-OUT: cannot decode SCTE-35: 2 bytes, shorter than a splice_info_section"), "\(events)")
        #expect(events.contains { $0.hasPrefix("◆ cue-out@4  CUE-OUT  00:00:08.000  planned 4.0s, lasts 4.0s") }, "\(events)")
        #expect(events.filter { $0.contains(" ad ") }.count == 1)
        let panel = Dashboard.render(DashboardModel(s, ui: ui), width: 100, height: 30).text
        #expect(panel.contains("Events") && panel.contains("cue-out@4"), "\(panel)")
    }

    @Test("a date range of any CLASS and timed metadata: marked where they stand in the window, listed in E with what they carry")
    func eventAndMetadataMarks() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        text += "#EXT-X-DATERANGE:ID=\"ch2\",CLASS=\"com.example.chapter\",START-DATE=\"2026-01-01T00:00:05.000Z\",X-TITLE=\"two\"\n"
        for i in 0..<10 { text += "#EXTINF:2,\ns\(i).ts\n" }
        text += "#EXT-X-ENDLIST\n"
        let m = try #require(PlaylistParser.parseLenient(text).playlist.media)
        var s = SessionState(url: "http://o/v/index.m3u8")
        s.apply(.opened(url: s.url, playlist: Playlist(body: .media(m)), diagnostics: []), at: 0)
        s.apply(.loader(.playlist(PlaylistEvent(url: s.url, rung: 0, rendition: nil, playlist: m, received: 0.1))), at: 0.1)
        // The media's clock starts at 10 s (raw time): segment 3 starts at 16.
        for i in 0..<10 { s.clock.firstPTS[i] = 10 + Double(i) * 2 }
        let tag = TimedMetadataEvent(
            rung: 0, msn: 3, time: 17.5, duration: nil, scheme: "ID3", value: "", id: 0, frames: [.init(id: "TXXX", text: "ad=1")],
            bytes: 30)
        let box = TimedMetadataEvent(
            rung: 0, msn: 7, time: 25, duration: 2, scheme: "urn:example:cue", value: "7", id: 9, frames: [], bytes: 12)
        s.apply(.loader(.timedMetadata(tag)), at: 0.2)
        s.apply(.loader(.timedMetadata(box)), at: 0.3)
        let t = try #require(DashboardModel(s, ui: UIState()).timeline)
        #expect(t.breaks.isEmpty && t.dateRanges == [5], "\(t.dateRanges)")
        #expect(t.metadata == [7.5, 15], "\(t.metadata)")
        #expect(Dashboard.bar(t, width: 20).map(\.0).joined() == "░░░░░◇░•░░░░░░░•░░░░")
        let screen = Dashboard.render(DashboardModel(s, ui: UIState()), width: 100, height: 30).text
        #expect(screen.contains("◇ date range  • metadata"), "\(screen)")
        // At 60 columns the legend keeps what fits between the ends' labels, in order.
        let narrow = Dashboard.render(DashboardModel(s, ui: UIState()), width: 60, height: 30).text
        #expect(narrow.contains("◇ date range") && !narrow.contains("• metadata"), "\(narrow)")
        var ui = UIState()
        ui.toggleLower(.events)
        let events = DashboardModel(s, ui: ui).events
        #expect(events.first == "  ch2  com.example.chapter  00:00:05.000  X-TITLE=two", "\(events)")
        // Newest first; none reached yet (the player has not looked).
        #expect(
            Array(events.dropFirst()) == ["  emsg urn:example:cue 7  msn 7  t 25.000  2.0s  12 B", "  ID3  msn 3  t 17.500  TXXX: ad=1"],
            "\(events)")
    }

    @Test("keys rotating on a live stream: the rows a screen has room for start at the playhead's key, not the first key ever seen")
    func keysFromThePlayhead() {
        // Six keys of 6 s each; the first three have left the window (no place on it), the playhead is 3 s into the fifth.
        let rows: [KeyRow] = (0..<6).map { (i: Int) -> KeyRow in
            let start: Double? = i < 3 ? nil : Double(i - 3) * 6
            return KeyRow(start: start, end: start.map { $0 + 6 }, role: .keyPrefetch, text: "k\(i)")
        }
        let shown = Dashboard.shownKeys(rows, playhead: 9, count: 2)
        #expect(shown.rows.map { $0.text } == ["k4", "k5"] && shown.fromPlayhead)
        // Between what the rows say each key covered (a key applies until the next one): the one that started last.
        let between = (0..<4).map { i in KeyRow(start: Double(i) * 6, end: Double(i) * 6 + 2, role: .keyPrefetch, text: "j\(i)") }
        #expect(Dashboard.shownKeys(between, playhead: 9, count: 2).rows.map { $0.text } == ["j1", "j2"])
        let last = Dashboard.shownKeys(rows, playhead: 16, count: 2)
        #expect(last.rows.map { $0.text } == ["k4", "k5"], "the last key: the rows end there")
        let none = Dashboard.shownKeys(rows, playhead: nil, count: 2)
        #expect(none.rows.map { $0.text } == ["k4", "k5"] && !none.fromPlayhead, "no playhead: the newest")
        #expect(Dashboard.shownKeys(rows, playhead: 9, count: 8).rows.count == 6, "room for all: all, in order")
        // A key known for one segment when it was fetched applies until the next key starts (RFC 8216bis §4.4.4.4).
        var session = sampleSession()
        session.apply(
            .loader(
                .key(
                    KeyEvent(
                        uri: "http://origin.test/k0.key", method: .aes128, keyFormat: "identity", fingerprint: "5bd4e1f0", firstMSN: 0,
                        lastMSN: 0, requested: 0.2, latencyMs: 3, prefetch: true, repair: nil, source: "origin", error: nil))), at: 0.2)
        let spans = DashboardModel(session, ui: UIState()).keys.map { [$0.start, $0.end] }
        #expect(spans == [[0, 8], [8, 16]], "\(spans)")
        #expect(DashboardModel(session, ui: UIState()).keys.first?.text.contains("msn 0–3") == true)
        var c = Canvas(width: 80, height: 4)
        var y = 0
        Dashboard.keys(shown, of: rows.count, playhead: nil, into: &c, y: &y)
        #expect(c.text.contains("2 of 6, from the playhead's") && c.text.contains("k4"), "\(c.text)")
    }

    @Test("help lists every binding; a tiny terminal gets a one-line explanation, not a crash")
    func helpAndTiny() {
        var ui = UIState()
        ui.showHelp = true
        let text = Dashboard.render(DashboardModel(sampleSession(), ui: ui), width: 80, height: 30).text
        #expect(text.contains("keys (? to close") && text.contains("resolution cap down a step"))
        let tiny = Dashboard.render(DashboardModel(sampleSession(), ui: UIState()), width: 15, height: 5)
        #expect(tiny.text.contains("hlstui needs"))
        _ = Dashboard.render(DashboardModel(SessionState(url: "x"), ui: UIState()), width: 80, height: 24)
        for w in stride(from: 20, through: 200, by: 7) {
            for h in stride(from: 8, through: 60, by: 5) {
                _ = Dashboard.render(DashboardModel(sampleSession(), ui: ui), width: w, height: h)
            }
        }
    }

    @Test("at 80×24 the help is longer than the screen: it says so, scrolls, and every binding and the legend can be read")
    func helpScrolls() {
        var ui = UIState()
        ui.showHelp = true
        var seen = Set<String>()
        var scroll = 0
        while scroll <= Dashboard.helpLineCount {
            ui.helpScroll = scroll
            let c = Dashboard.render(DashboardModel(sampleSession(), ui: ui), width: 80, height: 24)
            if scroll == 0 {
                #expect(c.text.contains("keys (? to close, ↑↓ PgUp PgDn scroll)") && c.text.contains(" more"), "\(c.text)")
            }
            for line in c.lines { seen.insert(line) }
            scroll += 5
        }
        let all = seen.joined(separator: "\n")
        for l in Keymap.helpLines + Dashboard.legend where !l.isEmpty {
            #expect(all.contains(l.trimmingCharacters(in: .whitespaces).prefix(40)), "never shown: \(l)")
        }
        // Where it fits, no scrolling is offered.
        ui.helpScroll = 0
        let tall = Dashboard.render(DashboardModel(sampleSession(), ui: ui), width: 120, height: 50)
        #expect(tall.text.contains("keys (? to close)") && !tall.text.contains("scroll)") && !tall.text.contains("▼"), "\(tall.text)")
    }

    @Test("an error replaces the info line with one sentence; the insecure flag is always visible")
    func errorAndInsecure() {
        var s = sampleSession()
        s.insecureTLS = true
        s.apply(.failed(message: "cannot open the stream: TLS untrusted", cause: "origin"), at: 6)
        let c = Dashboard.render(DashboardModel(s, ui: UIState()), width: 80, height: 24)
        #expect(c.lines[0].hasPrefix(" INSECURE TLS "))
        #expect(c.lines[1].hasPrefix("✖ cannot open the stream: TLS untrusted"))
        #expect(c.role(0, 0) == .insecure && c.role(20, 0) == .statusError)
    }
}

@Suite("Canvas, keys and themes")
struct TUIUnitTests {
    @Test("wide characters take two cells; text is clipped and cut with an ellipsis")
    func canvas() {
        var c = Canvas(width: 10, height: 2)
        c.put(0, 0, "日本語abcdef")
        #expect(c.lines[0] == "日本語abcd" && displayWidth(c.lines[0]) == 10)
        #expect(fit("abcdefgh", 5) == "abcd…")
        #expect(pad("ab", 4, right: true) == "  ab")
        #expect(fixed(2.345, 2) == "2.35")
        #expect(fixed(-0.04, 1) == "0.0", "a value that rounds to zero has no sign")
        #expect(fixed(-0.06, 1) == "-0.1" && fixed(7, 0) == "7")
        #expect(fixed(.nan, 1) == "nan" && fixed(1e300, 1) == "huge")
        c.put(-3, 1, "xyzw")
        #expect(c.lines[1].hasPrefix("w"))
    }

    @Test("a subtitle rendition is listed, marked shown once chosen, live or VOD; the audio playing is marked")
    func liveSubtitles() {
        let mv = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="subs/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac",SUBTITLES="subs"
            v144/index.m3u8

            """
        func session(live: Bool) -> SessionState {
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2.0,\ns7.ts\n#EXTINF:2.0,\ns8.ts\n"
            if !live { text += "#EXT-X-ENDLIST\n" }
            var s = SessionState(url: "http://origin.test/master.m3u8")
            s.apply(.opened(url: s.url, playlist: PlaylistParser.parseLenient(mv).playlist, diagnostics: []), at: 0)
            s.apply(.switched(VariantSwitch(t: 0.1, from: nil, to: 0, reason: .start, mechanism: .load)), at: 0.1)
            s.apply(.audioGiven(rung: 0), at: 0.1)
            let m = PlaylistParser.parseLenient(text, options: ParseOptions(url: "http://origin.test/v144/index.m3u8")).playlist.media!
            s.apply(
                .loader(
                    .playlist(PlaylistEvent(url: "http://origin.test/v144/index.m3u8", rung: 0, rendition: nil, playlist: m, received: 0.1))
                ), at: 0.1)
            return s
        }
        for live in [true, false] {
            var s = session(live: live)
            let r = DashboardModel(s, ui: UIState()).renditions
            #expect(r.contains { $0 == "subtitles subs/English [en]" }, "no DEFAULT, no choice: listed, not shown; \(r)")
            _ = s.planSubtitles(.next, at: 0.2)
            #expect(DashboardModel(s, ui: UIState()).renditions.contains { $0 == "subtitles subs/English [en] shown" })
            #expect(DashboardModel(s, ui: UIState()).subtitle?.label == "subs English [en]")
            #expect(r.contains { $0.hasPrefix("audio aac/English") && $0.hasSuffix(" playing") }, "\(r)")
        }
    }

    @Test("README is a map: at most ~150 lines, and every link it and the documents make to a file of the repository resolves")
    func links() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 150)
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var checked = 0
        for file in ["README.md", "DECISIONS.md"] + docs {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let base = root.appendingPathComponent(file).deletingLastPathComponent()
            for m in text.matches(of: /\]\(([^)#\s]+)(#[^)]*)?\)/) {
                let target = String(m.1)
                guard !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
                checked += 1
                #expect(
                    FileManager.default.fileExists(atPath: base.appendingPathComponent(target).path), "\(file) links to \(target)")
            }
        }
        #expect(checked >= 18, "\(checked) links")
        // Every feature page is on the map.
        for d in docs { #expect(readme.contains("](\(d))"), "README does not link \(d)") }
    }

    @Test("one table: no key bound twice, every screen command reachable, docs/DASHBOARD.md lists exactly the table")
    func keymap() throws {
        let keys = Keymap.bindings.flatMap(\.keys)
        #expect(Set(keys).count == keys.count)
        for k: TUI.Key in [
            .char(" "), .left, .right, .up, .down, .enter, .char("a"), .char("-"), .char("+"), .char("0"), .tab, .char("t"), .char("l"),
            .char("q"), .char("?"),
        ] {
            #expect(Keymap.command(for: k) != nil, "\(k) must do something")
        }
        #expect(Keymap.command(for: .char("-")) == .session(.capDown))
        #expect(Keymap.command(for: .control("c")) == .session(.quit))
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("docs/DASHBOARD.md"), encoding: .utf8)
        #expect(readme.contains(Keymap.markdown), "docs/DASHBOARD.md's key list must be `hlstui keys --markdown`")
        #expect(Keymap.helpLines.count == Keymap.bindings.count)
    }

    @Test("theme files: palette, roles, unknown keys and bad values reported with their line, missing roles from the fallback")
    func themeParser() {
        let fallback = Theme.parse("[roles]\nnormal = white\nwarn = yellow bold\n", file: "fb")
        let t = Theme.parse(
            """
            # comment
            name = test
            [palette]
            sea = #2e3440
            bad = #zzzzzz
            [roles]
            normal = sea on 17 bold
            status = black on sea reverse
            nonsense = red
            title = nowhere
            [extras]
            """, file: "t.theme", fallback: fallback)
        #expect(t.name == "test")
        #expect(t.palette["sea"] == .rgb(0x2e, 0x34, 0x40))
        #expect(t.style(.normal).fg == .rgb(0x2e, 0x34, 0x40) && t.style(.normal).bg == .indexed(17) && t.style(.normal).bold)
        #expect(t.style(.status).reverse)
        #expect(t.style(.warn).bold && t.style(.warn).fg == .indexed(3), "missing role falls back")
        #expect(t.issues.map(\.line) == [5, 9, 10, 11])
        #expect(t.issues[0].description.hasPrefix("t.theme:5: "))
        #expect(t.issues[1].message.contains("unknown role \"nonsense\""))
    }

    @Test("colours degrade to what the terminal has: 256, 16 or 8")
    func degrade() {
        #expect(Color.rgb(255, 0, 0).index(colors: 256) == 196 || Color.rgb(255, 0, 0).index(colors: 256) == 9)
        #expect(Color.rgb(0x2e, 0x34, 0x40).index(colors: 256)! >= 16)
        #expect(Color.rgb(250, 10, 10).index(colors: 16) == 9)
        #expect(Color.rgb(200, 0, 0).index(colors: 8) == 1)
        #expect(Color.indexed(200).index(colors: 8)! < 8)
        #expect(Color.indexed(4).index(colors: 8) == 4)
        #expect(Color.terminalDefault.index(colors: 256) == nil)
    }

    @Test("on a direct-colour terminal a colour number is RGB: theme colours are sent as their RGB, the eight ANSI ones as they are")
    func direct() {
        let direct = 1 << 24
        #expect(Color.rgb(0x2e, 0x34, 0x40).index(colors: direct) == 0x2e3440)
        // xterm's 196 is pure red, not RGB(0, 0, 196).
        #expect(Color.indexed(196).index(colors: direct) == 0xff0000)
        #expect(Color.indexed(4).index(colors: direct) == 4)
        // Numbers below eight are the ANSI colours on such a terminal: a near-black RGB stays RGB.
        #expect(Color.rgb(0, 0, 3).index(colors: direct) == 8)
    }

    @Test("the shipped themes parse without a single issue, cover every role, and the built-in default equals themes/default.theme")
    func shipped() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("themes")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".theme") }.sorted()
        #expect(files.count >= 5)
        for name in ["default", "monochrome", "light", "nord", "gruvbox-dark"] { #expect(files.contains("\(name).theme")) }
        for f in files {
            let t = Theme.parse(try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8), file: f)
            #expect(t.issues.isEmpty, "\(f): \(t.issues)")
            #expect(Role.allCases.allSatisfy { t.roles[$0] != nil }, "\(f) leaves roles out")
        }
        let mono = Theme.parse(try String(contentsOf: dir.appendingPathComponent("monochrome.theme"), encoding: .utf8), file: "m")
        #expect(mono.roles.values.allSatisfy { $0.fg == .terminalDefault && $0.bg == .terminalDefault }, "monochrome uses attributes only")
    }
}

@Suite("The sync strip")
struct SyncStripTests {
    @Test("each state in one line that fits 80 columns; offset in ms with its sign, speed corrections in percent")
    func strip() {
        let d = DateTime(iso8601: "2026-11-22T10:00:01.234Z")!
        let locked = SyncStrip.render(
            SyncModel(state: .locked, offset: -0.0015, speeds: [1, 0.9993], pdts: [d, d.adding(seconds: 0.001)]), width: 80)
        let text = locked.lines[0]
        #expect(text.hasPrefix("⇆ SYNC locked │ A 10:00:01.234 B 10:00:01.235 │ Δ -1.5 ms │ speed +0.00% -0.07%"), "\(text)")
        #expect(locked.role(0, 0) == .playing)
        let off = SyncStrip.render(
            SyncModel(state: .off("pane 2 has no EXT-X-PROGRAM-DATE-TIME"), offset: nil, speeds: [1, 1], pdts: [nil, nil]), width: 80)
        #expect(off.lines[0].hasPrefix("⇆ SYNC off: pane 2 has no EXT-X-PROGRAM-DATE-TIME"))
        #expect(locked.lines[0].count == 80 && off.lines[0].count == 80)
    }

    @Test("--latency: the latency followed, each pane's error against it; auto before it chose; off with the reason")
    func latency() {
        let d = DateTime(iso8601: "2026-11-22T10:00:01.234Z")!
        var m = SyncModel(state: .locked, offset: 0.0021, speeds: [1, 1.0004], pdts: [d, d], offsets: [0.0021, -0.0004])
        m.followsClock = true
        m.latency = 10
        let text = SyncStrip.render(m, width: 80).lines[0]
        #expect(text.hasPrefix("⇆ LATENCY 10.0 s locked │ A +2.1 ms  B -0.4 ms │ speed +0.00% +0.04%"), "\(text)")
        m.latency = nil
        m.state = .waiting
        #expect(SyncStrip.render(m, width: 80).lines[0].hasPrefix("⇆ LATENCY auto waiting for PDT │ A +2.1 ms"))
        m.state = .off("pane 1 is not live: --latency follows live streams")
        #expect(SyncStrip.render(m, width: 80).lines[0].hasPrefix("⇆ LATENCY off: pane 1 is not live: --latency follows live streams"))
    }
}
