import Testing
@testable import LoaderCore

/// The Loader's id table over a live session: stable ids, segments forgotten once far behind, ids never reused.
@Suite("Loader ids: the same id for the same resource, a live playlist's old segments forgotten")
struct ResourceIDsTests {
    @Test("three hours of a live playlist read every 2 s: the table holds the margin and the window, and old ids are gone for good")
    func liveDay() {
        var t = ResourceIDs<String, Int>()
        let playlist = t.id("media a.m3u8", -1)
        var firstID: Int?
        // 5,400 segments of 2 s, a window of 6: each reload lists six and forgets what is 256 behind its first.
        for first in 0..<5_400 {
            for msn in first..<first + 6 {
                let id = t.id("segment \(msn)", msn, segmentOf: "a", msn: msn)
                if msn == 0 { firstID = firstID ?? id }
            }
            t.forget("a", before: first - 256)
            #expect(t.count <= 256 + 6 + 1)
        }
        #expect(t[playlist] == -1, "playlists are never forgotten: the player reads them again")
        #expect(t[firstID ?? 0] == nil, "segment 0 is gone")
        // Named again, an old segment gets a new id: an id, once forgotten, never means something else.
        let again = t.id("segment 0", 0, segmentOf: "a", msn: 0)
        #expect(again != firstID && again > 5_400)
        #expect(t.id("segment 5404", 5_404, segmentOf: "a", msn: 5_404) == t.id("segment 5404", 5_404), "the same id each time")
    }

    @Test("forgetting one playlist leaves the others' segments")
    func perPlaylist() {
        var t = ResourceIDs<String, Int>()
        let a = t.id("a 1", 1, segmentOf: "a", msn: 1)
        let b = t.id("b 1", 1, segmentOf: "b", msn: 1)
        t.forget("a", before: 10)
        #expect(t[a] == nil && t[b] == 1)
    }
}
