import MediaFormats

/// The closed captions in the plain ladder's video (docs/ORIGIN.md): in every segment, a pop-on caption naming the segment
/// in each of three channels — CEA-608 CC1 (field 1), CC3 (field 2) and CEA-708 service 1 — shown half a second in and
/// cleared a second later, on the same frames in every rung.
public enum CaptionSchedule {
    /// Seconds into a segment at which its caption is shown, and cleared.
    public static let shownAt = 0.5
    public static let clearedAt = 1.5

    /// The channels carried, and the caption of segment `n` (counted from 0 in the encode) in each.
    public static let channels: [CaptionChannel] = [.cea608(1), .cea608(3), .cea708(1)]
    public static func text(segment n: Int, channel: CaptionChannel = .cea608(1)) -> String {
        switch channel {
        case .cea608(let c): return "CC\(c) segment \(n)"
        case .cea708(let s): return "708 service \(s) segment \(n)"
        }
    }

    /// The `cc_data` of every frame that carries some, by frame: each caption loaded in the frames before the one it is shown
    /// in (its end-of-caption code, or the 708 packet that displays its window, falls on that frame), cleared from its
    /// clearing frame on. Every frame's data starts with a field-1 pair (padding when CC1 says nothing): the player's
    /// CEA-608 decoder reads the field it meets first (docs/PLATFORM.md).
    static func triplets(frames: Int, perSegment: Int, fps: Double) -> [Int: [CCTriplet]] {
        // Frame → field 1's, field 2's and the DTVCC packets' triplets, each in order.
        var fields: [Int: [[CCTriplet]]] = [:]
        func put(_ ts: [[CCTriplet]], _ slot: Int, endingAt frame: Int) {
            for (k, t) in ts.enumerated() { fields[frame - (ts.count - 1) + k, default: [[], [], []]][slot] += t }
        }
        var sequence = 0
        for n in 0..<(frames / perSegment) {
            let first = n * perSegment
            let shown = first + Int((shownAt * fps).rounded())
            let cleared = first + Int((clearedAt * fps).rounded())
            for c in [1, 3] {
                // The first end-of-caption (the second is its repeat) on the frame at `shownAt`.
                let loading = CEA608.triplets(popOn: text(segment: n, channel: .cea608(c)), channel: c).map { [$0] }
                put(loading, c == 1 ? 0 : 1, endingAt: shown + 1)
                put(CEA608.triplets(clear: c).map { [$0] }, c == 1 ? 0 : 1, endingAt: cleared + 1)
            }
            let show = CEA708.packets(CEA708.popOn(text(segment: n, channel: .cea708(1)), service: 1), sequence: &sequence)
            put(show, 2, endingAt: shown)
            put(CEA708.packets(CEA708.clear(service: 1), sequence: &sequence), 2, endingAt: cleared)
        }
        let padding = CCTriplet(type: 0, 0x80, 0x80)
        return fields.mapValues { f in (f[0].isEmpty ? [padding] : f[0]) + f[1] + f[2] }
    }
}
