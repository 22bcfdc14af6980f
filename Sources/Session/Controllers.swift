import HLS

/// An EXT-X-GAP run no allowed rung can fill, which the playhead must cross.
public struct GapCrossing: Sendable, Equatable {
    /// The first GAP segment and the first segment after the run.
    public var first: Int
    public var after: Int
    public var duration: Double
    /// Seconds of media before the run starts (0 when the playhead is inside it).
    public var startsIn: Double
}

extension SessionState {

    /// The rungs automatic selection chooses among: those the caps allow that carry the same kinds of media as the rung loaded.
    public var abrCandidates: [Int] {
        let allowed = onPathway(caps.allowed(ladder))
        guard let cur = loadedRung, let r = ladder.rungs[safe: cur] else { return allowed }
        let same = allowed.filter {
            ladder.rungs[safe: $0].map { SwitchPlanner.families($0.variant) == SwitchPlanner.families(r.variant) } ?? false
        }
        return same.isEmpty ? allowed : same
    }

    /// What automatic selection wants now (throughput, buffer, downloads in progress), or nil to stay.
    public func abrDecision(config: AbrConfig = AbrConfig()) -> (rung: Int, reason: String)? {
        guard mode == .automatic, !ladder.single, ladder.rungs.count > 1, let cur = loadedRung, started, error == nil, !ended else {
            return nil
        }
        let oldest = inFlight.min { $0.value.start < $1.value.start }
        let input = AbrInput(
            ladder: ladder, allowed: abrCandidates, current: cur, estimate: throughput.estimate, bufferAhead: bufferedAhead,
            segmentDuration: Double(playingMedia?.targetDuration ?? 2),
            inFlight: oldest.map { (rung: $0.value.rung, msn: $0.key, elapsed: now - $0.value.start) },
            sinceSwitch: switches.last.map { now - $0.t })
        return Abr.decide(input, config: config)
    }

    /// True when a rung other than `rung` that may play has media for segment `msn` (and the Loader can splice it in).
    /// While another candidate's playlist is still unknown the answer is yes: the Loader, which reads them first, decides.
    func fillable(_ msn: Int, rung: Int) -> Bool {
        guard spliced else { return false }
        return SwitchPlanner.fill(for: rung, ladder: ladder, allowed: caps.allowed(ladder)).contains { r in
            guard r != rung else { return false }
            guard let m = media[r] else { return true }
            guard let s = m.segments[safe: msn - m.mediaSequence] else { return false }
            return !s.gap
        }
    }

    /// True when segment `msn` of the rung loaded is a GAP no other allowed rung can fill (the Loader ends the player's playlist there).
    public func isUnfillableGap(_ msn: Int) -> Bool {
        guard let cur = loadedRung ?? (ladder.single ? 0 : nil), let m = media[cur], let s = m.segments[safe: msn - m.mediaSequence] else {
            return false
        }
        return s.gap && !fillable(msn, rung: cur)
    }

    /// The GAP run at or right after playhead point `p` that no allowed rung can fill (RFC 8216bis §4.4.4.7: the client plays through it), or nil.
    public func gapToCross(at p: StreamPoint) -> GapCrossing? {
        guard let cur = loadedRung ?? (ladder.single ? 0 : nil), let m = media[cur] else { return nil }
        func unfillableGap(_ msn: Int) -> Segment? {
            guard isUnfillableGap(msn) else { return nil }
            return m.segments[safe: msn - m.mediaSequence]
        }
        guard let here = segment(p.msn) else { return nil }
        let inside = unfillableGap(p.msn) != nil
        var msn = inside ? p.msn : p.msn + 1
        var first: Int?
        var duration = 0.0
        while let s = unfillableGap(msn) {
            first = first ?? msn
            duration += s.duration
            msn += 1
        }
        guard let f = first, m.segments[safe: msn - m.mediaSequence] != nil else { return nil }
        return GapCrossing(first: f, after: msn, duration: duration, startsIn: inside ? 0 : max(0, here.duration - p.offset))
    }

    /// Segment `msn` as a playlist that holds it lists it: the playlist of the rung that served it, then the rung loaded, then
    /// any rung's. After a switch decided at a boundary the rung loaded is already the new one while the player still plays the
    /// old rung's segments, and the new rung's window, read later, may have moved past the segment under the playhead.
    public func segment(_ msn: Int) -> Segment? {
        var order: [Int] = []
        if let r = segmentRung[msn] { order.append(r) }
        if let r = loadedRung { order.append(r) }
        for m in [order.compactMap { media[$0] }, Array(media.values)].joined() {
            if let s = m.segments[safe: msn - m.mediaSequence] { return s }
        }
        return nil
    }

    /// Where the player is, relative to the segments it was given: the clock counts the last frame into the next segment when
    /// the window (read by hlstui, not the player) already lists it, but the player never had it — it cannot be inside a segment
    /// it never fetched, so the point is taken in the last segment it fetched.
    public func withinFetched(_ p: StreamPoint) -> StreamPoint {
        // Past its end by a frame or two at most: the player stops where its media ends.
        guard clock.firstPTS[p.msn] == nil, clock.firstPTS[p.msn - 1] != nil, p.offset < 0.5, let prev = segment(p.msn - 1) else {
            return p
        }
        return StreamPoint(msn: p.msn - 1, offset: prev.duration + p.offset)
    }

    /// The segment after playhead point `p` when it starts a discontinuity in an fMP4 stream (FFmpeg 5.1 stalls on fMP4 timestamp
    /// resets, measured: the session reloads there instead), else nil.
    public func fmp4DiscontinuityAfter(_ p: StreamPoint) -> Int? {
        guard let m = loadedRung.flatMap({ media[$0] }) ?? playingMedia, !SwitchPlanner.isTS(m),
            let next = segment(p.msn + 1), next.discontinuity
        else { return nil }
        return p.msn + 1
    }

    /// What the switch watcher needs at raw media time `t`: the playhead among the segments the player was given, the duration of
    /// the segment it is in, and the GAP run to cross, if any; pure.
    public func watchPoint(at t: Double) -> (point: StreamPoint, segmentDuration: Double?, gap: GapCrossing?)? {
        guard let p = locate(t).map(withinFetched) else { return nil }
        return (p, segment(p.msn)?.duration, gapToCross(at: p))
    }

    /// The raw media time (`time-pos` scale) at which segment `msn` starts: its measured first PTS, else counted from a measured one.
    public func rawStart(of msn: Int) -> Double? {
        if let pts = clock.firstPTS[msn] { return pts }
        guard let m = playingMedia else { return nil }
        let known = clock.firstPTS.filter { $0.key < msn && $0.key >= m.mediaSequence }.max { $0.key < $1.key }
        guard let (k, pts) = known else { return nil }
        var t = pts
        for n in k..<msn {
            guard let s = m.segments[safe: n - m.mediaSequence] else { return nil }
            t += s.duration
        }
        return t
    }

    /// Where a live player that stopped (its origin failed) resumes in `fresh`, the rung's playlist once the origin answers
    /// again: the segment holding the playhead's moment (PDT), else the one after the playhead's segment, else the live edge
    /// (nil) when that moment has left the window; pure.
    public func resumePoint(in fresh: MediaPlaylist) -> (msn: Int?, how: String) {
        if let here = playheadPDT {
            if let s = fresh.segments.first(where: { s in
                guard let a = s.effectiveProgramDateTime else { return false }
                let d = here.seconds(since: a)
                return d >= 0 && d < s.duration
            }) {
                return (s.mediaSequence, "at the playhead's moment (msn \(s.mediaSequence))")
            }
            return (nil, "at the live edge: the playhead's moment left the window")
        }
        if let p = playhead, fresh.segments.contains(where: { $0.mediaSequence == p.msn + 1 }) {
            return (p.msn + 1, "after the playhead's segment (msn \(p.msn + 1))")
        }
        return (nil, "at the live edge: the playhead's segment left the window")
    }
}
