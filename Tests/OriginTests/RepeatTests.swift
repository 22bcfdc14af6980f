import HLS
import Testing
@testable import Origin

@Suite("?repeat=N: a long VOD from the same bytes")
struct RepeatTests {
    static let vod = PlaylistParser.parseLenient(
        """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXTINF:2,
        seg0.ts
        #EXTINF:2,
        seg1.ts?id3=1
        #EXT-X-ENDLIST

        """
    ).playlist

    @Test("the segments N times over: each copy after a discontinuity (RFC 8216bis §4.4.4.3), its PDTs moved on, its URIs marked")
    func repeated() throws {
        let m = try #require(OriginRouter.repeated(Self.vod, times: 3).media)
        #expect(
            m.segments.map(\.uri) == [
                "seg0.ts", "seg1.ts?id3=1", "seg0.ts?rep=1", "seg1.ts?id3=1&rep=1", "seg0.ts?rep=2", "seg1.ts?id3=1&rep=2",
            ])
        #expect(m.segments.map(\.discontinuity) == [false, false, true, false, true, false])
        let start = try #require(m.segments[0].programDateTime)
        #expect(m.segments[4].programDateTime.map { $0.seconds(since: start) } == 8)
        #expect(m.endList)
        // A live playlist, or once: as it is.
        var live = Self.vod
        if case .media(var lm) = live.body {
            lm.endList = false
            live.body = .media(lm)
        }
        #expect(OriginRouter.repeated(live, times: 3).media?.segments.count == 2)
        #expect(OriginRouter.repeated(Self.vod, times: 1).media?.segments.count == 2)
    }
}
