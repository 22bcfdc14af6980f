import Testing
@testable import Recording

@Suite("--redact: tokens out, everything else as it was (pure)")
struct RedactorTests {
    let r = Redactor(parameters: ["customer"])

    @Test("token-like and named query values, user:password; other parameters, paths and hosts kept")
    func urls() {
        #expect(
            r.url("https://cdn.test/v/seg1.ts?token=abc123&rung=2&Expires=1700000000&customer=acme")
                == "https://cdn.test/v/seg1.ts?token=REDACTED&rung=2&Expires=REDACTED&customer=REDACTED")
        #expect(r.url("http://user:pa55@origin.test:8080/live.m3u8") == "http://REDACTED@origin.test:8080/live.m3u8")
        #expect(r.url("http://origin.test/a.m3u8?tokenize=1&x=token=9") == "http://origin.test/a.m3u8?tokenize=1&x=token=9")
        #expect(r.url("http://origin.test/a@b/c.ts") == "http://origin.test/a@b/c.ts", "an @ in the path is not user information")
    }

    @Test("inside playlists and JSON lines, every occurrence; headers with cookies and credentials")
    func text() {
        let playlist = "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k1.key?hdnts=exp=1~acl=*~hmac=ff\"\nseg1.ts?sig=9f&n=1\n"
        #expect(
            r.text(playlist) == "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k1.key?hdnts=REDACTED\"\nseg1.ts?sig=REDACTED&n=1\n")
        #expect(
            r.text(#"{"event":"request","url":"http://o/seg.ts?token=abc","error":null}"#)
                == #"{"event":"request","url":"http://o/seg.ts?token=REDACTED","error":null}"#)
        let h = r.headers([("Set-Cookie", "sid=42"), ("Content-Type", "video/mp2t"), ("authorization", "Bearer x")])
        #expect(h.map(\.1) == ["REDACTED", "video/mp2t", "REDACTED"])
    }
}
