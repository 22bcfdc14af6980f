import HLS
import Testing

let ladder = """
    #EXTM3U
    #EXT-X-VERSION:6
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,CHANNELS="2",URI="audio/de.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",FORCED=NO,URI="subs/en.m3u8"
    #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
    #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Demo",LANGUAGE="en"
    #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
    #EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example/s.json",PATHWAY-ID="CDN-A"
    #EXT-X-STREAM-INF:BANDWIDTH=2200000,AVERAGE-BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000,HDCP-LEVEL=TYPE-0,VIDEO-RANGE=SDR,AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS="cc",X-VENDOR="1"
    v720.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac",CLOSED-CAPTIONS=NONE
    v360.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2",AUDIO="aac"
    audio.m3u8
    #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=200000,CODECS="avc1.64001f",RESOLUTION=1280x720,URI="iframe720.m3u8"
    """

@Suite("§4.4.6 Multivariant Playlist tags")
struct MultivariantTagTests {
    @Test("a complete ladder is read with every attribute")
    func ladderFields() {
        let r = parse(ladder)
        #expect(r.diagnostics.filter { $0.severity != .info }.isEmpty, "\(r.diagnostics)")
        let m = r.multivariantPlaylist
        #expect(m.variants.map(\.uri) == ["v720.m3u8", "v360.m3u8", "audio.m3u8"])
        let v = m.variants[0]
        #expect(v.bandwidth == 2_200_000 && v.averageBandwidth == 2_000_000 && v.resolution == Resolution(width: 1280, height: 720))
        #expect(v.frameRate == 30 && v.hdcpLevel == "TYPE-0" && v.videoRange == "SDR" && v.audio == "aac" && v.subtitles == "subs")
        #expect(v.closedCaptions == "cc" && m.variants[1].closedCaptions == "NONE")
        #expect(v.extra == [Attribute(name: "X-VENDOR", value: "1", quoted: true)])
        #expect(m.renditions.count == 4 && m.renditions[0].isDefault && m.renditions[0].channels == "2")
        #expect(m.iFrameVariants.first?.uri == "iframe720.m3u8")
        #expect(m.sessionData.first?.value == "Demo")
        #expect(m.sessionKeys.first?.system == .fairPlay)
        #expect(m.contentSteering == ContentSteering(serverURI: "https://steer.example/s.json", pathwayID: "CDN-A"))
        let out = PlaylistWriter.write(r.playlist)
        #expect(out.contains("CLOSED-CAPTIONS=NONE") && out.contains("CLOSED-CAPTIONS=\"cc\""))
        #expect(parse(out).playlist == r.playlist)
    }

    @Test(
        "rule violations in a multivariant playlist",
        arguments: [
            ("#EXT-X-STREAM-INF:CODECS=\"mp4a.40.2\"\na.m3u8", "missing its required BANDWIDTH"),
            ("#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\"", "not followed by its URI line"),
            ("#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\",AUDIO=\"x\"\na.m3u8", "AUDIO=\"x\" names no EXT-X-MEDIA group"),
            ("#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\",CLOSED-CAPTIONS=cc\na.m3u8", "must be a quoted-string or NONE"),
            ("#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"c\",NAME=\"x\",URI=\"a\"", "MUST NOT have a URI"),
            ("#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"c\",NAME=\"x\"", "MUST have an INSTREAM-ID"),
            ("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"x\"", "MUST have a URI"),
            (
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",DEFAULT=YES,AUTOSELECT=NO,URI=\"a\"",
                "DEFAULT=YES MUST have AUTOSELECT=YES"
            ),
            (
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a\"\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"b\"",
                "NAME MUST be unique"
            ),
            (
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",DEFAULT=YES,URI=\"a\"\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"y\",DEFAULT=YES,URI=\"b\"",
                "already has DEFAULT=YES"
            ),
            ("#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"v\",NAME=\"x\",FORCED=YES", "FORCED MUST only be given"),
            ("#EXT-X-SESSION-DATA:DATA-ID=\"d\"", "exactly one of VALUE and URI"),
            ("#EXT-X-SESSION-KEY:METHOD=NONE", "MUST NOT be NONE"),
            ("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1", "missing its required URI"),
            ("x.m3u8", "does not follow an EXT-X-STREAM-INF"),
        ])
    func violations(_ body: String, _ message: String) {
        let r = parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=9,CODECS=\"mp4a.40.2\"\nfirst.m3u8\n" + body + "\n")
        #expect(r.has(.error, message), "\(r.diagnostics)")
    }
}
