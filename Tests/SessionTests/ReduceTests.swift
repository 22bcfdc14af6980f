import HLS
import LoaderEvents
import Session
import Testing

/// The Session's one entry point, used as the pane's owner uses it: only `SessionInput`s in, only `PanePlan`s out, through the
/// module's public face (this file does not import it `@testable`: its setters are the Session's own).
@Suite("One entry point: every input through reduce, every answer a plan")
struct ReduceTests {
    static let steered = """
        #EXTM3U
        #EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="cdn-b"
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-a",STABLE-VARIANT-ID="lo"
        http://a.test/v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-a",STABLE-VARIANT-ID="hi"
        http://a.test/v360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-b",STABLE-VARIANT-ID="lo"
        http://b.test/v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-b",STABLE-VARIANT-ID="hi"
        http://b.test/v360/index.m3u8

        """

    /// Opened and given rung 2 (cdn-b's 144p), by inputs alone.
    static func session(settings: SessionSettings = SessionSettings()) -> SessionState {
        var s = SessionState(url: "http://origin.test/master.m3u8", settings: settings)
        let playlist = PlaylistParser.parseLenient(steered).playlist
        _ = s.reduce(.event(.opened(url: s.url, playlist: playlist, diagnostics: [])), at: 0)
        _ = s.reduce(.event(.switched(VariantSwitch(t: 0.1, from: nil, to: 2, reason: .start, mechanism: .load))), at: 0.1)
        return s
    }

    @Test("the command line's settings are the Session's from its start: the pin, the caps, how switches take effect")
    func settings() {
        var settings = SessionSettings()
        settings.mode = .pinned(1)
        settings.caps.maxHeight = 144
        settings.manualSwitch = .smooth
        settings.autoSwitch = .immediate
        settings.insecureTLS = true
        let s = Self.session(settings: settings)
        #expect(s.mode == .pinned(1) && s.caps.maxHeight == 144)
        #expect(s.manualSwitch == .smooth && s.autoSwitch == .immediate && s.insecureTLS)
    }

    @Test("a sample's plan: the steering manifest read when due (once), before any switch it brings")
    func sampled() throws {
        var s = Self.session()
        let look = PlayerLook(time: nil)
        let first = s.reduce(.sampled(look), at: 0.2)
        let steering = try #require(first.effects.first)
        guard case .reloadSteering(let url, let pathway, _) = steering else {
            Issue.record("the first effect reads the steering manifest: \(first.effects)")
            return
        }
        #expect(url == "steer.json" && pathway == "cdn-b", "resolved against the stream by the owner")
        #expect(
            !s.reduce(.sampled(look), at: 0.3).effects.contains { if case .reloadSteering = $0 { true } else { false } },
            "not again before its TTL")
    }

    @Test("a key's plan: the pause toggled; a pathway pinned answers with facts; sync's keys are not the pane's")
    func actions() {
        var s = Self.session()
        let look = PlayerLook(time: 1)
        #expect(s.reduce(.action(.togglePause, look), at: 1).effects == [.pause(true)] && s.userPaused)
        #expect(s.reduce(.action(.togglePause, look), at: 2).effects == [.pause(false)] && !s.userPaused)
        let pinned = s.reduce(.action(.pinPathway("cdn-a"), look), at: 3)
        #expect(s.pathways?.pinned == "cdn-a" && pinned.effects.isEmpty && !pinned.facts.isEmpty, "\(pinned.facts)")
        let sync = s.reduce(.action(.toggleSync, look), at: 4)
        #expect(sync.effects.isEmpty && sync.facts.isEmpty && sync.record == nil)
    }

    @Test("sync's move to a moment the stream cannot reach is refused, with nothing to carry out")
    func refused() throws {
        var s = Self.session()
        let date = try #require(DateTime(iso8601: "2025-12-31T23:00:00.000Z"))
        let plan = s.reduce(.realign(to: date, readAt: 1), at: 1)
        #expect(plan.refused && plan.effects.isEmpty)
        let hold = s.reduce(.hold(seconds: 0.4), at: 1)
        #expect(!hold.refused && hold.effects == [.readahead(10.4), .pause(true), .after(ms: 400, .endHold)])
    }
}
