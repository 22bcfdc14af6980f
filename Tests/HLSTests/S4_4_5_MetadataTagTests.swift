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

    @Test(
        "EXT-X-DATERANGE across tags (§4.4.5.1): PDT required, one ID's attributes never change, one CLASS never overlaps; SCTE-35 in hex, CUE, interstitial assets"
    )
    func dateRangeAcrossTags() {
        let r = parse(
            mediaText(
                """
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z
                #EXT-X-DATERANGE:ID="a",CLASS="com.example.ad",START-DATE="2026-01-01T00:00:00Z",PLANNED-DURATION=30
                #EXTINF:4,
                a.ts
                #EXT-X-DATERANGE:ID="a",CLASS="com.example.ad",START-DATE="2026-01-01T00:00:00Z",DURATION=20,X-AD="1"
                #EXT-X-DATERANGE:ID="a",START-DATE="2026-01-01T00:00:01Z",X-AD="2"
                #EXT-X-DATERANGE:ID="b",CLASS="com.example.ad",START-DATE="2026-01-01T00:00:10Z",DURATION=5
                #EXT-X-DATERANGE:ID="c",CLASS="com.example.other",START-DATE="2026-01-01T00:00:10Z",DURATION=5
                #EXT-X-DATERANGE:ID="s",START-DATE="2026-01-01T00:00:30Z",SCTE35-OUT=0xFC30,SCTE35-IN=FC30
                #EXT-X-DATERANGE:ID="i",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:40Z",CUE="PRE,POST",X-ASSET-URI="ad.m3u8",X-ASSET-LIST="ads.json"
                #EXT-X-DATERANGE:ID="j",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:50Z",CUE="ONCE",X-ASSET-LIST="ads.json"
                #EXTINF:4,
                b.ts
                """))
        // The update of "a" adds DURATION and X-AD; the next changes START-DATE and X-AD.
        #expect(r.has(.error, "ID=\"a\" changes START-DATE", line: 9))
        #expect(r.has(.error, "ID=\"a\" changes X-AD from 1 (line 5) to 2", line: 9))
        #expect(!r.has(.error, "changes DURATION") && !r.has(.error, "changes CLASS"))
        // "a" spans 0–20 s, "b" 10–15 s of the same CLASS; "c" is of another.
        #expect(r.has(.error, "ID=\"b\" overlaps ID=\"a\"", line: 10))
        #expect(!r.has(.error, "ID=\"c\" overlaps"))
        #expect(r.has(.error, "SCTE35-IN=FC30 is not a hexadecimal-sequence", line: 12) && !r.has(.error, "SCTE35-OUT"))
        #expect(r.has(.error, "MUST NOT include both PRE and POST", line: 13))
        #expect(r.has(.error, "interstitial ID=\"i\" has both X-ASSET-URI and X-ASSET-LIST", line: 13))
        #expect(!r.has(.error, "ID=\"j\""))
        #expect(!r.has(.error, "no EXT-X-PROGRAM-DATE-TIME"))
        // Without any PDT the dates mean nothing for the segments: an error.
        let undated = parse(mediaText("#EXT-X-DATERANGE:ID=\"x\",START-DATE=\"2026-01-01T00:00:00Z\"\n#EXTINF:4,\na.ts"))
        #expect(undated.has(.error, "EXT-X-DATERANGE but no EXT-X-PROGRAM-DATE-TIME", line: 4))
        // END-ON-NEXT ranges end where the next of their class starts: back to back, no overlap.
        let chained = parse(
            mediaText(
                """
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z
                #EXT-X-DATERANGE:ID="p1",CLASS="com.example.program",START-DATE="2026-01-01T00:00:00Z",END-ON-NEXT=YES
                #EXT-X-DATERANGE:ID="p2",CLASS="com.example.program",START-DATE="2026-01-01T00:00:04Z",END-ON-NEXT=YES
                #EXTINF:4,
                a.ts
                """))
        #expect(chained.errorCount == 0, "\(chained.diagnostics.map(\.message))")
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
