import CMCD
import HLS
import LoaderEvents

/// The player's samples as the Session takes them in: where the playhead is, stalls, skips and the selection a person asks for.
extension SessionState {
    mutating func sampled(_ reading: PlayerSample, at t: Double) -> [SessionFact] {
        var s = reading
        // Between loadfile and the restart the old position stands (time-pos reads 0 then). While mpv restarts its playback
        // the picture stands where it was and time-pos may read anything (docs/PLATFORM.md); so while hlstui holds it paused
        // for a seek to land in a freshly spliced rung: time-pos may read the key frame before the target for a moment, a
        // frame never shown (measured under load: 1.8 s back, then the target 50 ms later).
        // The player still holds an interstitial's asset (a post-roll played, the primary over): its time is not the primary's.
        if s.loading || (started && (s.restarting || s.held)) || interstitials.assetInPlayer {
            s.timePos = sample.timePos
            s.audioPts = sample.audioPts
        }
        sample = s
        // A sample of the old player still in flight during a load says nothing of where the new one goes on from, nor does one
        // read while mpv restarts at a timestamp reset (it reads moments far from the picture, docs/PLATFORM.md).
        if !playerLoading, !s.restarting, let time = s.timePos, let m = media[loadedRung ?? 0] ?? media.values.first {
            clock.follow(time, in: m)
        }
        if started { recordHistory(at: t) }
        var facts: [SessionFact] = []
        if let skip = checkSkip(s, at: t) { facts.append(.skipped(skip)) }
        facts += noticeCaptions(s.captions, at: t)
        if started, !playerLoading, !s.restarting, let p = playhead {
            for f in breaks.step(at: p, pdt: playheadPDT, t: t) {
                switch f {
                case .entered(let b):
                    note(.info, "entered \(Self.cueName(b))" + (b.planned.map { " (planned \(fixed($0, 1)) s)" } ?? ""), t)
                case .left(let b, let seconds): note(.info, "left \(Self.cueName(b)) after \(fixed(seconds, 1)) s", t)
                }
                facts.append(.cue(f))
            }
        }
        let recent = recentFailure(at: t)
        let watched = stallWatch.observe(s, started: started, ended: ended, at: t, cause: recent)
        for line in watched.said { note(line.level, line.text, t) }
        facts += watched.facts
        // The end of the stream, not the end of a playlist the Loader stopped before a GAP run.
        if s.eof && !ended, let m = media[playingRung ?? 0], m.endList,
            playhead.map({ p in !m.segments.contains { $0.mediaSequence > p.msn && !$0.gap } }) ?? true
        {
            // A post-roll plays first (`reduce` begins it).
            if postRoll != nil {
                interstitials.post(true)
            } else {
                playback.reachedEnd()
                facts.append(.ended)
            }
        }
        return facts
    }

    /// Seconds of content between two playhead points (negative when `b` is behind `a`); a GAP no rung fills counts as
    /// nothing (crossing it is reported as a GAP, not a skip). Nil when a segment's duration between them is unknown.
    public func distance(from a: StreamPoint, to b: StreamPoint) -> Double? {
        if b.msn == a.msn { return b.offset - a.offset }
        if b.msn < a.msn { return distance(from: b, to: a).map { -$0 } }
        func duration(_ msn: Int) -> Double? {
            if isUnfillableGap(msn) { return 0 }
            if let d = seen[msn]?.duration { return d }
            return media.values.lazy.compactMap { m in
                m.segments[safe: msn - m.mediaSequence].flatMap { $0.mediaSequence == msn ? $0.duration : nil }
            }.first
        }
        guard let first = duration(a.msn) else { return nil }
        var total = max(0, first - a.offset) + b.offset
        for msn in (a.msn + 1)..<b.msn {
            guard let d = duration(msn) else { return nil }
            total += d
        }
        return total
    }

    /// The playhead moved forward by more than playing covers since the last sample: a skip, with the likeliest cause
    /// (`SkipWatch`).
    mutating func checkSkip(_ s: PlayerSample, at t: Double) -> Skip? {
        guard started, let wall = s.wall else { return nil }
        let advancing = !s.paused && !s.pausedForCache && !s.eof && !s.held && !s.loading
        // Between loadfile and the restart the position is the old one, while hlstui holds the player to move it inside a
        // freshly loaded rung it stands where that rung starts, and while mpv restarts its playback it may be neither.
        if s.loading || s.held || s.restarting {
            skipWatch.hold(wall: wall)
            return nil
        }
        // A sample whose position is not read or not located yet (mpv has none for a moment as it restarts at a timestamp
        // jump; the segment it jumped to is not measured yet).
        guard let time = s.timePos, let point = locate(time) else {
            skipWatch.keepLast(wall: wall, advancing: advancing)
            return nil
        }
        let state = self
        guard
            let skip = skipWatch.observe(
                wall: wall, point: point, time: time, advancing: advancing, speed: s.speed, at: t, audio: s.audioPts,
                distance: { state.distance(from: $0, to: $1) }, cause: { state.skipCause(at: t, over: $0) })
        else { return nil }
        note(
            .warn,
            "skipped \(fixed(skip.seconds, 2)) s of content: msn \(skip.from.msn) +\(fixed(skip.from.offset, 2)) s → msn \(point.msn) +\(fixed(point.offset, 2)) s (\(skip.cause))",
            t)
        return skip
    }

    /// What most likely made the playhead jump: a switch or a reload just before, a failed request; nil: the player alone.
    func skipCause(at t: Double, over msns: ClosedRange<Int>) -> String? {
        // A segment in the jump that failed: the player gave up on it and went on.
        if let r = requests.last(where: { r in
            r.kind == .segment && r.msn.map(msns.contains) == true && (r.status >= 400 || r.failure != nil) && r.outcome != .gap
        }) {
            return "msn \(r.msn ?? 0) failed (\(r.failure ?? "HTTP \(r.status)")) and the player went past it"
        }
        // A timestamp reset the player met: mpv restarts its playback there and drops what it held before it.
        if msns.count > 1,
            // A player behind the live window meets it after its segment left every playlist: the segments seen keep it.
            let d = ((msns.lowerBound + 1)...msns.upperBound).first(where: { msn in
                seen[msn]?.discontinuity == true
                    || media.values.contains { m in
                        m.segments[safe: msn - m.mediaSequence].map { $0.mediaSequence == msn && $0.discontinuity } ?? false
                    }
            })
        {
            return "a discontinuity at msn \(d): the player reset its playback at the timestamp jump and dropped what it held before it"
        }
        if let w = switches.last, t - w.t <= 3 {
            let name = ladder.rungs[safe: w.to]?.name ?? "rung \(w.to)"
            return "switch to \(name) by \(w.mechanism.rawValue)"
        }
        if let g = lastGiven, t - g <= 3 { return "reload" + (givenStart.map { " at msn \($0)" } ?? "") }
        if let f = lastFailure, t - f.t < 5 { return "origin: " + f.text }
        return nil
    }

    /// Applies a selection action (pin, automatic, caps) and returns the switch reason it implies, or nil for other actions.
    mutating func select(_ action: Action) -> SwitchReason? { selection.select(action, in: ladder) }

}

extension SessionState {
    /// A break or another date range as the log names it: "break X", "date range X (CLASS)".
    static func cueName(_ b: CueBreak) -> String {
        b.isBreak ? "break \(b.key)" : "date range \(b.key)" + (b.classID.map { " (\($0))" } ?? "")
    }
}
