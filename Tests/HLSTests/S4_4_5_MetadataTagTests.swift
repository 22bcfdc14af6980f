import HLS
import Testing

@Suite("§4.4.5 Media Metadata tags")
struct MetadataTagTests {
    @Test("EXT-X-DATERANGE is read with its place, and its rules are checked (§4.4.5.1)")
    func dateRange() {
        let r = parse(
            mediaText(
                """
                #EXT-X-DATERANGE:ID="ad1",CLASS="com.example.ad",START-DATE="2026-01-01T00:00:00Z",DURATION=30,X-COM-EXAMPLE-ID="7"
                #EXTINF:4,
                a.ts
                #EXT-X-DATERANGE:ID="bad",START-DATE="2026-01-01T00:00:10Z",END-DATE="2026-01-01T00:00:05Z"
                #EXT-X-DATERANGE:ID="next",START-DATE="2026-01-01T00:00:10Z",END-ON-NEXT=YES,DURATION=3
                #EXT-X-DATERANGE:START-DATE="2026-01-01T00:00:10Z"
                #EXTINF:4,
                b.ts
                """))
        let d = r.mediaPlaylist.dateRanges
        #expect(d.map(\.id) == ["ad1", "bad", "next"])
        #expect(d[0].duration == 30 && d[0].classID == "com.example.ad" && d[0].beforeSegment == 0 && d[1].beforeSegment == 1)
        #expect(d[0].extra == [Attribute(name: "X-COM-EXAMPLE-ID", value: "7", quoted: true)])
        #expect(r.has(.error, "END-DATE is before its START-DATE", line: 7))
        #expect(r.has(.error, "END-ON-NEXT=YES MUST have a CLASS", line: 8))
        #expect(r.has(.error, "MUST NOT have DURATION or END-DATE", line: 8))
        #expect(r.has(.error, "missing its required ID", line: 9))
        #expect(PlaylistWriter.write(r.playlist).contains("X-COM-EXAMPLE-ID=\"7\""))
    }

    @Test("EXT-X-SKIP shifts the media sequence of the segments after it (§4.4.5.2)")
    func skip() {
        let r = parse(
            """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=24
            #EXT-X-SKIP:SKIPPED-SEGMENTS=3,RECENTLY-REMOVED-DATERANGES="a\tb"
            #EXTINF:4,
            s103.ts
            """)
        #expect(r.mediaPlaylist.segments[0].mediaSequence == 103)
        #expect(r.mediaPlaylist.skip?.recentlyRemovedDateRanges == ["a", "b"])
    }

    @Test("EXT-X-PRELOAD-HINT and EXT-X-RENDITION-REPORT (§4.4.5.3, §4.4.5.4)")
    func hintsAndReports() {
        let r = parse(
            mediaText(
                """
                #EXT-X-PART-INF:PART-TARGET=1
                #EXTINF:4,
                a.mp4
                #EXT-X-PRELOAD-HINT:TYPE=PART,URI="p1.mp4",BYTERANGE-START=100
                #EXT-X-PRELOAD-HINT:TYPE=PART,URI="p2.mp4"
                #EXT-X-PRELOAD-HINT:TYPE=BLOB,URI="x"
                #EXT-X-RENDITION-REPORT:URI="../alt/a.m3u8",LAST-MSN=10,LAST-PART=2
                """, version: 9, end: false))
        let m = r.mediaPlaylist
        #expect(m.preloadHints.first == PreloadHint(type: "PART", uri: "p1.mp4", byteRangeStart: 100, byteRangeLength: nil))
        #expect(r.has(.error, "MUST NOT have more than one of the same TYPE", line: 8))
        #expect(r.has(.error, "TYPE=BLOB is not one of PART, MAP", line: 9))
        #expect(m.renditionReports == [RenditionReport(uri: "../alt/a.m3u8", lastMSN: 10, lastPart: 2)])
    }
}
