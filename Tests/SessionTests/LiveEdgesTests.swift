import HLS
import Testing

@testable import Session

/// The live edges' transitions (`Session/LiveEdges.swift`), one at a time.
@Suite("Live edges: each rung's newest segment, its playlist's reads, the stopped player's retries (pure)")
struct LiveEdgesTests {
    /// A live playlist of 2 s segments from MSN `first` to `last`, the last `lastLength` s long as listed.
    static func live(_ first: Int, _ last: Int, lastLength: Double = 2) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for msn in first...last { text += "#EXTINF:\(msn == last ? lastLength : 2),\ns\(msn).ts\n" }
        return PlaylistParser.parseLenient(text).playlist.media!
    }

    @Test("the newest segment recorded when first seen, moved by a new segment or a longer segment in progress, never back")
    func edges() throws {
        var e = LiveEdges()
        e.seen(0, Self.live(0, 4, lastLength: 1), at: 10)
        #expect(e.edges[0] == LiveEdge(msn: 4, at: 10, end: try #require(DateTime(iso8601: "2026-01-01T00:00:09.000Z")), length: 1))
        // The same again, or an older window: the edge stays where and when it was first seen.
        e.seen(0, Self.live(0, 4, lastLength: 1), at: 11)
        e.seen(0, Self.live(0, 3), at: 12)
        #expect(e.edges[0]?.at == 10 && e.edges[0]?.msn == 4)
        // More of the segment in progress, then a new segment.
        e.seen(0, Self.live(0, 4, lastLength: 2), at: 13)
        #expect(e.edges[0]?.at == 13 && e.edges[0]?.length == 2)
        e.seen(0, Self.live(1, 5), at: 14)
        #expect(e.edges[0]?.msn == 5 && e.age(0, at: 17) == 3 && e.age(1, at: 17) == nil)
        // A VOD playlist has no edge.
        var vod = Self.live(0, 2)
        vod.endList = true
        e.seen(1, vod, at: 15)
        #expect(e.edges[1] == nil)
    }

    @Test("a playlist unread for a target duration and a half is due, once; a stopped player is retried at most once a second")
    func due() {
        var e = LiveEdges()
        // Never read: the player reads it first.
        let unread = e.refreshDue(0, target: 2, at: 100)
        e.read(0, at: 10)
        let early = e.refreshDue(0, target: 2, at: 12.5)
        let due = e.refreshDue(0, target: 2, at: 12.6)
        let again = e.refreshDue(0, target: 2, at: 13)
        #expect(!unread && !early && due && !again && e.readAt[0] == 12.6)
        let retries = [5, 5.9, 6].map { e.recoveryDue(at: $0) }
        #expect(retries == [true, false, true])
    }
}
