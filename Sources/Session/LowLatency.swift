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

/// Keeps a low-latency playhead PART-HOLD-BACK behind the edge (pure): every stall or timestamp-reset restart leaves it a
/// little further back for good, so it plays 5 % faster (inaudible with mpv's pitch correction, as hls.js and Shaka catch up)
/// once it has stayed more than half a second behind the target for two seconds (a reading across a timestamp reset is off
/// for a moment), until it is a tenth of a second from it. A playhead more than six seconds behind was put there (a pause, a
/// seek back): it is left where it is.
public struct LatencyCatchUp: Sendable, Equatable {
    public static let rate = 1.05
    /// PART-HOLD-BACK, seconds behind the edge.
    public var target: Double
    public private(set) var speeding = false
    /// Since when (session seconds) the playhead has been behind the band.
    var behindSince: Double?

    public init(target: Double) { self.target = target }

    /// The speed to set for a playhead `latency` seconds behind the edge at session time `t`, or nil when it stays as it is.
    public mutating func step(latency: Double, at t: Double) -> Double? {
        if speeding {
            guard latency <= target + 0.1 || latency >= target + 6 else { return nil }
            speeding = false
            behindSince = nil
            return 1
        }
        guard latency > target + 0.5, latency < target + 6 else {
            behindSince = nil
            return nil
        }
        let since = behindSince ?? t
        behindSince = since
        guard t - since >= 2 else { return nil }
        speeding = true
        return Self.rate
    }
}
