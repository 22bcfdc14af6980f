import MediaFormats

/// The CEA-608 captions (CC1) in the plain ladder's video (docs/ORIGIN.md): in every segment, a pop-on caption naming the
/// segment shown half a second in and cleared a second later, on the same frames in every rung.
public enum CaptionSchedule {
    /// Seconds into a segment at which its caption is shown, and cleared.
    public static let shownAt = 0.5
    public static let clearedAt = 1.5

    /// The caption of segment `n` (counted from 0 in the encode).
    public static func text(segment n: Int) -> String { "CC1 segment \(n)" }

    /// The `cc_data` pairs of every frame that carries some, by frame: each caption loaded in the frames before the one it is
    /// shown in (its end-of-caption code falls on that frame), cleared from its clearing frame on.
    static func pairs(frames: Int, perSegment: Int, fps: Double) -> [Int: [CEA608.Pair]] {
        var out: [Int: [CEA608.Pair]] = [:]
        for n in 0..<(frames / perSegment) {
            let first = n * perSegment
            let loading = CEA608.popOn(text(segment: n))
            // The first end-of-caption (the second is its repeat) on the frame at `shownAt`.
            let shown = first + Int((shownAt * fps).rounded())
            let start = shown - (loading.count - 2)
            for (k, p) in loading.enumerated() { out[start + k] = [p] }
            let cleared = first + Int((clearedAt * fps).rounded())
            for (k, p) in CEA608.clear.enumerated() { out[cleared + k] = [p] }
        }
        return out
    }
}
