import CMCD
import HLS
import LoaderCore
import Testing

/// What hlstui sends: each key from what it measured, rounded and placed as CTA-5004 says, and passing hlstui's own checker.
@Suite("CMCD hlstui sends: measured keys only, each as CTA-5004 writes it")
struct CMCDSendTests {
    static let settings = CMCDSettings(mode: .query, sessionID: "6e2fb550-c457-11e9-bb97-0800200c9a66", contentID: "demo")

    @Test("a video segment at startup, then in steady play, then after a stall: bl, dl, br, tb, d, mtp, nor, su and bs")
    func segment() {
        let url = "http://h/vod/v360/seg4.ts"
        let object = CMCDObject(type: .video, duration: 2.002, bitrate: 829_000, next: "http://h/vod/v360/seg5.ts")
        let start = CMCDSend.data(
            url: url, object: object, status: CMCDPlayerStatus(urgent: true, live: false), settings: Self.settings, starved: false)
        #expect(
            CMCD.serialize(start)
                == #"br=829,cid="demo",d=2002,nor="seg5.ts",ot=v,sf=h,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",st=v,su"#)
        let playing = CMCDPlayerStatus(
            bufferAhead: 8.26, throughput: 4_870_000, rate: 1, topBitrate: 2_500_000, urgent: false, stalls: 0, live: false)
        let steady = CMCDSend.data(url: url, object: object, status: playing, settings: Self.settings, starved: false)
        #expect(steady[.bl] == .integer(8300) && steady[.dl] == .integer(8300) && steady[.mtp] == .integer(4900))
        #expect(steady[.tb] == .integer(2500) && steady[.su] == nil && steady[.bs] == nil && steady[.pr] == nil)
        var fast = playing
        fast.rate = 2
        let double = CMCDSend.data(url: url, object: object, status: fast, settings: Self.settings, starved: true)
        #expect(double[.pr] == .decimal(2) && double[.dl] == .integer(4100) && double[.bs] == .boolean(true), "dl is bl at the rate")
        // Every one passes the checker hlstui holds other players to.
        for d in [start, steady, double] {
            let read = CMCD.read(headers: [], url: CMCD.adding(d, to: url))
            let context = CMCDContext(objectType: .video, duration: 2.002, bitrates: [829_000, 2_500_000], live: false)
            #expect(CMCDCheck.findings(read, context: context).isEmpty, "\(CMCDCheck.findings(read, context: context))")
        }
    }

    @Test("a playlist, a key, an audio rendition's segment and an object hlstui cannot place: only what belongs to each")
    func others() {
        let status = CMCDPlayerStatus(bufferAhead: 6, throughput: 1_000_000, urgent: false, stalls: 1, live: true)
        let playlist = CMCDSend.data(
            url: "http://h/live/v1/index.m3u8", object: CMCDObject(type: .manifest), status: status, settings: Self.settings, starved: false
        )
        #expect(playlist.keys.sorted() == ["cid", "mtp", "ot", "sf", "sid", "st"] && playlist[.st] == .token("l"))
        let audio = CMCDSend.data(
            url: "http://h/live/a/seg9.m4s", object: CMCDObject(type: .audio, duration: 1.92), status: status, settings: Self.settings,
            starved: true)
        #expect(audio[.br] == nil && audio[.tb] == nil, "a rendition's bitrate is not declared: none sent")
        #expect(audio[.bl] == .integer(6000) && audio[.d] == .integer(1920) && audio[.bs] == .boolean(true))
        let unknown = CMCDSend.data(url: "http://h/x.bin", object: nil, status: status, settings: Self.settings, starved: true)
        #expect(unknown[.ot] == .token("o") && unknown[.bs] == nil && unknown[.bl] == nil)
    }

    @Test("nor: the next object's path relative to the one asked for, URL-encoded; none across origins")
    func relative() {
        #expect(CMCDSend.relativePath(from: "http://h/a/v1/s1.ts", to: "http://h/a/v1/s2.ts") == "s2.ts")
        #expect(CMCDSend.relativePath(from: "http://h/a/v1/s1.ts", to: "http://h/a/v2/s2.ts") == "..%2Fv2%2Fs2.ts")
        #expect(CMCDSend.relativePath(from: "http://h/a/v1/s1.ts", to: "http://h/a/v1/s2.ts?t=1") == "s2.ts%3Ft%3D1")
        #expect(CMCDSend.relativePath(from: "http://h/a/s1.ts", to: "http://h/b/c/s2.ts") == "..%2Fb%2Fc%2Fs2.ts")
        #expect(CMCDSend.relativePath(from: "http://h/a/s1.ts", to: "http://cdn2/a/s2.ts") == nil)
    }

    @Test("a variant's segments: audio and video unless every rendition of its AUDIO group has a URI; audio-only CODECS: audio")
    func variantType() {
        let v = Variant(uri: "v1/index.m3u8", bandwidth: 800_000)
        var withGroup = v
        withGroup.audio = "aac"
        withGroup.codecs = "avc1.4d401e,mp4a.40.2"
        let muxedMain = Rendition(type: "AUDIO", groupID: "aac", name: "English", isDefault: true, autoselect: true, forced: false)
        let german = Rendition(
            type: "AUDIO", uri: "de/index.m3u8", groupID: "aac", name: "Deutsch", isDefault: false, autoselect: true, forced: false)
        #expect(CMCDSend.variantType(v, renditions: []) == .muxed, "no CODECS, no group: muxed")
        #expect(CMCDSend.variantType(withGroup, renditions: [muxedMain, german]) == .muxed, "a rendition without URI is in the variant")
        #expect(CMCDSend.variantType(withGroup, renditions: [german]) == .video)
        var audioOnly = v
        audioOnly.codecs = "mp4a.40.2"
        #expect(CMCDSend.variantType(audioOnly, renditions: []) == .audio)
    }
}
