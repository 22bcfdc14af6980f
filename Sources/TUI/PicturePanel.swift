import HLS
import Session

// The picture panel (`v`): the decoded frame, scaled down. Built from the session and drawn, both pure.

extension Dashboard {
    /// The frame on screen, in place of the log: fitted to the panel, a few times a second.
    static func picture(_ m: DashboardModel, into c: inout Canvas, y: inout Int, rows: Int) {
        guard rows >= 2 else { return }
        let note = m.picture.map { "\($0.width)x\($0.height) sampled" + (m.pictureState.map { ", " + $0 } ?? "") } ?? ""
        title("Picture", into: &c, y: &y, right: note)
        // The cue under the picture, on the panel's last row.
        defer { if let sub = m.subtitle { subtitle(sub, into: &c, y: &y) } }
        let body = rows - 1 - (m.subtitle == nil ? 0 : 1)
        if m.ui.pictureOff {
            c.put(1, y, "no picture: --picture none", .dim)
            y += body
            return
        }
        guard let image = m.picture else {
            c.put(1, y, "no picture: no video decoded yet (or the stream has none)", .dim)
            y += body
            return
        }
        if m.ui.pictureGraphics {
            // Drawn by the terminal over these cells, left blank (sixel or kitty): the screen sends it after the cells.
            let b = PictureCells.box(image, columns: c.width, rows: body)
            c.images.append(PlacedImage(rect: Rect(x: b.x, y: y + b.y, width: b.width, height: b.height), image: image))
            y += body
            return
        }
        let (x0, y0, cells) = PictureCells.render(image, columns: c.width, rows: body, mode: m.ui.pictureMode)
        for (dy, row) in cells.enumerated() {
            for (dx, cell) in row.enumerated() { c.paint(x0 + dx, y + y0 + dy, cell.0, cell.1) }
        }
        y += body
    }
}
