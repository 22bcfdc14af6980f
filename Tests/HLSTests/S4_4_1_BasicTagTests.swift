import HLS
import Testing

@Suite("§4.4.1–§4.4.2 Basic tags, EXT-X-INDEPENDENT-SEGMENTS and EXT-X-START")
struct BasicTagTests {
    @Test(
        "a playlist without #EXTM3U on line 1 is an error on line 1",
        arguments: [
            "#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n",
            "# comment\n#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n",
        ])
    func header(_ text: String) {
        let r = parse(text)
        #expect(r.has(.error, "first line is not #EXTM3U", line: 1))
        #expect(r.mediaPlaylist.segments.count == 1)
    }

    @Test("EXT-X-VERSION is read, and a second one or a bad value is an error")
    func version() {
        #expect(parse(mediaText("#EXTINF:4,\na.ts", version: 6)).playlist.version == 6)
        let twice = parse("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n")
        #expect(twice.playlist.version == 3)
        #expect(twice.has(.error, "appears more than once", line: 3))
        #expect(parse("#EXTM3U\n#EXT-X-VERSION:three\n").has(.error, "not a decimal-integer", line: 2))
    }

    @Test("EXT-X-INDEPENDENT-SEGMENTS and EXT-X-START apply to both kinds")
    func independentAndStart() {
        let r = parse(
            "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\"\na.m3u8\n"
        )
        #expect(r.playlist.independentSegments)
        #expect(r.playlist.start == StartPoint(timeOffset: -12.5, precise: true))
        #expect(r.playlist.isMultivariant)
        #expect(parse("#EXTM3U\n#EXT-X-START:PRECISE=YES\n").has(.error, "missing its required TIME-OFFSET", line: 2))
    }

    @Test("media and multivariant tags in one playlist are an error on each tag of the other kind")
    func mixedKinds() {
        let r = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nb.ts\n")
        #expect(r.playlist.isMultivariant)
        #expect(r.has(.error, "#EXT-X-TARGETDURATION is a media playlist tag in a multivariant playlist", line: 4))
        #expect(r.has(.error, "#EXTINF is a media playlist tag", line: 5))
    }
}
