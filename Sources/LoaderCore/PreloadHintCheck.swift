import HLS

/// Whether a preload hint came true (pure). RFC 8216bis §4.4.5.3: EXT-X-PRELOAD-HINT names a resource the server is about
/// to publish; a partial segment hinted is the next one listed. A later playlist that has moved past the hinted position
/// without listing the hinted URI shows the hint was false.
public enum PreloadHintCheck {
    /// The PART hint of `held` that `later` moved past without listing, with the position it was hinted for; nil when it was
    /// listed, when `later` has not reached it yet, or when `held` hinted no part.
    public static func missed(held: MediaPlaylist, later: MediaPlaylist) -> (hint: PreloadHint, msn: Int, part: Int)? {
        guard let hint = held.preloadHints.first(where: { $0.type == "PART" }), let last = held.segments.last else { return nil }
        // The hinted part follows the held playlist's newest: the next of the segment in progress.
        let (msn, part) = (last.mediaSequence + 1, held.trailingParts.count)
        let listed = later.segments.flatMap(\.parts) + later.trailingParts
        if listed.contains(where: { $0.uri == hint.uri && $0.byteRange?.offset == hint.byteRangeStart }) { return nil }
        guard let newest = later.segments.last else { return nil }
        if newest.mediaSequence + 1 == msn { return later.trailingParts.count > part ? (hint, msn, part) : nil }
        // The hinted segment is complete in `later`: judged only while its parts are still listed (a server drops them three
        // target durations on, §6.2.2, and a playlist read that much later cannot tell).
        guard newest.mediaSequence >= msn, let s = later.segments.first(where: { $0.mediaSequence == msn }), s.parts.count > part
        else { return nil }
        return (hint, msn, part)
    }
}
