import Session
import Testing

@testable import TUI

@Suite("The picture as terminal cells: half blocks, colours, fit")
struct PictureCellsTests {
    let red = RGB(255, 0, 0), blue = RGB(0, 0, 255), white = RGB(255, 255, 255), black = RGB(0, 0, 0)

    /// A `w`×`h` image whose top half is `top` and bottom half `bottom`.
    func halves(_ w: Int, _ h: Int, _ top: RGB, _ bottom: RGB) -> PictureImage {
        PictureImage(width: w, height: h, pixels: (0..<h).flatMap { y in Array(repeating: y < h / 2 ? top : bottom, count: w) })
    }

    @Test("a known image becomes known cells: the upper pixel the foreground of ▀, the lower the background")
    func halfBlocks() {
        // 4×4 pixels into 4 columns × 2 rows: one pixel per column, two per row.
        let (x, y, cells) = PictureCells.render(halves(4, 4, red, blue), columns: 4, rows: 2, mode: .halfBlocks)
        #expect(x == 0 && y == 0 && cells.count == 2 && cells.allSatisfy { $0.count == 4 })
        #expect(cells[0].allSatisfy { $0.0 == "▀" && $0.1 == CellColors(fg: red, bg: red) })
        #expect(cells[1].allSatisfy { $0.1 == CellColors(fg: blue, bg: blue) })
        // Two rows of pixels in one row of cells: red over blue.
        let one = PictureCells.render(halves(2, 2, red, blue), columns: 2, rows: 1, mode: .halfBlocks)
        #expect(
            one.cells.count == 1 && one.cells[0].count == 2
                && one.cells[0].allSatisfy { $0.0 == "▀" && $0.1 == CellColors(fg: red, bg: blue) })
    }

    @Test("fitted with its aspect kept and centred: a 16:9 image in a wide panel is as tall as the panel, centred across")
    func fit() {
        let img = PictureImage(width: 160, height: 90, pixels: Array(repeating: white, count: 160 * 90))
        let (x, y, cells) = PictureCells.render(img, columns: 80, rows: 10, mode: .halfBlocks)
        // 20 pixel rows (10 cells) hold 160×90 at 35.6×20: 36 columns, centred in 80.
        #expect(cells.count == 10 && cells[0].count == 36 && x == 22 && y == 0)
        let (_, y2, tall) = PictureCells.render(img, columns: 16, rows: 20, mode: .halfBlocks)
        #expect(tall[0].count == 16 && tall.count == 5 && y2 == 7, "narrow: as wide as the panel, centred down")
    }

    @Test("without UTF-8: spaces on the two pixels' mean; without colour: a luma ramp")
    func fallbacks() {
        let a = PictureCells.render(halves(2, 2, white, black), columns: 2, rows: 1, mode: .ascii)
        #expect(a.cells[0].allSatisfy { $0.0 == " " && $0.1.bg == RGB(127, 127, 127) })
        let l = PictureCells.render(halves(2, 4, white, black), columns: 2, rows: 2, mode: .luma)
        #expect(l.cells[0].allSatisfy { $0.0 == "@" } && l.cells[1].allSatisfy { $0.0 == " " })
    }

    @Test("xterm's 256 colours: primaries in the cube, greys on the grey ramp")
    func palette() {
        #expect(PictureCells.xterm256(red) == 196 && PictureCells.xterm256(blue) == 21 && PictureCells.xterm256(white) == 231)
        #expect(PictureCells.xterm256(RGB(128, 128, 128)) == 244 && PictureCells.xterm256(black) == 16)
    }

    @Test("a bgr0 frame scaled down by box averages, its aspect kept")
    func scale() throws {
        // 640×360, left half red, right half blue, rows padded to 2600 bytes.
        let (w, h, stride) = (640, 360, 2600)
        var bytes = [UInt8](repeating: 0, count: stride * h)
        for y in 0..<h { for x in 0..<w { bytes[y * stride + x * 4 + (x < 320 ? 2 : 0)] = 255 } }
        let img = try #require(PictureImage.of(bgr0: bytes, width: w, height: h, stride: stride))
        #expect(img.width == 160 && img.height == 90)
        #expect(img.pixel(0, 0) == red && img.pixel(159, 89) == blue && img.pixel(79, 45) == red && img.pixel(80, 45) == blue)
        #expect(PictureImage.of(bgr0: [1, 2, 3], width: w, height: h, stride: stride) == nil)
    }

    @Test("the dashboard with v: the picture's cells painted in place of the log, its size in the title; none yet: one line")
    func dashboard() {
        var ui = UIState()
        ui.showPicture = true
        var m = DashboardModel(SessionState(url: "http://o/a.m3u8"), ui: ui)
        var c = Dashboard.render(m, width: 80, height: 24)
        #expect(c.text.contains("─ Picture") && c.text.contains("no picture: no video decoded yet") && !c.text.contains("─ Requests"))
        m.picture = halves(16, 9, red, blue)
        c = Dashboard.render(m, width: 80, height: 24)
        #expect(c.text.contains("16x9 sampled"))
        let painted = c.cells.flatMap { $0 }.filter { $0.colors != nil }
        #expect(painted.count > 100 && painted.allSatisfy { $0.text == "▀" })
        // Runs split where the colours change.
        let row = c.cells.firstIndex { $0.contains { $0.colors != nil } }!
        #expect(c.runs(row).contains { $0.colors == CellColors(fg: red, bg: red) })
    }
}
