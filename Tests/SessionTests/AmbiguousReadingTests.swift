import HLS
import LoaderEvents
import Testing
@testable import Session

@Suite("A clock reading across a timestamp restart")
struct AmbiguousReadingTests {
    /// A live loop: segments 0–3, a discontinuity (timestamps restart), segments 4–7 with the same first PTS as 0–3.
    static func looped() -> (SessionState, MediaPlaylist) {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for i in 0..<8 { text += (i == 4 ? "#EXT-X-DISCONTINUITY\n" : "") + "#EXTINF:2.0,\nseg\(i).ts\n" }
        let m = Fixture.playlist(text).media!
        var s = SessionState(url: "http://origin.test/index.m3u8")
        s.apply(
            .loader(.playlist(PlaylistEvent(url: "http://origin.test/index.m3u8", rung: 0, rendition: nil, playlist: m, received: 0))),
            at: 0)
        for msn in 0..<4 { s.apply(.loader(.request(Fixture.request(msn, pts: 1 + 2 * Double(msn)))), at: 1) }
        return (s, m)
    }

    @Test("the player asked for the next loop's segment and its first PTS is not known: no reading, not a guess one loop early")
    func ambiguous() throws {
        var (s, m) = Self.looped()
        let p = try #require(s.clock.locate(5.2, in: m))
        #expect(p.msn == 2 && !s.ambiguous(p, in: m), "nothing asked for after the restart yet")
        s.apply(.loader(.segmentStarted(rung: 0, msn: 6, at: 2)), at: 2)
        #expect(s.ambiguous(p, in: m), "segment 6 (first PTS 5 too) may be the one playing")
        s.apply(.loader(.request(Fixture.request(6, pts: 5))), at: 2.1)
        let q = try #require(s.clock.locate(5.2, in: m))
        #expect(q.msn == 6 && !s.ambiguous(q, in: m), "measured: the newer loop's segment, no doubt left")
    }

    @Test("within one span a segment in flight is no doubt: its timestamps follow")
    func sameSpan() throws {
        var (s, m) = Self.looped()
        s.apply(.loader(.segmentStarted(rung: 0, msn: 3, at: 2)), at: 2)
        let p = try #require(s.clock.locate(3.5, in: m))
        #expect(p.msn == 1 && !s.ambiguous(p, in: m))
    }
}
