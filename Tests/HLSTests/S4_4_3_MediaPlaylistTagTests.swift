import HLS
import Testing

@Suite("§4.4.3 Media Playlist tags")
struct MediaPlaylistTagTests {
    @Test("the header tags are read")
    func header() {
        let r = parse(
            """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-DISCONTINUITY-SEQUENCE:7
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXTINF:6,
            a.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:6,
            b.ts
            """)
        let m = r.mediaPlaylist
        #expect(m.targetDuration == 6 && m.mediaSequence == 100 && m.discontinuitySequence == 7 && m.playlistType == "EVENT")
        #expect(m.segments.map(\.mediaSequence) == [100, 101])
        #expect(m.segments.map(\.discontinuitySequence) == [7, 8])
        #expect(m.isLive)
    }

    @Test("EXT-X-TARGETDURATION is required, integral, and bounds every rounded EXTINF (§4.4.3.1)")
    func targetDuration() {
        #expect(parse("#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n").has(.error, "no EXT-X-TARGETDURATION"))
        let frac = parse("#EXTM3U\n#EXT-X-TARGETDURATION:4.5\n#EXTINF:4,\na.ts\n")
        #expect(frac.has(.error, "not a decimal-integer; read as 5", line: 2))
        #expect(frac.mediaPlaylist.targetDuration == 5)
        let over = parse(mediaText("#EXTINF:6.4,\na.ts\n#EXTINF:6.5,\nb.ts", target: 6))
        #expect(!over.has(.error, "segment 0:"))
        #expect(over.has(.error, "segment 1: EXTINF 6.5 s rounds above EXT-X-TARGETDURATION 6", line: 6))
    }

    @Test("EXT-X-MEDIA-SEQUENCE after a segment is an error but still applies to the whole playlist")
    func lateMediaSequence() {
        let r = parse(mediaText("#EXTINF:4,\na.ts\n#EXT-X-MEDIA-SEQUENCE:10\n#EXTINF:4,\nb.ts"))
        #expect(r.has(.error, "MUST appear before the first Media Segment", line: 6))
        #expect(r.mediaPlaylist.segments.map(\.mediaSequence) == [10, 11])
    }

    @Test(
        "bad single values are errors with their line",
        arguments: [
            ("#EXT-X-MEDIA-SEQUENCE:-1", "not a decimal-integer"),
            ("#EXT-X-PLAYLIST-TYPE:LIVE", "must be EVENT or VOD"),
            ("#EXT-X-DISCONTINUITY-SEQUENCE:x", "not a decimal-integer"),
            ("#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PLAYLIST-TYPE:EVENT", "appears more than once"),
        ])
    func badValues(_ tag: String, _ message: String) {
        let r = parse("#EXTM3U\n#EXT-X-TARGETDURATION:4\n\(tag)\n#EXTINF:4,\na.ts\n")
        #expect(r.has(.error, message), "\(r.diagnostics)")
    }

    @Test("EXT-X-I-FRAMES-ONLY, EXT-X-PART-INF and EXT-X-SERVER-CONTROL are read and checked")
    func lowLatencyHeader() {
        let r = parse(
            """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:4
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12,HOLD-BACK=8,PART-HOLD-BACK=0.5
            #EXT-X-PART-INF:PART-TARGET=1.0
            #EXT-X-PART:DURATION=1.0,URI="p0.mp4",INDEPENDENT=YES
            #EXT-X-PART:DURATION=1.2,URI="p1.mp4"
            #EXTINF:2.2,
            s0.mp4
            #EXT-X-PART:DURATION=1.0,URI="p2.mp4"
            """)
        let m = r.mediaPlaylist
        #expect(m.partTarget == 1.0)
        #expect(m.serverControl?.canBlockReload == true)
        #expect(m.segments[0].parts.count == 2 && m.segments[0].parts[0].independent)
        #expect(m.trailingParts.map(\.uri) == ["p2.mp4"])
        #expect(r.has(.error, "CAN-SKIP-UNTIL 12 is below six target durations"))
        #expect(r.has(.error, "HOLD-BACK 8 is below three target durations"))
        #expect(r.has(.error, "PART-HOLD-BACK 0.5 is below twice the part target"))
        #expect(r.has(.error, "DURATION 1.2 is above PART-TARGET 1", line: 7))
        let noInf = parse(mediaText("#EXT-X-PART:DURATION=1,URI=\"p.mp4\"\n#EXTINF:1,\ns.mp4"))
        #expect(noInf.has(.error, "no EXT-X-PART-INF"))
    }
}
