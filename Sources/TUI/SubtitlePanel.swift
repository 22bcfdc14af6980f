import HLS
import Session

// The subtitle line (docs/SUBTITLES.md). Built from the session and drawn, both pure.

/// The subtitle line: which rendition, and the cue at the playhead.
public struct SubtitleLine: Sendable, Equatable {
    public var label: String
    public var text: String
}

extension Dashboard {
    /// The cue at the playhead, centred, after the rendition's name (docs/SUBTITLES.md); under the picture when it is shown.
    static func subtitle(_ s: SubtitleLine, into c: inout Canvas, y: inout Int) {
        let label = fit(s.label, max(0, min(displayWidth(s.label), c.width / 3)))
        c.put(1, y, label, .dim)
        let room = c.width - displayWidth(label) - 3
        if room > 3, !s.text.isEmpty {
            let text = fit(s.text, room)
            let x = displayWidth(label) + 2 + max(0, (room - displayWidth(text)) / 2)
            c.put(x, y, text, .accent)
        }
        y += 1
    }
}
