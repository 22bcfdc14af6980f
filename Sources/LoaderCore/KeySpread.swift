import HLS

/// Key-request spreading (DECISIONS.md, "Keys are prefetched when the multivariant is opened"): a key first seen in a live playlist refresh is fetched at a random moment
/// within a window, but before the player will need it, so clients do not all hit the key server at rotation.
public enum KeySpread {
    /// Seconds of media from the end of segment `lastRequested` (the player's latest) to the start of segment `msn`; nil when unknown.
    public static func lead(to msn: Int, lastRequested: Int?, in m: MediaPlaylist) -> Double? {
        guard let last = lastRequested else { return nil }
        if msn <= last + 1 { return 0 }
        var t = 0.0
        for s in m.segments where s.mediaSequence > last && s.mediaSequence < msn { t += s.duration }
        return t
    }

    /// The delay before fetching: uniform in [0, min(window, lead − margin)] (`random` in [0, 1)); 0 when there is no room or no lead.
    public static func delay(lead: Double?, window: Double, margin: Double = 0.5, random: Double) -> Double {
        guard let lead, window > 0 else { return 0 }
        let room = min(window, lead - margin)
        return room > 0 ? random * room : 0
    }
}
