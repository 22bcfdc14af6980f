import HLS
import Testing

@Suite("§4.3 Variable Substitution and §4.4.2.3 EXT-X-DEFINE")
struct VariableTests {
    @Test("NAME/VALUE substitutes URI lines, quoted strings and hexadecimal sequences")
    func nameValue() {
        let r = parse(
            mediaText(
                """
                #EXT-X-DEFINE:NAME="host",VALUE="cdn.example"
                #EXT-X-DEFINE:NAME="iv",VALUE="00000000000000000000000000000001"
                #EXT-X-KEY:METHOD=AES-128,URI="https://{$host}/key",IV=0x{$iv}
                #EXTINF:4,
                https://{$host}/a.ts
                """, version: 8))
        let s = r.mediaPlaylist.segments[0]
        #expect(s.uri == "https://cdn.example/a.ts")
        #expect(s.keys.first?.uri == "https://cdn.example/key")
        #expect(s.keys.first?.iv == "0x00000000000000000000000000000001")
        #expect(r.errorCount == 0, "\(r.diagnostics)")
    }

    @Test("IMPORT takes the multivariant playlist's value")
    func imported() {
        let r = parse(mediaText("#EXT-X-DEFINE:IMPORT=\"auth\"\n#EXTINF:4,\na.ts?{$auth}", version: 8), importing: ["auth": "t=1"])
        #expect(r.mediaPlaylist.segments[0].uri == "a.ts?t=1")
        #expect(r.playlist.defines == [Define(name: "auth", source: .imported, resolved: "t=1", line: SourceLine(4))])
        #expect(r.playlist.defines.first?.resolved == "t=1")
        #expect(r.playlist.defines.first?.line.number == 4)
    }

    @Test("IMPORT of a name the multivariant playlist lacks is an error naming it")
    func importMissing() {
        let r = parse(mediaText("#EXT-X-DEFINE:IMPORT=\"auth\"\n#EXTINF:4,\na.ts", version: 8))
        #expect(r.has(.error, "defines no variable auth", line: 4))
    }

    @Test("IMPORT in a multivariant playlist is an error")
    func importInMultivariant() {
        let r = parse("#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-DEFINE:IMPORT=\"x\"\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\"\nv.m3u8\n")
        #expect(r.has(.error, "MUST NOT appear in a multivariant", line: 3))
    }

    @Test("QUERYPARAM takes the decoded value from the playlist URL")
    func queryParam() {
        let r = parse(
            mediaText("#EXT-X-DEFINE:QUERYPARAM=\"token\"\n#EXTINF:4,\na.ts?token={$token}", version: 8),
            url: "https://o.example/live.m3u8?x=1&token=a%2Fb")
        #expect(r.mediaPlaylist.segments[0].uri == "a.ts?token=a/b")
        #expect(r.errorCount == 0)
    }

    @Test("QUERYPARAM missing from the URL is an error naming it")
    func queryParamMissing() {
        let r = parse(mediaText("#EXT-X-DEFINE:QUERYPARAM=\"token\"\n#EXTINF:4,\na.ts", version: 8), url: "https://o/x.m3u8?y=2")
        #expect(r.has(.error, "has no query parameter token", line: 4))
    }

    @Test("an undefined variable is an error naming it and its line, and the text stays as written")
    func undefined() {
        let r = parse(mediaText("#EXTINF:4,\n{$nope}/a.ts", version: 8))
        #expect(r.has(.error, "variable {$nope} is not defined", line: 5))
        #expect(r.mediaPlaylist.segments[0].uri == "{$nope}/a.ts")
    }

    @Test("a reference before its definition is undefined")
    func beforeDefinition() {
        let r = parse(mediaText("#EXTINF:4,\n{$late}.ts\n#EXT-X-DEFINE:NAME=\"late\",VALUE=\"x\"", version: 8))
        #expect(r.has(.error, "{$late} is not defined", line: 5))
    }

    @Test(
        "malformed definitions are errors",
        arguments: [
            ("#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"2\"", "defined more than once"),
            ("#EXT-X-DEFINE:NAME=\"a b\",VALUE=\"1\"", "must use only a-z"),
            ("#EXT-X-DEFINE:NAME=\"a\"", "missing its required VALUE"),
            ("#EXT-X-DEFINE:NAME=\"a\",IMPORT=\"b\"", "only one of NAME, IMPORT and QUERYPARAM"),
            ("#EXT-X-DEFINE:VALUE=\"a\"", "needs one of NAME, IMPORT or QUERYPARAM"),
        ])
    func malformed(_ body: String, _ message: String) {
        let r = parse(mediaText(body + "\n#EXTINF:4,\na.ts", version: 8))
        #expect(r.has(.error, message), "\(r.diagnostics)")
    }

    @Test("EXT-X-DEFINE needs version 8")
    func version() {
        let r = parse(mediaText("#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n#EXTINF:4,\n{$a}.ts", version: 7))
        #expect(r.has(.error, "needs EXT-X-VERSION 8"))
    }
}
