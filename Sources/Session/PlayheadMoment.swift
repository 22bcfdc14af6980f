import HLS

/// What the player was read to say for sync's clock (`SessionState.moment`).
public struct ClockLook: Sendable, Equatable {
    public var paused = false
    public var pausedForCache = false
    public var eofReached = false
    public var coreIdle = false
    public var audioPts: Double?
    public var timePos: Double?
    public init(
        paused: Bool = false, pausedForCache: Bool = false, eofReached: Bool = false, coreIdle: Bool = false, audioPts: Double? = nil,
        timePos: Double? = nil
    ) {
        self.paused = paused
        self.pausedForCache = pausedForCache
        self.eofReached = eofReached
        self.coreIdle = coreIdle
        self.audioPts = audioPts
        self.timePos = timePos
    }
}

/// The wall-clock moment at a pane's playhead, for sync (DECISIONS.md, sync): the PDT there, whether it advances, and what
/// the playlist lists.
public struct PlayheadMoment: Sendable, Equatable {
    /// The PDT at the playhead (fresh `audio-pts`, else `time-pos`, through the media clock).
    public var pdt: DateTime?
    /// The playhead advances.
    public var playing: Bool
    /// Whether the stream carries PDT at all (nil until its playlist is known).
    public var hasPDT: Bool?
    /// The PDT range the pane's playlist lists.
    public var window: SyncWindow?
    /// The player waits for data (see `SyncReading.stalled`).
    public var stalled = false
    /// `pdt` comes from `audio-pts`, which advances between frames (`SyncReading.continuous`).
    public var continuous = false
}

extension SessionState {
    /// The moment at the playhead as `look` reads it.
    public func moment(_ look: ClockLook) -> PlayheadMoment {
        let media = loadedRung.flatMap { self.media[$0] } ?? playingMedia
        let hasPDT = media.map { $0.segments.contains { $0.effectiveProgramDateTime != nil } }
        var window = media.flatMap(Self.window)
        window?.holdBack = lowLatency.holdBack
        // The stream's edge as the newest of its playlists shows it.
        if let w = window, let newest = self.media.values.compactMap({ Self.window($0)?.edge }).max() { window?.edge = max(w.edge, newest) }
        window?.bufferedUntil = playingMedia.flatMap { m in bufferedEnd.flatMap { Timeline.programDateTime(at: $0, in: m) } }
        // An interstitial's asset in the player names no moment of the primary (docs/EVENTS.md): the others play on.
        guard !playerLoading, started, error == nil, interstitials.run == nil, !interstitials.assetInPlayer else {
            // A reload after a stall (the origin answers again) is still the stall: the others wait until it plays.
            return PlayheadMoment(pdt: nil, playing: false, hasPDT: hasPDT, window: window, stalled: currentStall != nil && !ended)
        }
        let paused = look.paused || look.pausedForCache || (!look.eofReached && look.coreIdle)
        // Rebuffering, or stopped at the end of what a failing origin gave: not a pause of the user's or of sync's.
        let stalled = !ended && (look.pausedForCache || eofSince != nil || currentStall != nil)
        // Audio that began before the located segment (just after a timestamp reset) names no moment yet: no reading, rather
        // than the segment's start held still while the other panes move on.
        guard let raw = look.audioPts ?? look.timePos, let p = locate(raw), let m = media, !clock.precedes(raw, p) else {
            return PlayheadMoment(pdt: nil, playing: !paused, hasPDT: hasPDT, window: window, stalled: stalled)
        }
        // Behind the window (a hold reads on while the window slides) the PDT its playlist gave when it listed it.
        let pdt = m.lists(p.msn) ? MediaClock.programDateTime(p, in: m) : programDateTime(p)
        // A playhead in a segment without PDT (the encoder lost its clock) is out of the lock, whatever else the window lists.
        let here = pdt != nil || !m.lists(p.msn) ? hasPDT : false
        var moment = PlayheadMoment(pdt: pdt, playing: !paused, hasPDT: here, window: window, stalled: stalled)
        moment.continuous = look.audioPts != nil
        return moment
    }

    /// The PDT range `m` lists: from its first segment's PDT to where its last segment ends.
    public static func window(_ m: MediaPlaylist) -> SyncWindow? {
        guard let first = m.segments.first(where: { $0.effectiveProgramDateTime != nil }), let a = first.effectiveProgramDateTime,
            let last = m.segments.last(where: { $0.effectiveProgramDateTime != nil }), let b = last.effectiveProgramDateTime
        else { return nil }
        let breaks = m.segments.filter(\.discontinuity).compactMap(\.effectiveProgramDateTime)
        var w = SyncWindow(
            start: a, end: b.adding(seconds: last.duration), live: m.isLive, targetDuration: Double(m.targetDuration ?? 0),
            breaks: breaks)
        w.partTarget = m.partTarget
        w.edge = w.end.adding(seconds: m.segments.drop { $0.mediaSequence <= last.mediaSequence }.reduce(0) { $0 + $1.duration })
        return w
    }
}
