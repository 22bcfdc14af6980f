import Testing

@testable import CMCD

/// Other players told by their CMCD: each session's figures over time, start, stalls, switches and findings.
@Suite("Players seen through their CMCD: one session each, its story from what it sent")
struct CMCDPlayersTests {
    static func read(_ text: String) -> CMCDRead { CMCD.read(headers: [], url: "http://h/x?CMCD=" + CMCD.percentEncode(text)) }

    @Test("a session that starts, plays, switches up, stalls: started in, stalls, switches, the latest figures, the findings")
    func story() throws {
        var p = CMCDPlayers()
        _ = p.observe(Self.read(#"ot=m,sf=h,sid="a",st=v,su"#), at: 0)
        _ = p.observe(Self.read(#"bl=0,br=277,d=2000,ot=av,sid="a",su"#), at: 0.1)
        _ = p.observe(Self.read(#"bl=2000,br=277,d=2000,mtp=4900,ot=av,sid="a""#), at: 0.6)
        _ = p.observe(Self.read(#"bl=4000,br=829,d=2000,mtp=5200,ot=av,sid="a""#), at: 2.6)
        _ = p.observe(Self.read(#"bl=300,ot=a,sid="a""#), at: 3)
        let stalled = p.observe(Self.read(#"bl=0,br=829,bs,ot=av,sid="a""#), at: 12)
        #expect(stalled.isEmpty, "4 s held, 9.4 s later: it may have run dry")
        let a = try #require(p.players["a"])
        #expect(a.requests == 6 && a.samples.count == 5 && a.startup == 0.6 && a.stalls == 1 && a.switches == 1)
        #expect(a.streamType == "v" && a.latest?.buffer == 0 && a.findings.isEmpty)
        #expect(a.summary == "a bl 0.0 s br 829k mtp 5.2M, started in 0.6 s, 1 stall, 1 switch, CTA-5004 clean", "\(a.summary)")
    }

    @Test("sessions kept apart by sid, one without sid under -; findings counted by rule")
    func sessions() throws {
        var p = CMCDPlayers()
        _ = p.observe(Self.read(#"bl=2000,ot=v,sid="a""#), at: 0)
        _ = p.observe(Self.read(#"bl=2150,ot=v,sid="b""#), at: 0)
        _ = p.observe(Self.read("bl=100,ot=v,xyz=1"), at: 0)
        #expect(p.all.map(\.sid) == ["a", "b", "-"])
        #expect(p.players["b"]?.findings == ["rounding": 1] && p.players["-"]?.findings == ["unknown-key": 1])
        #expect(p.players["b"]?.summary.hasSuffix("1 finding (rounding)") == true)
        #expect(p.players["-"]?.lastFinding?.hasSuffix("[unknown-key]") == true)
    }
}
