import CMCD
import LoaderEvents
import Testing

@testable import TUI

/// `hlstui proxy --players` drawn as text: panes of players, what does not fit named, ASCII without UTF-8.
@Suite("The players' screen: one pane a player, as many as fit, the rest named")
struct PlayersViewTests {
    static func players(_ sids: [String], at t: Double = 10) -> [CMCDPlayers.Player] {
        var p = CMCDPlayers()
        for sid in sids {
            for i in 0..<5 {
                let kv = #"bl=\#(2000 * (i + 1)),br=829,mtp=4900,ot=av,sid="\#(sid)",st=l"# + (i == 0 ? ",su" : "")
                _ = p.observe(CMCD.read(headers: [], url: "http://h/x?CMCD=" + CMCD.percentEncode(kv)), at: t - 5 + Double(i))
            }
        }
        return p.all
    }

    @Test("80x24, four players: the URL whole, three panes with their figures and plots, the earliest named")
    func four() {
        let c = PlayersView.render(
            Self.players(["a", "b", "c", "d"]), entry: "http://127.0.0.1:1/t/multivariant/1.m3u8", now: 10, width: 80, height: 24)
        let lines = c.lines
        #expect(lines[0].hasPrefix(" hlstui proxy  4 players sending CMCD  q quit"))
        #expect(lines[1].hasPrefix(" play: http://127.0.0.1:1/t/multivariant/1.m3u8"))
        #expect(lines.filter { $0.hasPrefix("─ player ") }.count == 3 && !c.text.contains("player a ·"))
        #expect(c.text.contains("+ 1 earlier: a"))
        #expect(c.text.contains("─ player d · live · 5 requests") && c.text.contains("bl 10.0 s  br 829kbps  mtp 4.9Mbps"))
        #expect(c.text.contains("bl 10.0 s  br 829kbps  mtp 4.9Mbps  started 1.0 s  stalls 0  switches 0"))
        let buffer = lines.first { $0.hasPrefix(" buffer  ") } ?? ""
        // Filling up over its five reports, the newest at the right, under the scale's top.
        #expect(buffer.contains("▂▃▅▆██ ≤10.0 s"), "\(buffer)")
        #expect(lines.allSatisfy { displayWidth($0) == 80 })
    }

    @Test("no player yet says how to get one; ASCII plots without UTF-8; a terminal too small says so")
    func edges() {
        let empty = PlayersView.render([], entry: "http://u", now: 0, width: 80, height: 24)
        #expect(empty.text.contains("no player has sent CMCD yet"))
        let ascii = PlayersView.render(Self.players(["a"]), entry: "http://u", now: 10, width: 80, height: 24, ascii: true)
        let plot = ascii.lines.first { $0.hasPrefix(" buffer  ") } ?? ""
        #expect(plot.contains("#") && !plot.contains("█"))
        #expect(PlayersView.render([], entry: "", now: 0, width: 19, height: 8).text.hasPrefix("hlstui needs at le"))
    }

    @Test("the request log and the waterfall show the CMCD a request carried and the CMSD its answer carried")
    func requestNotes() {
        var r = RequestEvent(
            kind: .segment, url: "http://h/v/seg3.ts", rung: 0, msn: 3, start: 1, ttfbMs: 2, durationMs: 20, bytes: 1000, status: 200,
            local: false, prefetch: false, retries: 0, outcome: .ok, firstPTS: nil)
        r.cmcd = #"bl=8300,br=829,cid="c",d=2000,ot=av,sf=h,sid="s",st=v"#
        r.cmsd = CMSD(hops: [CMSD.Hop(name: "edge", values: ["mb": .integer(3000)])])
        let line = DashboardModel.requestLine(r).text
        #expect(line.hasSuffix("seg3.ts  CMSD mb 3000k (edge)  CMCD bl=8300,br=829,d=2000,ot=av"), "the session's keys left out: \(line)")
        #expect(DashboardModel.waterfallRow(r).note == "CMSD mb 3000k (edge)")
    }
}
