import CMCD
import HLS

/// Sync's moves: a reload at a wall-clock moment, a hold, and the raw media time of a point or a moment (DECISIONS.md, sync).
extension SessionState {
    /// Sync: reload at the segment holding wall-clock moment `date` and seek there (the other pane is that far behind, or
    /// will be there once the reload is done); nil when no segment holds it. With a discontinuity after the moment's segment
    /// the segments from it on are kept from the player until the seek is done: mpv 0.35 seeks each stream of its cache on
    /// its own by packet timestamp, and with a timestamp reset cached after the target it sent video to the reset's far side,
    /// where playback never started (docs/PLATFORM.md). Within `SyncWindow.breakMargin` of that discontinuity the moment would
    /// run on across it while the reload lands — and, the moment's segment the first listed after another discontinuity,
    /// there is no earlier segment on its timeline to start from: the reload starts at the discontinuity, without a seek, and
    /// the pane lands ahead of the moment (held the rest).
    /// `purpose`: why, for the lines said (sync meets the other pane; an interstitial over resumes the primary).
    mutating func planRealign(to date: DateTime, readAt: Double? = nil, purpose: String? = nil, at t: Double) -> [PaneEffect]? {
        guard let m = loadedRung.flatMap({ media[$0] }) ?? playingMedia, let pt = Timeline.playlistTime(at: date, in: m),
            let i = Timeline.segmentIndex(at: pt, in: m)
        else { return nil }
        let msn = m.segments[i].mediaSequence
        skipWatch.moveRequested()
        let rung = loadedRung ?? 0
        let (why, goal) = (purpose ?? "sync", purpose == nil ? "to meet the other pane at" : "to resume the primary at")
        if let k = m.segments[(i + 1)...].firstIndex(where: \.discontinuity) {
            let b = m.segments[k]
            // FFmpeg 5.1 opens a stream's second segment while it reads the stream's header: the reload starts two segments or
            // more before the discontinuity, so the player never waits for a segment held back to start (docs/PLATFORM.md).
            let from = k - i >= 2 ? i : i - 1
            let near = b.effectiveProgramDateTime.map { $0.seconds(since: date) < SyncWindow.breakMargin } ?? true
            guard !near, from >= 0, !m.segments[i].discontinuity || from == i else {
                note(.info, "\(why): reloaded at msn \(b.mediaSequence) \(goal) \(date) (just before a discontinuity: no seek)", t)
                return [.load(rung: rung, startMSN: b.mediaSequence)]
            }
            let start = m.segments[from].mediaSequence
            note(.info, "\(why): reloaded at msn \(start) \(goal) \(date) (msn \(b.mediaSequence) on held back until the seek)", t)
            return planReload(rung: rung, msn: start, to: .moment(date, msn: start, readAt: readAt ?? t), holdFrom: b.mediaSequence, at: t)
        }
        note(.info, "\(why): reloaded at msn \(msn) \(goal) \(date)", t)
        return planReload(rung: rung, msn: msn, to: .moment(date, msn: msn, readAt: readAt ?? t), at: t)
    }

    /// The raw media time of `point`, its offset carried on across segment ends by the playlists' durations (a live start
    /// behind the edge runs on with the clock while the player loads, and may cross into the next segment): that segment's
    /// first PTS as the Loader read it plus the offset; nil until it has been read, when the point lies past what the
    /// playlists list, or beyond a discontinuity.
    public func rawTime(at point: StreamPoint) -> Double? {
        let m = loadedRung.flatMap({ media[$0] }) ?? playingMedia
        var p = point
        while let m, let s = m.segments[safe: p.msn - m.mediaSequence], p.offset >= s.duration {
            // Past what the playlists list (the segment in progress lists its parts so far): not known yet. Across a
            // discontinuity: an exact seek there would wait for a timestamp the new timeline reaches only much later.
            guard let next = m.segments[safe: p.msn + 1 - m.mediaSequence], !next.discontinuity else { return nil }
            p.offset -= s.duration
            p.msn += 1
        }
        // Before its segment (a start that waits for it): a time the cache does not hold yet.
        return clock.firstPTS[p.msn].map { $0 + p.offset }
    }

    /// The raw media time (mpv's `time-pos`) at which wall-clock moment `date` plays, in segment `msn` or one after it on the
    /// same timeline (a sync move's target runs on while its reload lands): that segment's first PTS as the Loader read it plus
    /// the moment's distance from its EXT-X-PROGRAM-DATE-TIME (RFC 8216bis §4.4.4.6); nil until that segment has been read,
    /// when the moment is before segment `msn` or past what the playlists listed, or when a discontinuity lies between. A
    /// segment that left the live window meanwhile is found in what earlier playlists said of it: a move aimed near the start
    /// of a short window reloads there, and the window moves on before the cache holds it (the Loader still serves it,
    /// DECISIONS.md "A reload, or a player behind, may start at a segment that just left the live window").
    public func rawTime(of date: DateTime, from msn: Int) -> Double? {
        let m = loadedRung.flatMap({ media[$0] }) ?? playingMedia
        func facts(_ k: Int) -> SegmentFacts? {
            if let m, let s = m.segments[safe: k - m.mediaSequence] {
                return SegmentFacts(duration: s.duration, pdt: s.effectiveProgramDateTime, discontinuity: s.discontinuity)
            }
            return seen[k]
        }
        var k = msn
        while let s = facts(k) {
            if k > msn && s.discontinuity { return nil }
            guard let pdt = s.pdt else { return nil }
            let into = date.seconds(since: pdt)
            if into < 0 { return nil }
            if into <= s.duration { return clock.firstPTS[k].map { $0 + into } }
            k += 1
        }
        return nil
    }

    /// Sync: hold the picture for `seconds` so the other pane reaches the same moment.
    mutating func planHold(seconds: Double, at t: Double) -> [PaneEffect] {
        skipWatch.restart()
        note(.info, "sync: holding for \(fixed(seconds, 3)) s", t)
        return holdSteps(seconds: seconds)
    }
}
