import Foundation

/// The terminal graphics protocols the picture can be drawn with, besides cells.
public enum GraphicsProtocol: String, Sendable, Equatable {
    /// DEC sixel (xterm -ti vt340, mlterm, foot, WezTerm, Windows Terminal, iTerm2).
    case sixel
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
}

/// A picture placed on the canvas: drawn with a graphics protocol over cells the canvas leaves blank.
public struct PlacedImage: Sendable, Equatable {
    public var rect: Rect
    public var image: PictureImage
    public init(rect: Rect, image: PictureImage) {
        self.rect = rect
        self.image = image
    }
}

extension PictureImage {
    /// The pixel of this image under pixel (x, y) of a `width`×`height` copy (nearest).
    func scaled(_ x: Int, _ y: Int, width: Int, height: Int) -> RGB {
        pixel(min(self.width - 1, x * self.width / max(1, width)), min(self.height - 1, y * self.height / max(1, height)))
    }
}

/// Sixel (pure): an image as a DCS sequence in the VT340's sixel format, colours from a 6×6×6 cube, runs compressed.
public enum Sixel {
    /// `image` scaled to `width`×`height` pixels.
    public static func encode(_ image: PictureImage, width: Int, height: Int) -> String {
        guard width > 0, height > 0, image.width > 0, image.height > 0 else { return "" }
        // The cube index of every target pixel, and which indices occur (flat arrays: this runs a few times a second).
        var level = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { level[v] = UInt8((v * 5 + 127) / 255) }
        var indices = [UInt8](repeating: 0, count: width * height)
        var used = [Bool](repeating: false, count: 216)
        let xs = (0..<width).map { min(image.width - 1, $0 * image.width / width) }
        for y in 0..<height {
            let row = min(image.height - 1, y * image.height / height) * image.width
            for x in 0..<width {
                let c = image.pixels[row + xs[x]]
                let i = 36 * Int(level[Int(c.r)]) + 6 * Int(level[Int(c.g)]) + Int(level[Int(c.b)])
                indices[y * width + x] = UInt8(i)
                used[i] = true
            }
        }
        // DCS P1=0 (aspect from the raster attributes), P2=1 (unset pixels keep the background).
        var out = "\u{1B}P0;1;0q\"1;1;\(width);\(height)"
        for i in 0..<216 where used[i] {
            out += "#\(i);2;\(i / 36 * 20);\(i / 6 % 6 * 20);\(i % 6 * 20)"
        }
        // Per band, the rows each colour covers in each column; slots only for the colours in the band.
        var slot = [Int](repeating: -1, count: 216)
        var bits: [[UInt8]] = []
        var inBand: [Int] = []
        for band in stride(from: 0, to: height, by: 6) {
            for i in inBand { slot[i] = -1 }
            inBand.removeAll(keepingCapacity: true)
            var n = 0
            for dy in 0..<min(6, height - band) {
                let row = (band + dy) * width
                for x in 0..<width {
                    let i = Int(indices[row + x])
                    if slot[i] < 0 {
                        slot[i] = n
                        if n == bits.count {
                            bits.append([UInt8](repeating: 0, count: width))
                        } else {
                            for k in 0..<width { bits[n][k] = 0 }
                        }
                        inBand.append(i)
                        n += 1
                    }
                    bits[slot[i]][x] |= 1 << dy
                }
            }
            for (k, i) in inBand.sorted().enumerated() {
                if k > 0 { out += "$" }
                out += "#\(i)" + runs(bits[slot[i]])
            }
            out += "-"
        }
        return out + "\u{1B}\\"
    }

    /// Sixel characters for `bits`, runs of four or more as `!n`.
    static func runs(_ bits: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bits.count)
        var i = 0
        while i < bits.count {
            var j = i
            while j < bits.count && bits[j] == bits[i] { j += 1 }
            let c = 63 + bits[i]
            if j - i >= 4 {
                out += Array("!\(j - i)".utf8)
                out.append(c)
            } else {
                out += [UInt8](repeating: c, count: j - i)
            }
            i = j
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The kitty graphics protocol (pure): an image sent as 24-bit RGB, placed over `columns`×`rows` cells at the cursor.
public enum Kitty {
    /// Transmits and places `image` as image `id` (replacing an earlier image of that id), the cursor left where it was.
    public static func encode(_ image: PictureImage, columns: Int, rows: Int, id: Int) -> String {
        guard columns > 0, rows > 0, image.width > 0, image.height > 0 else { return "" }
        var raw = [UInt8](repeating: 0, count: image.pixels.count * 3)
        for (k, p) in image.pixels.enumerated() {
            raw[3 * k] = p.r
            raw[3 * k + 1] = p.g
            raw[3 * k + 2] = p.b
        }
        let payload = Array(Data(raw).base64EncodedString().utf8)
        var out = delete(id: id)
        var first = true
        for start in stride(from: 0, to: payload.count, by: 4096) {
            let chunk = String(decoding: payload[start..<min(payload.count, start + 4096)], as: UTF8.self)
            let more = start + 4096 < payload.count ? 1 : 0
            let keys =
                first
                ? "a=T,f=24,s=\(image.width),v=\(image.height),c=\(columns),r=\(rows),i=\(id),q=2,C=1,m=\(more)" : "m=\(more)"
            out += "\u{1B}_G\(keys);\(chunk)\u{1B}\\"
            first = false
        }
        return out
    }

    /// Deletes image `id` and its placements.
    public static func delete(id: Int) -> String { "\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\" }
}

/// What a terminal answered to hlstui's graphics queries (pure): a kitty graphics reply, the primary device attributes (DA1,
/// whose parameter 4 is sixel) and the cell size in pixels (`CSI 16 t`).
public struct GraphicsReplies: Sendable, Equatable {
    public var kitty = false
    public var sixel = false
    public var cellPixels: (width: Int, height: Int)?
    /// The DA1 answer arrived: every terminal gives one, after the others, so nothing more is coming.
    public var complete = false

    public static func == (a: GraphicsReplies, b: GraphicsReplies) -> Bool {
        a.kitty == b.kitty && a.sixel == b.sixel && a.complete == b.complete && a.cellPixels?.width == b.cellPixels?.width
            && a.cellPixels?.height == b.cellPixels?.height
    }

    /// The queries, written in one go: kitty's (a 1×1 query image, id 31), the cell size, then DA1.
    public static let query = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[16t\u{1B}[c"

    public init() {}

    /// Reads the replies in `bytes` (anything else in them is ignored).
    public static func parse(_ bytes: [UInt8]) -> GraphicsReplies {
        var r = GraphicsReplies()
        let s = String(decoding: bytes, as: UTF8.self)
        if s.contains("\u{1B}_Gi=31;OK") { r.kitty = true }
        if let range = s.range(of: #"\x1B\[6;(\d+);(\d+)t"#, options: .regularExpression) {
            let nums = s[range].dropFirst(4).dropLast().split(separator: ";").compactMap { Int($0) }
            if nums.count == 2, nums[0] > 0, nums[1] > 0 { r.cellPixels = (nums[1], nums[0]) }
        }
        if let range = s.range(of: #"\x1B\[\?[0-9;]*c"#, options: .regularExpression) {
            r.complete = true
            let params = s[range].dropFirst(3).dropLast().split(separator: ";")
            r.sixel = params.contains("4")
        }
        return r
    }

    /// The protocol to draw with: kitty's when it answered, else sixel when DA1 lists it, else cells.
    public var best: GraphicsProtocol? { kitty ? .kitty : sixel ? .sixel : nil }
}
