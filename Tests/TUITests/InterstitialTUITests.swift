import HLS
import SessionFixtures
import Testing

@testable import Session
@testable import TUI

/// An interstitial on the dashboard (docs/EVENTS.md, "Interstitials played"): the status line says which asset plays and
/// where the primary waits, the ladder panel is the asset's.
@Suite struct InterstitialTUITests {
    @Test("while an asset plays: its time and variant on the status line, the interstitial named under it, its own ladder drawn")
    func assetOnScreen() throws {
        var s = Fixture.started(Fixture.multivariant, media: Fixture.media())
        let multivariant = Fixture.playlist(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=200000,RESOLUTION=320x180\na/180.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=600000,RESOLUTION=854x480\na/480.m3u8\n"
        )
        let ad = try #require(
            Interstitial(
                DateRange(
                    id: "ad-1", classID: Interstitial.classID, startDate: DateTime(seconds: 0), startDateText: "", endOnNext: false,
                    extra: [
                        Attribute(name: "X-ASSET-URI", value: "ad.m3u8", quoted: true),
                        Attribute(name: "X-RESTRICT", value: "SKIP", quoted: true),
                    ],
                    beforeSegment: 2)))
        _ = s.beginInterstitial(ad, resume: .vod(DateTime(seconds: 0)), when: "mid", at: 1)
        _ = s.reduce(.interstitial(.assetOpened(multivariant)), at: 1.1)
        _ = s.reduce(.event(.playbackStarted), at: 1.2)
        var sample = PlayerSample()
        sample.timePos = 3.5
        _ = s.reduce(.event(.sample(sample)), at: 4.7)
        let m = DashboardModel(s, ui: UIState())
        #expect(m.status.interstitial == "interstitial ad-1 (asset 1/1)")
        #expect(m.ladder.map(\.resolution) == ["320x180", "854x480"] && m.ladder.map(\.playing) == [false, true], "\(m.ladder)")
        let screen = Dashboard.render(m, width: 80, height: 24).text
        #expect(screen.contains("asset 480p") && screen.contains("ad 00:03"), "\(screen)")
        #expect(screen.contains("◆ interstitial ad-1 (asset 1/1)  X-RESTRICT SKIP  primary held at PDT"), "\(screen)")
        #expect(screen.contains("Ladder of interstitial ad-1"), "\(screen)")
    }
}
