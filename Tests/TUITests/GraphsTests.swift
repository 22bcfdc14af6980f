import Foundation
import LoaderEvents
@testable import Session
import Testing

@testable import TUI

@Suite("History plots and the request waterfall: a series a second, block sparklines, bars on one time axis")
struct GraphsTests {
    @Test("a series keeps a value a second: the latest within a second, holes for seconds not recorded, 15 minutes at most")
    func series() {
        var s = Series()
        s.record(1, at: 0.2)
        s.record(2, at: 0.9)
        s.record(nil, at: 1.5)
        s.record(5, at: 4.1)
        #expect(s.values == [2, nil, nil, nil, 5] && s.last == 5 && s.newest == 4)
        s.record(9, at: 3)
        #expect(s.values.count == 5, "a time before the newest is ignored")
        s.record(.nan, at: 5)
        #expect(s.values.last == .some(nil) && s.last == 5, "not a number is a hole")
        for t in 6..<2000 { s.record(Double(t), at: Double(t)) }
        #expect(s.values.count == Series.capacity && s.values.last == 1999 && s.values.first == .some(Double(2000 - Series.capacity)))
    }

    @Test("a known series becomes known blocks: newest at the right, scaled to the top, holes blank, two rows stacked")
    func sparkline() {
        // Seconds 0…3: 0, 4, 8, hole; one second a column, top 8, one row of eighths.
        let one = Sparkline.render([0, 4, 8, nil], width: 6, rows: 1, secondsPerColumn: 1, top: 8)
        #expect(one == ["   ▄█ "], "\(one)")
        // Two rows: 8 of 8 fills both, 4 of 8 fills the lower.
        let two = Sparkline.render([4, 8], width: 2, rows: 2, secondsPerColumn: 1, top: 8)
        #expect(two == [" █", "██"], "\(two)")
        // Two seconds a column: the mean of the known values in them.
        #expect(Sparkline.columns([2, 4, nil, 6], width: 2, secondsPerColumn: 2) == [3, 6])
        #expect(Sparkline.top([2, 4, nil, 6], width: 1, secondsPerColumn: 2) == 6, "only what is shown sets the top")
        // A small figure is never drawn as nothing; zero is the baseline.
        #expect(Sparkline.render([0.01, 100], width: 2, rows: 1, secondsPerColumn: 1, top: 100) == ["▁█"])
        #expect(Sparkline.render([0, 0], width: 2, rows: 1, secondsPerColumn: 1, top: 0) == ["  "])
    }

    @Test("each request a bar on one axis: waiting light, the transfer solid, an unanswered request all waiting")
    func waterfall() {
        let rows = [
            WaterfallRow(label: "a", start: 0, firstByte: 0.5, end: 1, role: .normal),
            WaterfallRow(label: "b", start: 1, firstByte: 1, end: 2, role: .normal),
            WaterfallRow(label: "c", start: 0, firstByte: nil, end: 1, role: .bad),
        ]
        let (axis, bars) = Waterfall.render(rows, width: 8)
        #expect(axis?.from == 0 && axis?.to == 2)
        #expect(bars == ["░░███   ", "    ████", "░░░░░   "], "\(bars)")
        #expect(Waterfall.render([], width: 8).axis == nil)
    }

    @Test("the panels fit 80×24 and grow with the terminal; the toggles take turns in the log's place")
    func panels() {
        var s = SessionState(url: "http://example.com/live.m3u8")
        for t in 0..<120 {
            s.history.throughput.record(Double(1_000_000 + t * 10_000), at: Double(t))
            s.history.ahead.record(Double(t % 10), at: Double(t))
            s.history.bitrate.record(800_000, at: Double(t))
            s.history.latency.record(6, at: Double(t))
        }
        var ui = UIState()
        ui.toggleLower(.graphs)
        #expect(ui.lower == .graphs)
        let small = Dashboard.render(DashboardModel(s, ui: ui), width: 80, height: 24).text
        #expect(small.contains("─ History") && small.contains("live latency") && small.contains("2.2Mbps"), "\(small)")
        let rows = { (text: String) in text.split(separator: "\n").filter { $0.contains("▇") || $0.contains("█") }.count }
        let big = Dashboard.render(DashboardModel(s, ui: ui), width: 160, height: 60).text
        #expect(rows(big) > rows(small), "more rows per plot on a larger terminal")
        ui.toggleLower(.waterfall)
        #expect(ui.lower == .waterfall && !ui.showGraphs)
        ui.toggleLower(.waterfall)
        #expect(ui.lower == .log)
        ui.toggleLower(.picture)
        ui.toggleLower(.graphs)
        #expect(ui.lower == .graphs && !ui.showPicture)
    }
}

@Suite("The picture in terminal graphics: sixel and kitty encoders, what the terminal answers")
struct PictureGraphicsTests {
    @Test("sixel: a known image becomes a known sequence — raster size, the cube's colours used, six-row bands, runs")
    func sixel() {
        // 5×7: red on top, blue in the seventh row (the second band).
        let red = RGB(255, 0, 0), blue = RGB(0, 0, 255)
        let img = PictureImage(width: 5, height: 7, pixels: Array(repeating: red, count: 30) + Array(repeating: blue, count: 5))
        let s = Sixel.encode(img, width: 5, height: 7)
        // Colour 180 is red (5·36), 5 is blue; band one: red in all six rows (63+63 = "~"), five columns as a run; band two:
        // blue in its first row (63+1 = "@").
        #expect(s == "\u{1B}P0;1;0q\"1;1;5;7#5;2;0;0;100#180;2;100;0;0#180!5~-#5!5@-\u{1B}\\", "\(s.debugDescription)")
        #expect(Sixel.runs([1, 1, 1, 2]) == "@@@A" && Sixel.runs([0, 0, 0, 0]) == "!4?")
        // Scaled: twice the size, the same two colours.
        let big = Sixel.encode(img, width: 10, height: 14)
        #expect(big.contains("\"1;1;10;14") && big.contains("#180!10~"))
    }

    @Test("kitty: 24-bit RGB in base64 chunks of 4096, placed over the cells given, the earlier image of the id replaced")
    func kitty() {
        let img = PictureImage(width: 40, height: 40, pixels: Array(repeating: RGB(1, 2, 3), count: 1600))
        let s = Kitty.encode(img, columns: 10, rows: 5, id: 3)
        #expect(s.hasPrefix("\u{1B}_Ga=d,d=I,i=3,q=2\u{1B}\\\u{1B}_Ga=T,f=24,s=40,v=40,c=10,r=5,i=3,q=2,C=1,m=1;AQID"))
        // 4800 bytes of RGB are 6400 of base64: two chunks, the last with m=0.
        let chunks = s.components(separatedBy: "\u{1B}_G").dropFirst(2)
        #expect(chunks.count == 2 && chunks.last!.hasPrefix("m=0;"), "\(chunks.map { $0.prefix(10) })")
        let payload = chunks.map { $0.split(separator: ";", maxSplits: 1)[1].dropLast(2) }.joined()
        #expect(
            payload.count == 6400
                && Data(base64Encoded: String(payload)) == Data(Array(repeating: [1, 2, 3] as [UInt8], count: 1600).joined()))
    }

    @Test("the terminal's answers: kitty's OK, DA1 with 4 (sixel) or without, the cell size; complete once DA1 came")
    func replies() {
        let xterm = GraphicsReplies.parse(Array("\u{1B}[6;20;10t\u{1B}[?63;1;2;4;6;9;15;22c".utf8))
        #expect(xterm.sixel && !xterm.kitty && xterm.complete && xterm.cellPixels?.width == 10 && xterm.cellPixels?.height == 20)
        #expect(xterm.best == .sixel)
        let kitty = GraphicsReplies.parse(Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;c".utf8))
        #expect(kitty.kitty && kitty.best == .kitty && kitty.complete)
        let tmux = GraphicsReplies.parse(Array("\u{1B}[?1;2c".utf8))
        #expect(tmux.best == nil && tmux.complete && tmux.cellPixels == nil)
        #expect(!GraphicsReplies.parse(Array("\u{1B}[6;20;10t".utf8)).complete, "DA1 not in yet")
        // "4" among the parameters, not inside another number.
        #expect(!GraphicsReplies.parse(Array("\u{1B}[?64;14c".utf8)).sixel)
    }
}
