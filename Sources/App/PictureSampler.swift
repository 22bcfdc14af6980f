import NIOConcurrencyHelpers
import Player
import Session
import TUI

/// The frame on screen, taken twice a second while video is decoded (at `--picture-fps` while the screen shows the
/// picture): reduced to its luma grid for frozen and black detection (`PictureWatch`), and scaled down for the screen when
/// it is shown (docs/DASHBOARD.md).
struct PictureSampler {
    let player: PlayerOptions
    let shared: NIOLockedValueBox<PictureShared>
    /// When the picture was last taken.
    var last: ContinuousClock.Instant?

    init(player: PlayerOptions, shared: NIOLockedValueBox<PictureShared>) {
        self.player = player
        self.shared = shared
    }

    /// The luma grid of the frame on screen when one is due (nil: not due, no video decoded, or no frame yet); the scaled
    /// picture goes to the screen on the way.
    mutating func take(from mpv: MPV, decoding: Bool) -> LumaGrid? {
        guard decoding, player.decodeVideo else { return nil }
        let (wanted, detailed) = shared.withLockedValue { ($0.wanted, $0.detailed) }
        let every = wanted ? min(500, Int(1000 / max(0.5, player.pictureFPS))) : 500
        let now = ContinuousClock.now
        if let l = last, now - l < .milliseconds(every) { return nil }
        last = now
        guard let f = mpv.videoFrame(), f.format == "bgr0" else { return nil }
        if wanted {
            // Cells need 160×90 at most (two pixels a cell); a terminal drawing pixels gets three times that.
            let (mw, mh) = detailed ? (480, 270) : (160, 90)
            let image = PictureImage.of(bgr0: f.bytes, width: f.width, height: f.height, stride: f.stride, maxWidth: mw, maxHeight: mh)
            shared.withLockedValue { $0.image = image }
        }
        return LumaGrid.of(bgr0: f.bytes, width: f.width, height: f.height, stride: f.stride)
    }
}
