import HLS
import Testing

@Suite("§4.1 Definition of a Playlist: lines, encoding, terminators")
struct LexerTests {
    @Test("LF, CRLF and lone CR all end lines, and numbers count from 1")
    func terminators() {
        for sep in ["\n", "\r\n", "\r"] {
            let (lines, d) = Lexer.lines(["#EXTM3U", "#EXT-X-TARGETDURATION:4", "", "#EXTINF:4,", "a.ts"].joined(separator: sep))
            #expect(d.isEmpty)
            #expect(lines.count == 5)
            #expect(lines[3].kind == .tag && lines[3].tagName == "EXTINF" && lines[3].number == 4)
            #expect(lines[2].kind == .blank)
            #expect(lines[4].kind == .uri && lines[4].text == "a.ts")
        }
    }

    @Test("a BOM is a warning on line 1 when lenient, the rest still parses; strict parsing fails on it")
    func byteOrderMark() throws {
        let text = "\u{FEFF}" + mediaText("#EXTINF:4,\na.ts")
        let r = PlaylistParser.parseLenient(text)
        #expect(r.has(.warning, "byte order mark", line: 1))
        #expect(!r.has(.error, "byte order mark", line: 1))
        #expect(throws: PlaylistError.self) { try PlaylistParser.parse(text, options: ParseOptions(strict: true)) }
        let e = try? PlaylistParser.parse(text, options: ParseOptions(strict: true))
        #expect(e == nil)
        #expect(r.mediaPlaylist.segments.count == 1)
        #expect(!r.has(.error, "first line is not #EXTM3U"))
    }

    @Test("trailing spaces and tabs are trimmed from tags and URIs")
    func trailingSpace() {
        let r = parse(mediaText("#EXTINF:4, \t\na.ts   \t"))
        #expect(r.mediaPlaylist.segments.first?.uri == "a.ts")
        #expect(r.errorCount == 0)
    }

    @Test("leading white space is reported with its line")
    func leadingSpace() {
        let r = parse(mediaText("  #EXTINF:4,\na.ts"))
        #expect(r.has(.warning, "starts with white space", line: 4))
        #expect(r.mediaPlaylist.segments.count == 1)
    }

    @Test("control characters are an error naming the line")
    func controlCharacter() {
        let r = parse(mediaText("#EXTINF:4,\na\u{01}.ts"))
        #expect(r.has(.error, "control character", line: 5))
    }

    @Test("comments are kept, #EXT lines are tags, and the tag value starts after the first colon")
    func classify() {
        let (lines, _) = Lexer.lines("#EXTM3U\n# a comment\n#EXT-X-PROGRAM-DATE-TIME:2020-01-01T00:00:00Z\n#EXT-X-ENDLIST")
        #expect(lines[1].kind == .comment)
        #expect(lines[2].tagName == "EXT-X-PROGRAM-DATE-TIME")
        #expect(lines[2].tagValue == "2020-01-01T00:00:00Z")
        #expect(lines[2].valueColumn == 26)
        #expect(lines[3].tagValue == nil)
    }

    @Test("comments and unknown tags survive a rewrite in place")
    func keepsUnknown() {
        let text = mediaText("# before the first segment\n#EXT-X-VENDOR-THING:42\n#EXTINF:4,\na.ts\n#EXT-X-CUE-OUT:30\n#EXTINF:4,\nb.ts")
        let r = parse(text)
        #expect(r.mediaPlaylist.segments[0].leadingLines == ["# before the first segment", "#EXT-X-VENDOR-THING:42"])
        #expect(r.mediaPlaylist.segments[1].leadingLines == ["#EXT-X-CUE-OUT:30"])
        let out = PlaylistWriter.write(r.playlist)
        #expect(out.contains("# before the first segment\n#EXT-X-VENDOR-THING:42\n#EXTINF:4,\na.ts\n#EXT-X-CUE-OUT:30\n#EXTINF:4,\nb.ts"))
        #expect(r.has(.info, "unknown tag #EXT-X-VENDOR-THING"))
    }

    @Test("an empty file is an error, not a crash")
    func empty() {
        let r = parse("")
        #expect(r.has(.error, "empty", line: 1))
    }

    @Test("two tags glued on one line are named as such")
    func glued() {
        let r = parse(mediaText("#EXT-X-INDEPENDENT-SEGMENTS#EXT-X-MEDIA-SEQUENCE:4\n#EXTINF:4,\na.ts"))
        #expect(r.has(.error, "glued", line: 4))
    }
}
