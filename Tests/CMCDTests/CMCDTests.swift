import Testing

@testable import CMCD

/// CMCD (CTA-5004) written and read in both transmission modes, and every rule the checker holds a request to.
@Suite("CMCD: written and read as CTA-5004 says, each broken rule named")
struct CMCDTests {
    /// The four headers of a request that uses every version-1 key, as CTA-5004's header-mode example lays them out.
    static let specHeaders: [(name: String, value: String)] = [
        ("CMCD-Object", "br=3200,d=4004,ot=v,tb=6000"),
        ("CMCD-Request", #"bl=21300,dl=18500,mtp=48100,nor="..%2F300kbps%2Ftrack.m4v",nrr="12323-48763",su"#),
        ("CMCD-Session", #"cid="faec5fc2-ac30-11ea-bb37-0242ac130002",pr=1.08,sf=d,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",st=v"#),
        ("CMCD-Status", "bs,rtp=12000"),
    ]

    static func sample() -> CMCDData {
        var d = CMCDData()
        d[.br] = .integer(3200)
        d[.d] = .integer(4004)
        d[.ot] = .token("v")
        d[.tb] = .integer(6000)
        d[.bl] = .integer(21300)
        d[.dl] = .integer(18500)
        d[.mtp] = .integer(48100)
        d[.nor] = .string("..%2F300kbps%2Ftrack.m4v")
        d[.nrr] = .string("12323-48763")
        d[.su] = .boolean(true)
        d[.cid] = .string("faec5fc2-ac30-11ea-bb37-0242ac130002")
        d[.pr] = .decimal(1.08)
        d[.sf] = .token("d")
        d[.sid] = .string("6e2fb550-c457-11e9-bb97-0800200c9a66")
        d[.st] = .token("v")
        d[.bs] = .boolean(true)
        d[.rtp] = .integer(12000)
        return d
    }

    @Test("header mode: each key in its header, keys in alphabetical order, true Booleans bare; read back the same, no finding")
    func headers() {
        let written = CMCD.headers(Self.sample())
        #expect(written.map(\.name) == Self.specHeaders.map(\.name))
        #expect(written.map(\.value) == Self.specHeaders.map(\.value))
        let read = CMCD.read(headers: Self.specHeaders, url: nil)
        #expect(read.data.values == Self.sample().values)
        #expect(read.placement["bl"] == .header(.request) && read.placement["bs"] == .header(.status))
        #expect(CMCDCheck.findings(read).isEmpty, "\(CMCDCheck.findings(read))")
    }

    @Test("query mode: one CMCD argument, percent-encoded as encodeURIComponent does, after any query the URL has; read back")
    func query() throws {
        var d = CMCDData()
        d[.br] = .integer(1200)
        d[.ot] = .token("v")
        d[.sid] = .string("a b")
        d[.su] = .boolean(true)
        d[.bs] = .boolean(false)
        let url = CMCD.adding(d, to: "http://h/v/seg1.ts?token=x#frag")
        #expect(url == "http://h/v/seg1.ts?token=x&CMCD=br%3D1200%2Cot%3Dv%2Csid%3D%22a%20b%22%2Csu#frag", "a false Boolean is left out")
        let read = CMCD.read(headers: [], url: url)
        #expect(read.data[.sid] == .string("a b") && read.data[.su] == .boolean(true) && read.data[.bs] == nil)
        #expect(read.placement["br"] == .query)
        #expect(CMCD.removingQuery(from: url) == "http://h/v/seg1.ts?token=x#frag")
        #expect(CMCD.removingQuery(from: "http://h/a.m3u8?CMCD=ot%3Dm") == "http://h/a.m3u8")
        #expect(CMCD.adding(CMCDData(), to: "http://h/a.m3u8") == "http://h/a.m3u8", "nothing to send: the URL as it was")
        // As hls.js writes it (keys sorted, query mode) for a playlist.
        let hls = CMCD.read(headers: [], url: "http://h/master.m3u8?CMCD=cid%3D%22c1%22%2Cot%3Dm%2Csf%3Dh%2Csid%3D%22s1%22%2Cst%3Dv%2Csu")
        #expect(CMCDCheck.findings(hls).isEmpty && hls.data[.ot] == .token("m"))
    }

    @Test("malformed CMCD: each key's name, type, sign, rounding, token, length, header and range named in one line; no crash")
    func broken() {
        func rules(_ headers: [(name: String, value: String)] = [], url: String? = nil) -> [String] {
            CMCDCheck.findings(CMCD.read(headers: headers, url: url)).map(\.rule)
        }
        #expect(rules([("CMCD-Request", "bl=21345")]) == ["rounding"])
        #expect(rules([("CMCD-Request", "mtp=48150")]) == ["rounding"])
        #expect(rules([("CMCD-Request", "bl=-100")]) == ["range"])
        #expect(rules([("CMCD-Object", #"br="3200""#)]) == ["type"])
        #expect(rules([("CMCD-Session", "sid=abc")]) == ["type"], "a session ID is a String: quoted")
        #expect(rules([("CMCD-Object", "ot=x")]) == ["token"])
        #expect(rules([("CMCD-Session", "st=live")]) == ["token"])
        #expect(rules([("CMCD-Status", "bs=?0")]) == ["false"])
        #expect(rules([("CMCD-Session", "v=1")]) == ["version-1"])
        #expect(rules([("CMCD-Session", "pr=1.0")]) == ["rate-1"])
        #expect(rules([("CMCD-Session", "sid=\"\(String(repeating: "x", count: 65))\"")]) == ["length"])
        #expect(rules([("CMCD-Request", #"nrr="100""#)]) == ["range-format"])
        #expect(rules([("CMCD-Request", #"nrr="200-100""#)]) == ["range-format"])
        #expect(rules([("CMCD-Request", #"nrr="100-""#)]).isEmpty, "an open-ended range is a range")
        #expect(rules([("CMCD-Request", #"nor="http://h/seg2.ts""#)]) == ["relative"])
        #expect(rules([("CMCD-Object", "bl=100")]) == ["header"])
        #expect(rules([("CMCD-Object", "ot=m"), ("CMCD-Request", "bl=100")]) == ["buffer-object"])
        #expect(rules([("CMCD-Request", "xyz=1")]) == ["unknown-key"])
        #expect(rules([("CMCD-Request", "com.example-xyz=1")]).isEmpty, "a custom key with its prefix")
        #expect(rules([("CMCD-Session", "v=2"), ("CMCD-Request", "ltc=300")]).isEmpty, "a version-2 key from a version-2 player")
        #expect(rules([("CMCD-Object", "br=1,br=2")]).isEmpty, "RFC 8941: the last of a repeated key wins")
        #expect(rules([("CMCD-Object", "br=1"), ("CMCD-Request", "br=2")]) == ["duplicate"])
        #expect(rules([("CMCD-Object", "tb=1,br=2")]) == ["order"])
        #expect(rules([("CMCD-Request", "bl=")]) == ["syntax"])
        #expect(rules([("CMCD-Request", "bl=(1 2)")]) == ["type"])
        #expect(rules(url: "http://h/s.ts?CMCD=%ZZ") == ["syntax"])
        #expect(rules(url: "http://h/s.ts?CMCD=").isEmpty, "an empty dictionary is a dictionary (RFC 8941 §3.2)")
        let line = CMCDCheck.findings(CMCD.read(headers: [("CMCD-Object", #"br="3200""#)], url: nil)).first?.description
        #expect(line == #"error: br="3200": a String where CTA-5004 says Integer kbps (encoded bitrate) [type]"#)
    }

    @Test("against the object: its type, its duration, the ladder's bitrates, live or VOD")
    func context() {
        let ladder = [800_000, 700_000, 2_500_000]
        func rules(_ value: String, _ c: CMCDContext) -> [String] {
            CMCDCheck.findings(CMCD.read(headers: [], url: "http://h/x?CMCD=" + CMCD.percentEncode(value)), context: c).map(\.rule)
        }
        let segment = CMCDContext(objectType: .video, duration: 4.004, bitrates: ladder, live: false)
        #expect(rules("br=800,d=4004,ot=v,st=v,tb=2500", segment).isEmpty)
        #expect(rules("br=700,d=4000,ot=av", segment).isEmpty, "AVERAGE-BANDWIDTH; a duration within a frame; muxed for video")
        #expect(rules("br=3200", segment) == ["bitrate"])
        #expect(rules("br=800,tb=700", segment) == ["top-bitrate"])
        #expect(rules("d=6000", segment) == ["duration"])
        #expect(rules("ot=m", segment) == ["object-type"])
        #expect(rules("st=l", segment) == ["stream-type"])
        let playlist = CMCDContext(objectType: .manifest, bitrates: ladder, live: true)
        #expect(rules("ot=v", playlist) == ["object-type"])
        #expect(rules("bl=2000", playlist) == ["buffer-object"], "no ot sent: the object's known type counts")
        #expect(rules("ot=m,st=l", playlist).isEmpty)
    }

    @Test("a session over time: sid, cid, sf and st fixed; a starvation the buffer could not have had is named")
    func session() {
        func data(_ text: String) -> CMCDData { CMCD.read(headers: [], url: "http://h/x?CMCD=" + CMCD.percentEncode(text)).data }
        var s = CMCDSessionCheck()
        #expect(s.observe(data(#"bl=8000,ot=v,sid="a",st=v"#), at: 0).isEmpty)
        #expect(s.observe(data(#"bl=9000,bs,ot=v,sid="a""#), at: 2).map(\.rule) == ["starvation"], "8 s held, 2 s later starved")
        #expect(s.observe(data(#"bl=1000,bs,ot=v,sid="a""#), at: 12).isEmpty, "9 s held, 10 s later: it may have run dry")
        #expect(s.observe(data(#"bl=1000,bs,ot=v,su"#), at: 12.5).isEmpty, "a seek empties the buffer itself")
        #expect(s.observe(data(#"ot=m,sid="b""#), at: 13).map(\.rule) == ["session-changed"])
        #expect(s.observe(data(#"ot=m,st=l"#), at: 14).map(\.rule) == ["session-changed"])
        // At double speed the buffer drains in half the time.
        var fast = CMCDSessionCheck()
        _ = fast.observe(data("bl=8000,ot=v,pr=2"), at: 0)
        #expect(fast.observe(data("bl=500,bs,ot=v,pr=2"), at: 4.1).isEmpty)
    }
}

/// CMSD (CTA-5006) read from a response and written by a server.
@Suite("CMSD: the server's static and dynamic data read, each hop kept; written back")
struct CMSDTests {
    @Test("static keys and one hop, as a CDN sends them; the lowest mb of all hops caps")
    func read() {
        let one = CMSD.read(headers: [
            ("cmsd-static", #"ot=v,sf=h,st=v,d=5000,br=2000,n="OriginProviderA""#),
            ("CMSD-Dynamic", #""CDNA-312.663";etp=115;rtt=16;mb=5000"#),
        ])
        #expect(one.findings.isEmpty)
        #expect(one.statics["d"] == .integer(5000) && one.statics["n"] == .string("OriginProviderA"))
        #expect(one.hops == [CMSD.Hop(name: "CDNA-312.663", values: ["etp": .integer(115), "rtt": .integer(16), "mb": .integer(5000)])])
        #expect(one.maxSuggestedBitsPerSecond == 5_000_000 && one.estimatedThroughputBitsPerSecond == 115_000)
        let two = CMSD.read(headers: [("CMSD-Dynamic", #""origin";mb=8000, "edge";etp=96000;rtt=2;mb=3000;du"#)])
        #expect(two.hops.map(\.name) == ["origin", "edge"] && two.maxSuggestedBitsPerSecond == 3_000_000 && two.hops[1].duress)
        #expect(two.summary == "mb 8000k (origin); mb 3000k etp 96000k rtt 2ms duress (edge)")
    }

    @Test("broken CMSD: one line each, nothing else lost")
    func broken() {
        let bad = CMSD.read(headers: [("CMSD-Static", "d="), ("CMSD-Dynamic", #""e";etp="fast""#)])
        #expect(bad.findings.map(\.rule) == ["syntax", "type"])
        #expect(bad.hops.first?.name == "e")
        #expect(CMSD.read(headers: [("Content-Type", "video/mp2t")]).isEmpty)
    }

    @Test("what the embedded origin writes reads back as it was")
    func write() {
        let statics: [String: CMCDValue] = ["ot": .token("v"), "sf": .token("h"), "st": .token("v"), "d": .integer(2000)]
        let hop = CMSD.Hop(name: "hlstui-origin", values: ["etp": .integer(96000), "mb": .integer(1500), "rtt": .integer(1)])
        #expect(CMSD.staticHeader(statics) == "d=2000,ot=v,sf=h,st=v")
        #expect(CMSD.dynamicEntry(hop) == #""hlstui-origin";etp=96000;mb=1500;rtt=1"#)
        let back = CMSD.read(headers: [("CMSD-Static", CMSD.staticHeader(statics)), ("CMSD-Dynamic", CMSD.dynamicEntry(hop))])
        #expect(back.statics == statics && back.hops == [hop] && back.findings.isEmpty)
    }
}
