import HLS
import Testing

@Suite("§4.4.4 Media Segment tags")
struct MediaSegmentTagTests {
    @Test("EXTINF: duration, title, and malformed durations (§4.4.4.1)")
    func extinf() {
        let r = parse(mediaText("#EXTINF:5.005,Opening, with comma\na.ts\n#EXTINF:4\nb.ts\n#EXTINF:-1,\nc.ts\n#EXTINF:abc,\nd.ts"))
        let s = r.mediaPlaylist.segments
        #expect(s.map(\.duration) == [5.005, 4, 0, 0])
        #expect(s[0].title == "Opening, with comma")
        #expect(r.has(.warning, "no ','", line: 6))
        #expect(r.has(.error, "a negative duration is read as 0", line: 8))
        #expect(r.has(.error, "\"abc\" is not a decimal-floating-point", line: 10))
    }

    @Test("EXTINF without a URI, and a URI without EXTINF, are errors naming their lines")
    func orphans() {
        let r = parse(mediaText("#EXTINF:4,\n#EXTINF:4,\na.ts\nb.ts\n#EXTINF:4,", end: false))
        #expect(r.has(.error, "not followed by a URI line", line: 4))
        #expect(r.has(.error, "URI line \"b.ts\" has no EXTINF", line: 7))
        #expect(r.has(.error, "the last EXTINF is not followed by a URI line", line: 8))
        #expect(r.mediaPlaylist.segments.map(\.uri) == ["a.ts"])
    }

    @Test("EXT-X-BYTERANGE: explicit offsets, implied offsets continuing the same resource, and a wrong resource (§4.4.4.2)")
    func byteRange() {
        let r = parse(
            mediaText(
                "#EXT-X-BYTERANGE:100@0\n#EXTINF:4,\nall.ts\n#EXT-X-BYTERANGE:50\n#EXTINF:4,\nall.ts\n#EXT-X-BYTERANGE:70\n#EXTINF:4,\nother.ts",
                version: 4))
        let s = r.mediaPlaylist.segments
        #expect(s[0].byteRange == ByteRange(length: 100, offset: 0))
        #expect(s[1].byteRange == ByteRange(length: 50, offset: 100))
        #expect(r.has(.error, "previous Media Segment MUST be a sub-range of the same resource", line: 10))
        #expect(PlaylistWriter.write(r.playlist).contains("#EXT-X-BYTERANGE:50\n"))
        #expect(parse(mediaText("#EXT-X-BYTERANGE:x@1\n#EXTINF:4,\na.ts", version: 4)).has(.error, "not <n>[@<o>]", line: 4))
    }

    @Test("EXT-X-KEY: keys apply until replaced per KEYFORMAT; METHOD=NONE clears them (§4.4.4.4)")
    func keys() {
        let r = parse(
            mediaText(
                """
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://k1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAA",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
                #EXTINF:4,
                a.ts
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://k2",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
                #EXTINF:4,
                b.ts
                #EXT-X-KEY:METHOD=NONE
                #EXTINF:4,
                c.ts
                """))
        let s = r.mediaPlaylist.segments
        #expect(s[0].keys.map(\.system) == [.fairPlay, .widevine])
        #expect(Set(s[1].keys.compactMap(\.uri)) == ["skd://k2", "data:text/plain;base64,AAAA"])
        #expect(s[2].keys.isEmpty)
        let again = parse(PlaylistWriter.write(r.playlist))
        #expect(again.mediaPlaylist.segments.map(\.keys) == s.map(\.keys))
    }

    @Test(
        "malformed keys are errors",
        arguments: [
            ("#EXT-X-KEY:METHOD=NONE,URI=\"k\"", "MUST NOT have other attributes"),
            ("#EXT-X-KEY:METHOD=AES-128", "missing its REQUIRED URI"),
            ("#EXT-X-KEY:URI=\"k\"", "missing its required METHOD"),
            ("#EXT-X-KEY:METHOD=AES-256,URI=\"k\"", "not one of NONE, AES-128"),
            ("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0xZZ", "not a hexadecimal-sequence"),
            ("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x000000000000000000000000000000001", "longer than 128 bits"),
        ])
    func badKeys(_ tag: String, _ message: String) {
        #expect(parse(mediaText(tag + "\n#EXTINF:4,\na.ts")).has(.error, message, line: 4))
    }

    @Test("EXT-X-MAP: URI, byte range, and the IV an AES-128 init section needs (§4.4.4.5)")
    func map() {
        let r = parse(mediaText("#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"720@0\"\n#EXTINF:4,\na.m4s"))
        #expect(r.mediaPlaylist.segments[0].map == MapSection(uri: "init.mp4", byteRange: ByteRange(length: 720, offset: 0)))
        let enc = parse(mediaText("#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4,\na.m4s"))
        #expect(enc.has(.error, "MUST have an IV", line: 5))
        #expect(parse(mediaText("#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:4,\na.m4s", version: 5)).has(.error, "EXT-X-MAP needs EXT-X-VERSION 6"))
    }

    @Test(
        "EXT-X-MAP takes the keys in effect where it appears (§4.4.4.4), and the writer keeps that order",
        arguments: [
            (
                "#EXT-X-KEY:METHOD=AES-128,URI=\"i.key\",IV=0x1\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-KEY:METHOD=AES-128,URI=\"s.key\",IV=0x2",
                ["i.key"], ["s.key"]
            ),
            ("#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-KEY:METHOD=AES-128,URI=\"s.key\",IV=0x2", [], ["s.key"]),
            ("#EXT-X-KEY:METHOD=AES-128,URI=\"s.key\",IV=0x2\n#EXT-X-MAP:URI=\"init.mp4\"", ["s.key"], ["s.key"]),
        ])
    func mapKeys(_ tags: String, _ mapKeys: [String], _ segmentKeys: [String]) {
        let r = parse(mediaText(tags + "\n#EXTINF:4,\na.m4s\n#EXTINF:4,\nb.m4s"))
        let s = r.mediaPlaylist.segments
        #expect(s[0].map?.keys.compactMap(\.uri) == mapKeys && s[0].keys.compactMap(\.uri) == segmentKeys && s[1].map == s[0].map)
        let again = parse(PlaylistWriter.write(r.playlist)).mediaPlaylist.segments
        #expect(again[0].map?.keys.compactMap(\.uri) == mapKeys && again[0].keys.compactMap(\.uri) == segmentKeys)
    }

    @Test(
        "EXT-X-PROGRAM-DATE-TIME accepts Z, +00:00, +0000, other offsets and fractions (§4.4.4.6)",
        arguments: [
            ("2026-11-22T01:02:03Z", Int64(1_795_309_323_000)),
            ("2026-11-22T01:02:03.5Z", Int64(1_795_309_323_500)),
            ("2026-11-22T01:02:03.123+00:00", Int64(1_795_309_323_123)),
            ("2026-11-22T01:02:03.123+0000", Int64(1_795_309_323_123)),
            ("2026-11-22T03:02:03.123+02:00", Int64(1_795_309_323_123)),
            ("2026-11-21T20:02:03.123-05", Int64(1_795_309_323_123)),
            ("2026-11-22T01:02:03", Int64(1_795_309_323_000)),
        ])
    func pdtFormats(_ text: String, _ ms: Int64) {
        let r = parse(mediaText("#EXT-X-PROGRAM-DATE-TIME:\(text)\n#EXTINF:4,\na.ts"))
        #expect(r.mediaPlaylist.segments[0].programDateTime?.milliseconds == ms, "\(r.diagnostics)")
    }

    @Test("an unreadable PDT is an error with its line")
    func badPDT() {
        #expect(parse(mediaText("#EXT-X-PROGRAM-DATE-TIME:yesterday\n#EXTINF:4,\na.ts")).has(.error, "not an ISO 8601 date-time", line: 4))
    }

    @Test("every segment gets its effective PDT, forward and backward, reset at a discontinuity (§4.4.4.6, §4.4.4.3)")
    func effectivePDT() {
        let r = parse(
            mediaText(
                """
                #EXTINF:2,
                a.ts
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:10.000Z
                #EXTINF:2,
                b.ts
                #EXTINF:2.5,
                c.ts
                #EXT-X-DISCONTINUITY
                #EXTINF:2,
                d.ts
                #EXT-X-DISCONTINUITY
                #EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z
                #EXTINF:2,
                e.ts
                #EXTINF:2,
                f.ts
                """))
        let p = r.mediaPlaylist.segments.map { $0.effectiveProgramDateTime?.iso8601 }
        #expect(
            p == [
                "2026-01-01T00:00:08.000Z", "2026-01-01T00:00:10.000Z", "2026-01-01T00:00:12.000Z", nil,
                "2026-01-01T01:00:00.000Z", "2026-01-01T01:00:02.000Z",
            ])
        #expect(r.has(.warning, "starts a discontinuity without EXT-X-PROGRAM-DATE-TIME"))
    }

    @Test("EXT-X-GAP marks segments and merges into ranges (§4.4.4.7)")
    func gap() {
        let r = parse(mediaText("#EXTINF:2,\na.ts\n#EXT-X-GAP\n#EXTINF:2,\nb.ts\n#EXT-X-GAP\n#EXTINF:2,\nc.ts\n#EXTINF:2,\nd.ts"))
        #expect(r.mediaPlaylist.segments.map(\.gap) == [false, true, true, false])
        let g = Timeline.gapRanges(r.mediaPlaylist)
        #expect(g.count == 1 && g[0].firstMSN == 1 && g[0].lastMSN == 2 && g[0].range == TimeRange(start: 2, end: 6))
    }

    @Test("EXT-X-BITRATE applies to every following segment until the next one, except byte-range segments (§4.4.4.8)")
    func bitrate() {
        let r = parse(
            mediaText(
                "#EXT-X-BITRATE:800\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n#EXT-X-BYTERANGE:10@0\n#EXTINF:4,\nc.ts\n#EXT-X-BITRATE:1200\n#EXTINF:4,\nd.ts",
                version: 4))
        #expect(r.mediaPlaylist.segments.map(\.bitrate) == [800, 800, nil, 1200])
        let again = parse(PlaylistWriter.write(r.playlist))
        #expect(again.mediaPlaylist.segments.map(\.bitrate) == [800, 800, nil, 1200])
    }

    @Test("EXT-X-PART: required attributes and byte ranges continuing within the parent (§4.4.4.9)")
    func parts() {
        let r = parse(
            mediaText(
                """
                #EXT-X-PART-INF:PART-TARGET=1
                #EXT-X-PART:DURATION=1,URI="s.mp4",BYTERANGE="100@0"
                #EXT-X-PART:DURATION=1,URI="s.mp4",BYTERANGE="50"
                #EXT-X-PART:URI="x.mp4"
                #EXTINF:2,
                s.mp4
                """, version: 9))
        #expect(
            r.mediaPlaylist.segments[0].parts.map(\.byteRange) == [ByteRange(length: 100, offset: 0), ByteRange(length: 50, offset: 100)])
        #expect(r.has(.error, "missing its required DURATION", line: 7))
    }
}
