import HLS
import Testing

@Suite("Lint: what mediastreamvalidator would tell an engineer")
struct LintTests {
    @Test("hev1 where Apple devices need hvc1")
    func hev1() {
        let r = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"hev1.1.6.L93.B0,mp4a.40.2\",RESOLUTION=1280x720\nv.m3u8\n")
        #expect(r.has(.warning, "declares hev1.1.6.L93.B0; Apple devices need hvc1", line: 2))
        let ok = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"hvc1.1.6.L93.B0,mp4a.40.2\",RESOLUTION=1280x720\nv.m3u8\n")
        #expect(!ok.has(.warning, "Apple devices need"))
    }

    @Test("a variant without CODECS or RESOLUTION, but no RESOLUTION demanded of audio-only")
    func missingAttributes() {
        let r = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\"\na.m3u8\n")
        #expect(r.has(.warning, "variant v.m3u8 has no CODECS", line: 2))
        #expect(r.has(.warning, "variant v.m3u8 has no RESOLUTION", line: 2))
        #expect(!r.has(.warning, "variant a.m3u8 has no RESOLUTION"))
    }

    @Test("a live playlist without PDT, and a GAP at the live edge")
    func live() {
        let r = parse(mediaText("#EXTINF:4,\na.ts\n#EXT-X-GAP\n#EXTINF:4,\nb.ts", end: false))
        #expect(r.has(.warning, "live playlist without EXT-X-PROGRAM-DATE-TIME"))
        #expect(r.has(.warning, "at the live edge is an EXT-X-GAP", line: 8))
        let vod = parse(mediaText("#EXTINF:4,\na.ts\n#EXT-X-GAP\n#EXTINF:4,\nb.ts"))
        #expect(!vod.has(.warning, "live"))
    }

    @Test("an unknown KEYFORMAT is named; known ones are not")
    func keyFormats() {
        let r = parse(mediaText("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\",KEYFORMAT=\"com.example.drm\"\n#EXTINF:4,\na.ts"))
        #expect(r.has(.warning, "KEYFORMAT \"com.example.drm\" is not one hlstui knows", line: 4))
        let fp = parse(
            mediaText("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n#EXTINF:4,\na.ts"))
        #expect(!fp.has(.warning, "KEYFORMAT"))
    }

    @Test(
        "version compatibility (§7)",
        arguments: [
            (2, "#EXTINF:4.5,\na.ts", "floating-point EXTINF durations need EXT-X-VERSION 3"),
            (3, "#EXT-X-BYTERANGE:1@0\n#EXTINF:4,\na.ts", "EXT-X-BYTERANGE and EXT-X-I-FRAMES-ONLY need EXT-X-VERSION 4"),
            (
                4, "#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"identity\"\n#EXTINF:4,\na.ts",
                "KEYFORMAT and KEYFORMATVERSIONS need EXT-X-VERSION 5"
            ),
        ])
    func versions(_ version: Int, _ body: String, _ message: String) {
        #expect(parse(mediaText(body, version: version)).has(.error, message))
    }

    @Test("a PDT that jumps without a discontinuity")
    func pdtJump() {
        let r = parse(
            mediaText(
                "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z\n#EXTINF:4,\na.ts\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:10Z\n#EXTINF:4,\nb.ts"
            ))
        #expect(r.has(.warning, "jumps 6 s", line: 7))
    }

    @Test("AVERAGE-BANDWIDTH above BANDWIDTH")
    func averageAbovePeak() {
        let r = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,AVERAGE-BANDWIDTH=2000,CODECS=\"mp4a.40.2\"\na.m3u8\n")
        #expect(r.has(.warning, "AVERAGE-BANDWIDTH 2000 is above BANDWIDTH 1000", line: 2))
    }
}
