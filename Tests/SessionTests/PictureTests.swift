import Testing

@testable import Session

@Suite("The picture watch: frozen and black pictures from sampled frames")
struct PictureTests {
    /// A grid of `value` everywhere, with block 0 at `first` (what moves).
    func grid(_ value: Double, first: Double? = nil) -> LumaGrid {
        var cells = [Double](repeating: value, count: LumaGrid.columns * LumaGrid.rows)
        if let f = first { cells[0] = f }
        return LumaGrid(cells: cells)
    }

    @Test("a bgr0 frame becomes block means of BT.601 luma; too small or short a frame is refused")
    func lumaGrid() throws {
        // 32×18 pixels: the left half white, the right half pure blue; rows padded to a stride of 160 bytes.
        let (w, h, stride) = (32, 18, 160)
        var bytes = [UInt8](repeating: 0, count: stride * h)
        for y in 0..<h {
            for x in 0..<w {
                let p = y * stride + x * 4
                if x < 16 { (bytes[p], bytes[p + 1], bytes[p + 2]) = (255, 255, 255) } else { bytes[p] = 255 }
            }
        }
        let g = try #require(LumaGrid.of(bgr0: bytes, width: w, height: h, stride: stride))
        #expect(g.cells.count == 16 * 9)
        #expect(abs(g.cells[0] - 255) < 0.01 && abs(g.cells[7] - 255) < 0.01, "white: full luma")
        #expect(abs(g.cells[8] - 0.114 * 255) < 0.01 && abs(g.cells[15] - 0.114 * 255) < 0.01, "blue: its BT.601 weight")
        #expect(abs(g.mean - (255 + 0.114 * 255) / 2) < 0.01)
        #expect(LumaGrid.of(bgr0: bytes, width: 8, height: 4, stride: 32) == nil)
        #expect(LumaGrid.of(bgr0: Array(bytes.prefix(100)), width: w, height: h, stride: stride) == nil)
    }

    @Test("no change for 2 s of playback: frozen since the last change; a change: moving, with how long it stood")
    func frozen() {
        var w = PictureWatch()
        var facts: [PictureFact] = []
        for i in 0...4 { facts += w.observe(grid(100, first: Double(i * 10)), at: Double(i) * 0.5, playing: true) }
        #expect(facts.isEmpty && w.label == "moving")
        // From 2.0 s on the frame repeats, with an encoder's noise of a fraction of a step.
        for i in 5...9 { facts += w.observe(grid(100, first: 40 + (i.isMultiple(of: 2) ? 0.3 : 0)), at: Double(i) * 0.5, playing: true) }
        #expect(facts == [.frozen(since: 2.0)], "reported once it stood 2 s")
        #expect(w.label == "frozen" && w.frozenSince == 2.0)
        facts = w.observe(grid(100, first: 90), at: 5.5, playing: true)
        #expect(facts == [.moving(after: 3.5)] && w.label == "moving")
    }

    @Test("a player that does not play (paused, stalled, starting) is expected to stand still: not frozen")
    func notPlaying() {
        var w = PictureWatch()
        var facts: [PictureFact] = []
        for i in 0...10 { facts += w.observe(grid(100), at: Double(i) * 0.5, playing: false) }
        #expect(facts.isEmpty)
        // Playback resumes on the same frame: the count starts now.
        facts += w.observe(grid(100), at: 5.5, playing: true)
        facts += w.observe(grid(100), at: 7.0, playing: true)
        #expect(facts.isEmpty)
        facts += w.observe(grid(100), at: 7.5, playing: true)
        #expect(facts == [.frozen(since: 5.5)])
    }

    @Test("black for 2 s: black since it went dark, not also frozen; a picture again: shown, with how long it was black")
    func black() {
        var w = PictureWatch()
        var facts: [PictureFact] = []
        facts += w.observe(grid(120, first: 10), at: 0, playing: true)
        for i in 1...5 { facts += w.observe(grid(2, first: i.isMultiple(of: 2) ? 0 : 3), at: Double(i) * 0.5, playing: true) }
        #expect(facts == [.black(since: 0.5)] && w.label == "black")
        for i in 6...12 { facts += w.observe(grid(0), at: Double(i) * 0.5, playing: true) }
        #expect(facts == [.black(since: 0.5)], "a black picture is not also frozen")
        facts = w.observe(grid(120), at: 6.5, playing: true)
        #expect(facts == [.shown(after: 6.0)] && w.label == "moving")
        // A dark scene with one bright part is not black.
        var d = PictureWatch()
        let dim = (0...8).flatMap { d.observe(grid(3, first: $0.isMultiple(of: 2) ? 200 : 180), at: Double($0) * 0.5, playing: true) }
        #expect(!dim.contains { if case .black = $0 { return true } else { return false } })
    }
}
