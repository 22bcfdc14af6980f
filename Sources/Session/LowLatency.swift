import HLS

extension SessionState {
    /// Where a player given low-latency media playlist `m` starts (DECISIONS.md, LL-HLS): PART-HOLD-BACK behind the end of the last
    /// part published, "the minimum distance from the end of the Playlist at which clients should begin to play" (RFC 8216bis
    /// §4.4.3.8; three part targets when the server names none, its lower bound), and the segment holding that moment. Nil
    /// unless the playlist offers parts and dates its segments (§4.4.4.6), or when the moment lies before its window.
    public static func lowLatencyStart(_ playlist: MediaPlaylist) -> (msn: Int, moment: DateTime, holdBack: Double)? {
        let m = playlist.withSegmentInProgress
        guard m.offersParts, let partTarget = m.partTarget, let last = m.segments.last,
            let lastPDT = last.effectiveProgramDateTime
        else { return nil }
        let holdBack = m.serverControl?.partHoldBack ?? 3 * partTarget
        let moment = lastPDT.adding(seconds: last.duration - holdBack)
        guard let s = m.segments.last(where: { $0.effectiveProgramDateTime.map { moment.seconds(since: $0) >= 0 } ?? false }) else {
            return nil
        }
        return (s.mediaSequence, moment, holdBack)
    }
}
