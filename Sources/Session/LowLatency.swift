import HLS

extension SessionState {
    /// Where a player given low-latency media playlist `m` starts (DECISIONS.md, LL-HLS): PART-HOLD-BACK behind the end of the
    /// last part published, "the minimum distance from the end of the Playlist at which clients should begin to play" (RFC
    /// 8216bis §4.4.3.8; three part targets when the server names none, its lower bound): the segment holding that point and
    /// how far into it, counted back through the durations (the segment in progress after a discontinuity has no PDT yet); a
    /// negative offset when the start waits for the segment after a timestamp reset.
    /// Nil unless the playlist offers parts, or when the point lies before its window.
    /// Nearer than this before a timestamp reset, a start waits for the segment after it: enough for mpv's start (a second
    /// of cache) where a loop's audio ends 0.6 s before its video.
    public static let startMargin = 3.0

    public static func lowLatencyStart(_ playlist: MediaPlaylist) -> (msn: Int, offset: Double, holdBack: Double)? {
        let m = playlist.withSegmentInProgress
        guard m.offersParts, let partTarget = m.partTarget else { return nil }
        let holdBack = m.serverControl?.partHoldBack ?? 3 * partTarget
        var back = holdBack
        for (i, s) in m.segments.enumerated().reversed() {
            guard s.duration >= back else {
                back -= s.duration
                continue
            }
            // A timestamp reset just after the point: mpv measures what it holds ahead by timestamps, and a player that starts
            // with a reset close ahead stays buffering until the new timeline passes the old one (docs/PLATFORM.md). It starts
            // at the segment after the reset instead, once that segment's start is PART-HOLD-BACK behind the edge: the point
            // lies a negative offset before it and runs on with the clock into it.
            let offset = s.duration - back
            if let next = m.segments[safe: i + 1], next.discontinuity, s.duration - offset < Self.startMargin {
                return (next.mediaSequence, offset - s.duration, holdBack)
            }
            return (s.mediaSequence, offset, holdBack)
        }
        return nil
    }
}

extension SessionState {
    /// Seconds of media between the playhead and the end of the newest part, by the playlist that lists the playhead's
    /// segment (the segment in progress counted as far as its parts are published), plus how long ago that playlist was
    /// read: the distance PART-HOLD-BACK is measured in (RFC 8216bis §4.4.3.8), without PDT or the client's clock (the
    /// segment in progress after a discontinuity has no PDT yet). Nil until the playhead is located.
    public var edgeDistance: Double? {
        guard let p = playhead else { return nil }
        let rungs = [playingRung, loadedRung].compactMap { $0 } + media.keys.sorted()
        guard let rung = rungs.first(where: { media[$0]?.lists(p.msn) == true }), let m = media[rung], m.isLive,
            let read = playlistReadAt[rung]
        else { return nil }
        let ahead = m.segments[(p.msn - m.mediaSequence)...].reduce(0) { $0 + $1.duration } - p.offset
        return ahead + max(0, now - read)
    }
}

/// Keeps a low-latency playhead PART-HOLD-BACK behind the edge (pure): every stall or timestamp-reset restart leaves it a
/// little further back for good, so it plays 5 % faster (inaudible with mpv's pitch correction, as hls.js and Shaka catch up)
/// once it has stayed more than half a second behind the target for two seconds (a reading across a timestamp reset is off
/// for a moment), until it is a tenth of a second from it. Further behind than 1.5 s past the target — more than half a
/// minute at 5 % — it starts again at the edge (at most once in ten seconds), as hls.js's live sync does past its
/// maximum latency. A playhead the user moved (a seek, a pause) is left where it is.
public struct LatencyCatchUp: Sendable, Equatable {
    public static let rate = 1.05
    /// Seconds past the target beyond which the playhead starts again at the edge instead of catching up.
    public static let restartBeyond = 1.5
    /// PART-HOLD-BACK, seconds behind the edge.
    public private(set) var target: Double
    public private(set) var speeding = false
    /// The user moved the playhead (a seek, a pause): no catch-up from then on.
    public private(set) var leftByUser = false
    /// Since when (session seconds) the playhead has been behind the band.
    private(set) var behindSince: Double?
    /// When it last started again at the edge.
    private(set) var restartedAt: Double?

    /// A catch-up to `target`; `restartedAt`: when the one before it last started again at the edge (at most one such
    /// start in ten seconds, across a start again).
    public init(target: Double, restartedAt: Double? = nil) {
        self.target = target
        self.restartedAt = restartedAt
    }

    /// The user moved the playhead (a seek, a pause): it is left where it is from now on.
    mutating func userMoved() { leftByUser = true }

    /// What a playhead `latency` seconds behind the edge at session time `t` needs.
    public enum Step: Sendable, Equatable {
        /// Play at this speed (1: back, or left by the user).
        case speed(Double)
        /// Start again PART-HOLD-BACK behind the edge.
        case toEdge
    }

    /// What to do for a playhead `latency` seconds behind the edge at session time `t`, or nil when it stays as it is.
    public mutating func step(latency: Double, at t: Double) -> Step? {
        if leftByUser {
            behindSince = nil
            guard speeding else { return nil }
            speeding = false
            return .speed(1)
        }
        if speeding {
            guard latency <= target + 0.1 || latency > target + Self.restartBeyond else { return nil }
            speeding = false
            behindSince = nil
            return .speed(1)
        }
        guard latency > target + 0.5 else {
            behindSince = nil
            return nil
        }
        let since = behindSince ?? t
        behindSince = since
        guard t - since >= 2 else { return nil }
        guard latency > target + Self.restartBeyond else {
            speeding = true
            return .speed(Self.rate)
        }
        guard restartedAt.map({ t - $0 >= 10 }) ?? true else { return nil }
        restartedAt = t
        behindSince = nil
        return .toEdge
    }
}

extension SessionState {
    /// The player is first given the stream (`SessionInput.firstLoad`): an MPEG-TS ladder is spliced — the Loader chooses
    /// each segment's rung (docs/PLATFORM.md), where fMP4 needs a reload per switch; a live stream whose parts reach the player
    /// starts PART-HOLD-BACK behind its last part, anything else where the player starts on its own. The plan records the
    /// start.
    mutating func planFirstLoad(media: MediaPlaylist?, multivariant: Bool, partsGiven: Bool, at t: Double) -> PanePlan {
        let target = targetRung ?? 0
        switching.splice(multivariant && (media.map(SwitchPlanner.isTS) ?? false))
        var plan = PanePlan()
        if let media, media.isLive, partsGiven, let edge = planEdgeStart(rung: target, media: media, at: t) {
            plan = edge
        } else {
            plan.effects = [.load(rung: target, startMSN: nil, prewarmed: true)]
        }
        plan.record = VariantSwitch(t: t, from: nil, to: target, reason: .start, mechanism: spliced ? .loadSpliced : .load)
        return plan
    }

    /// LL-HLS: the player starts PART-HOLD-BACK behind the last part of `media`, just read, not three segments back
    /// (DECISIONS.md, LL-HLS); nil when the playlist offers no such start.
    mutating func planEdgeStart(rung: Int, media: MediaPlaylist, at t: Double) -> PanePlan? {
        guard let start = Self.lowLatencyStart(media) else { return nil }
        // A timestamp reset listed after the start is kept from the player until the seek has landed: with it in the cache
        // first, mpv's cache never holds a target before it (docs/PLATFORM.md).
        let reset = media.withSegmentInProgress.segments.first { $0.mediaSequence > start.msn && $0.discontinuity }?.mediaSequence
        _ = apply(.lowLatencyStarted(holdBack: start.holdBack), at: t)
        var plan = PanePlan()
        // The playlist the start is planned on was read just now, by the Loader: the player's read of it is answered from that
        // read, not read again (docs/PROXY.md).
        plan.effects = planReload(
            rung: rung, msn: start.msn, to: .position(msn: start.msn, offset: start.offset, readAt: t), holdFrom: reset, prewarmed: true,
            at: t)
        plan.said = [
            (
                .info,
                "low latency: starting \(fixed(start.holdBack, 1)) s (PART-HOLD-BACK) behind the last part, in msn \(start.msn); parts reach the player as they are published"
            )
        ]
        return plan
    }
}
