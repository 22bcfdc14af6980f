import HLS
import MediaFormats
import Testing

/// IMSC1 subtitles (RFC 8216bis §3.1.5): TTML cues with their times on the media timeline, and the documents of a
/// fragmented-MP4 segment.
@Suite("IMSC1: TTML cues and their fMP4 segments")
struct TTMLTests {
    @Test("<p> times: offsets and clock times, added to their parents' begin, dur or end, line breaks, spans and references")
    func cues() {
        let doc = TTML.parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" ttp:frameRate="25" ttp:tickRate="10000000">
              <head><styling><style xml:id="s1" tts:color="white"/></styling></head>
              <body begin="10s"><div begin="00:00:01.000">
                <p begin="1.5s" end="3s">Hello <span tts:color="yellow">there</span><br/>Fish &amp; chips</p>
                <p begin="00:00:04:05" dur="500ms">framed</p>
                <p begin="70000000t" end="80000000t">ticked</p>
              </div></body>
            </tt>
            """)
        #expect(doc.problems.isEmpty, "\(doc.problems)")
        #expect(doc.cues.count == 3)
        #expect(doc.cues[0] == TTML.Cue(start: 12.5, end: 14, lines: ["Hello there", "Fish & chips"]))
        #expect(doc.cues[1] == TTML.Cue(start: 15.2, end: 15.7, lines: ["framed"]), "4 s and 5 frames at 25 fps, in 11 s of parents")
        #expect(doc.cues[2] == TTML.Cue(start: 18, end: 19, lines: ["ticked"]), "ticks at 10 MHz")
    }

    @Test("what is wrong is said: not TTML, a time unreadable, a <p> with no end")
    func problems() {
        #expect(TTML.parse("WEBVTT\n").problems == ["not a TTML document (no <tt> element)"])
        let bad = TTML.parse(#"<tt><body><div><p begin="soon" end="2s">a</p><p begin="1s">b</p></div></body></tt>"#)
        #expect(bad.problems == [#"time expression unreadable: begin="soon""#, "a <p> without an end (no end, dur or parent end)"])
        #expect(bad.cues == [TTML.Cue(start: 0, end: 2, lines: ["a"])])
    }

    @Test("a segment written around a document gives that document back; its init section names an stpp track")
    func segment() {
        let doc = #"<?xml version="1.0"?><tt xmlns="http://www.w3.org/ns/ttml"><body><div><p begin="2s" end="4s">x</p></div></body></tt>"#
        let bytes = TimedTextMP4.segment(sequence: 3, decodeTime: 2000, duration: 2000, document: Array(doc.utf8))
        #expect(FragmentedMP4.startsLikeMP4(Array(bytes.prefix(64))))
        #expect(TimedTextMP4.documents(segment: bytes) == [doc])
        #expect(FragmentedMP4.firstDecodeTimes(segment: bytes) == [1: 2000])
        let two = bytes + TimedTextMP4.segment(sequence: 4, decodeTime: 4000, duration: 2000, document: Array(doc.utf8))
        #expect(TimedTextMP4.documents(segment: two).count == 2)
        let tracks = FragmentedMP4.tracks(initSection: TimedTextMP4.initSection(timescale: 1000))
        #expect(tracks.count == 1 && tracks.first?.timescale == 1000 && tracks.first?.handler == "subt", "\(tracks)")
    }
}
