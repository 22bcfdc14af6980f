import Testing

@testable import HLS

/// WebVTT segments as HLS carries them (RFC 8216bis §3.1.4): the header and its X-TIMESTAMP-MAP, cues as plain text, and what
/// is wrong said.
@Suite("WebVTT: header, X-TIMESTAMP-MAP, cues")
struct WebVTTTests {
    @Test("the map, two cues (one with an identifier and settings), tags and references taken out, NOTE and STYLE read past")
    func segment() {
        let text = """
            \u{FEFF}WEBVTT - hlstui
            X-TIMESTAMP-MAP=LOCAL:00:00:01.000,MPEGTS:900000

            NOTE a comment
            over two lines

            STYLE
            ::cue { color: yellow }

            1
            00:00:01.000 --> 00:00:03.500 line:90% align:center
            <v Anna>Hello <i>there</i></v>
            Fish &amp; chips &lt;3

            00:01:02.250 --> 01:00:03.000
            <c.yellow>second</c>

            """
        let doc = WebVTT.parse(text)
        #expect(doc.hasHeader)
        #expect(doc.problems.isEmpty)
        #expect(doc.timestampMap == WebVTT.TimestampMap(mpegts: 900_000, local: 1), "fields in either order")
        #expect(doc.cues.count == 2)
        #expect(doc.cues[0] == WebVTT.Cue(id: "1", start: 1, end: 3.5, lines: ["Hello there", "Fish & chips <3"]))
        #expect(doc.cues[1] == WebVTT.Cue(id: nil, start: 62.25, end: 3603, lines: ["second"]))
        // Local 1 s is media time 900000 / 90 kHz = 10 s.
        #expect(doc.mediaTime(1) == 10)
        #expect(doc.mediaTime(3.5) == 12.5)
    }

    @Test("without X-TIMESTAMP-MAP cue time 0 is media time 0; CRLF lines read alike")
    func noMap() {
        let doc = WebVTT.parse("WEBVTT\r\n\r\n00:02.000 --> 00:04.000\r\nhi\r\n")
        #expect(doc.timestampMap == nil)
        #expect(doc.cues == [WebVTT.Cue(start: 2, end: 4, lines: ["hi"])])
        #expect(doc.mediaTime(2) == 2)
    }

    @Test("what is wrong is said: no signature, a timing line unreadable, a cue ending before it starts, a map unreadable")
    func problems() {
        let noHeader = WebVTT.parse("00:00:01.000 --> 00:00:02.000\nstill read\n")
        #expect(!noHeader.hasHeader)
        #expect(noHeader.problems == ["no WEBVTT signature on the first line"])
        #expect(noHeader.cues.count == 1, "its cues are still read")
        let mapOnly = WebVTT.parse("X-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00:00.000\n\n00:00:01.000 --> 00:00:02.000\nx\n")
        #expect(mapOnly.timestampMap?.mpegts == 90_000 && mapOnly.cues.count == 1, "a header without its signature: its map read")
        let bad = WebVTT.parse(
            "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:abc\n\n00:00:1.000 --> 00:00:02.000\nx\n\n00:00:05.000 --> 00:00:04.000\ny\n")
        #expect(bad.problems.count == 3)
        #expect(bad.problems[0].hasPrefix("X-TIMESTAMP-MAP unreadable"))
        #expect(bad.problems[1].hasPrefix("timing line unreadable"))
        #expect(bad.problems[2].hasPrefix("cue ends before it starts"))
        #expect(bad.cues.map(\.lines) == [["y"]])
    }

    @Test("timestamps: mm:ss.ttt and hh:mm:ss.ttt, hours past 99; malformed ones refused")
    func timestamps() {
        #expect(WebVTT.timestamp("01:02.003") == 62.003)
        #expect(WebVTT.timestamp("100:00:00.000") == 360_000)
        for bad in ["1:02.003", "01:02.03", "01:60.000", "01:02", "aa:bb.ccc", "00:01:02.003:04"] {
            #expect(WebVTT.timestamp(bad) == nil, "\(bad)")
        }
    }
}
