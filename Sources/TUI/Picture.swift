/// A small picture (a decoded frame scaled down), row by row (pure).
public struct PictureImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [RGB]

    public init(width: Int, height: Int, pixels: [RGB]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public func pixel(_ x: Int, _ y: Int) -> RGB { pixels[y * width + x] }

    /// A `bgr0` frame (4 bytes a pixel, rows `stride` bytes apart) scaled down by box averages to fit `maxWidth`×`maxHeight`,
    /// its aspect kept; nil for a frame that is not whole.
    public static func of(bgr0 bytes: [UInt8], width: Int, height: Int, stride: Int, maxWidth: Int = 160, maxHeight: Int = 90)
        -> PictureImage?
    {
        guard width > 0, height > 0, stride >= width * 4, bytes.count >= stride * height else { return nil }
        let scale = min(1, min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height)))
        let w = max(1, Int((Double(width) * scale).rounded())), h = max(1, Int((Double(height) * scale).rounded()))
        var out = [RGB](repeating: RGB(0, 0, 0), count: w * h)
        bytes.withUnsafeBufferPointer { b in
            for oy in 0..<h {
                let y0 = oy * height / h, y1 = max(y0 + 1, (oy + 1) * height / h)
                for ox in 0..<w {
                    let x0 = ox * width / w, x1 = max(x0 + 1, (ox + 1) * width / w)
                    var (sr, sg, sb, n) = (0, 0, 0, 0)
                    for y in y0..<y1 {
                        var p = y * stride + x0 * 4
                        for _ in x0..<x1 {
                            sb += Int(b[p])
                            sg += Int(b[p + 1])
                            sr += Int(b[p + 2])
                            n += 1
                            p += 4
                        }
                    }
                    out[oy * w + ox] = RGB(UInt8(sr / n), UInt8(sg / n), UInt8(sb / n))
                }
            }
        }
        return PictureImage(width: w, height: h, pixels: out)
    }
}

/// A picture as terminal cells (pure): each cell shows two pixels stacked — the upper half block `▀` in the upper pixel's
/// colour on the lower pixel's colour — so a cell, about twice as tall as wide, holds two square pixels. Without UTF-8 a
/// cell is one space on the two pixels' mean; without colour, a character from a luma ramp.
public enum PictureCells {
    public enum Mode: Sendable { case halfBlocks, ascii, luma }

    /// The picture fitted into `columns`×`rows` cells, aspect kept, centred: the cells and where they start.
    public static func render(_ image: PictureImage, columns: Int, rows: Int, mode: Mode) -> (
        x: Int, y: Int, cells: [[(String, CellColors)]]
    ) {
        guard columns > 0, rows > 0, image.width > 0, image.height > 0 else { return (0, 0, []) }
        let (pw, ph) = pixels(image, columns: columns, rows: rows)
        let cw = pw, ch = (ph + 1) / 2
        func sample(_ px: Int, _ py: Int) -> RGB {
            // The box of source pixels under target pixel (px, py).
            let x0 = px * image.width / pw, x1 = max(x0 + 1, (px + 1) * image.width / pw)
            let y0 = min(image.height - 1, py * image.height / ph), y1 = min(image.height, max(y0 + 1, (py + 1) * image.height / ph))
            var (r, g, b, n) = (0, 0, 0, 0)
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let p = image.pixel(x, y)
                    (r, g, b, n) = (r + Int(p.r), g + Int(p.g), b + Int(p.b), n + 1)
                }
            }
            return n == 0 ? RGB(0, 0, 0) : RGB(UInt8(r / n), UInt8(g / n), UInt8(b / n))
        }
        let ramp = Array(" .:-=+*#%@")
        var cells: [[(String, CellColors)]] = []
        for cy in 0..<ch {
            var row: [(String, CellColors)] = []
            for cx in 0..<cw {
                let top = sample(cx, cy * 2)
                let bottom = cy * 2 + 1 < ph ? sample(cx, cy * 2 + 1) : top
                switch mode {
                case .halfBlocks: row.append(("▀", CellColors(fg: top, bg: bottom)))
                case .ascii:
                    let mean = RGB(
                        UInt8((Int(top.r) + Int(bottom.r)) / 2), UInt8((Int(top.g) + Int(bottom.g)) / 2),
                        UInt8((Int(top.b) + Int(bottom.b)) / 2))
                    row.append((" ", CellColors(fg: mean, bg: mean)))
                case .luma:
                    let l = (luma(top) + luma(bottom)) / 2
                    let i = min(ramp.count - 1, Int(l / 256 * Double(ramp.count)))
                    row.append((String(ramp[i]), CellColors(fg: RGB(255, 255, 255), bg: RGB(0, 0, 0))))
                }
            }
            cells.append(row)
        }
        return ((columns - cw) / 2, (rows - ch) / 2, cells)
    }

    /// The image fitted to `columns`×`rows` cells, aspect kept, in half-block pixels: one per column, two per row (a cell
    /// about twice as tall as wide; the image's pixels are square).
    static func pixels(_ image: PictureImage, columns: Int, rows: Int) -> (width: Int, height: Int) {
        let scale = min(Double(columns) / Double(image.width), Double(rows * 2) / Double(image.height))
        return (
            max(1, min(columns, Int((Double(image.width) * scale).rounded()))),
            max(2, min(rows * 2, Int((Double(image.height) * scale).rounded())))
        )
    }

    /// Where the fitted image lies in a `columns`×`rows` panel, in cells, centred.
    public static func box(_ image: PictureImage, columns: Int, rows: Int) -> Rect {
        let (pw, ph) = pixels(image, columns: columns, rows: rows)
        let (cw, ch) = (pw, (ph + 1) / 2)
        return Rect(x: (columns - cw) / 2, y: (rows - ch) / 2, width: cw, height: ch)
    }

    static func luma(_ c: RGB) -> Double { 0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b) }

    /// The nearest colour of xterm's 256: the 6×6×6 cube or the 24 greys, whichever is closer.
    public static func xterm256(_ c: RGB) -> Int {
        let levels = [0, 95, 135, 175, 215, 255]
        func nearest(_ v: UInt8) -> Int {
            var best = 0
            for i in levels.indices where abs(levels[i] - Int(v)) < abs(levels[best] - Int(v)) { best = i }
            return best
        }
        let (ri, gi, bi) = (nearest(c.r), nearest(c.g), nearest(c.b))
        let cube = (levels[ri], levels[gi], levels[bi])
        let mean = (Int(c.r) + Int(c.g) + Int(c.b)) / 3
        let grey = max(0, min(23, (mean - 8 + 5) / 10))
        let gv = 8 + grey * 10
        func distance(_ a: (Int, Int, Int)) -> Int {
            let (dr, dg, db) = (a.0 - Int(c.r), a.1 - Int(c.g), a.2 - Int(c.b))
            return dr * dr + dg * dg + db * db
        }
        return distance((gv, gv, gv)) < distance(cube) ? 232 + grey : 16 + 36 * ri + 6 * gi + bi
    }
}
