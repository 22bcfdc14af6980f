import HLS
import LoaderEvents
import Testing

@testable import Session
@testable import TUI

/// The validation panel (`V`): what the stream broke while it played, from the Session's own findings.
@Suite("V: the rules the stream broke while it played, newest first, must fixes marked")
struct ValidationPanelTests {
    static func live(_ uris: [String], sequence: Int = 0) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
        for u in uris { text += "#EXTINF:2,\n\(u)\n" }
        return PlaylistParser.parseLenient(text).playlist.media!
    }

    @Test("a segment's URI changed under its MSN between two reloads: counted, listed with its rule and section; V toggles it")
    func panel() {
        var s = SessionState(url: "http://o/v/index.m3u8")
        let first = Self.live(["a0.ts", "a1.ts", "a2.ts"])
        _ = s.reduce(.event(.opened(url: s.url, playlist: Playlist(body: .media(first)), diagnostics: [])), at: 0)
        var ui = UIState()
        ui.toggleLower(.validation)
        #expect(DashboardModel(s, ui: ui).validation.first?.hasPrefix("no rule broken so far") == true)
        for (t, m) in [(0.1, first), (2.1, Self.live(["a0.ts", "b1.ts", "a2.ts", "a3.ts"]))] {
            _ = s.reduce(.event(.loader(.playlist(PlaylistEvent(url: s.url, rung: 0, rendition: nil, playlist: m, received: t)))), at: t)
        }
        let lines = DashboardModel(s, ui: ui).validation
        #expect(lines.first == "1 found: 1 must fix, 0 should fix", "\(lines)")
        #expect(lines.count == 2 && lines[1].hasPrefix("2.1s  must    #0 0k playlist  uri-changed  msn 1 was a1.ts, now b1.ts"), "\(lines)")
        #expect(lines[1].hasSuffix("(RFC 8216bis §6.2.1)"), "\(lines[1])")
        let screen = Dashboard.render(DashboardModel(s, ui: ui), width: 120, height: 30).text
        #expect(screen.contains("Validation") && screen.contains("uri-changed"), "\(screen)")
        #expect(Keymap.command(for: .char("V")) == .toggleValidation)
        ui.toggleLower(.validation)
        #expect(ui.lower == .log)
    }
}
