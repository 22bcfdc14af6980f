import HLS

/// A reload+seek in progress: the player was given a rung from a segment and holds paused until its fresh cache holds the
/// target, then seeks there and plays — an immediate switch without a splice (VOD fMP4), a sync move to a moment, a
/// low-latency start behind the edge (docs/PLATFORM.md; DECISIONS.md, rung switching, sync, LL-HLS). The owner looks every
/// 5 ms (`SessionTimer.reloadSeek`) until the Session says it is over.
public struct ReloadSeek: Sendable, Equatable {
    /// Where the playhead goes.
    public enum Target: Sendable, Equatable {
        /// A raw media time: a switch, the same moment in the new rung.
        case raw(Double)
        /// A wall-clock moment in segment `msn`, read at session time `readAt`: it runs on with the clock until the cache holds
        /// it, as the other panes play on while this one reloads (DECISIONS.md, sync).
        case moment(DateTime, msn: Int, readAt: Double)
        /// `offset` seconds into segment `msn` as read at session time `readAt`, running on with the clock: a live start behind
        /// the edge (DECISIONS.md, LL-HLS), where the segment in progress may have no PDT yet.
        case position(msn: Int, offset: Double, readAt: Double)
    }
    public var to: Target
    /// The rung reloaded.
    public var rung: Int
    /// The user had paused: the player stays paused once the seek is done.
    public var wasPaused: Bool
    /// The segment the Loader keeps from the player until the seek is done (`LoaderServer.holdSegments`).
    public var heldFrom: Int?
    /// The raw time the seek went to, once it was issued.
    public var soughtTo: Double?
    /// The read-ahead to go back to when the reload read further for its target.
    public var readaheadBefore: Double?
    /// Session time after which the pane plays on from wherever the player is: a seek that never comes does not stall it.
    public var deadline: Double

    /// How long a reload+seek may take before the pane plays on.
    public static let limit = 5.0

    /// A low-latency start behind the edge.
    public var isEdgeStart: Bool { if case .position = to { return true } else { return false } }

    public init(to: Target, rung: Int, wasPaused: Bool, heldFrom: Int? = nil, readaheadBefore: Double? = nil, deadline: Double) {
        self.to = to
        self.rung = rung
        self.wasPaused = wasPaused
        self.heldFrom = heldFrom
        self.readaheadBefore = readaheadBefore
        self.deadline = deadline
    }
}

/// What the player was read to say for one look at a reload+seek: its seekable cache, whether a seek is running, `time-pos`.
public struct SeekLook: Sendable, Equatable {
    public var seekable: [TimeRange]
    /// Where the cached packets end (raw seconds).
    public var cacheEnd: Double?
    /// nil: unknown.
    public var seeking: Bool?
    public var time: Double?
    public init(seekable: [TimeRange] = [], cacheEnd: Double? = nil, seeking: Bool? = nil, time: Double? = nil) {
        self.seekable = seekable
        self.cacheEnd = cacheEnd
        self.seeking = seeking
        self.time = time
    }

    /// True when a seekable range holds `t` and at least `margin` seconds after it.
    public func holds(_ t: Double, margin: Double = 0) -> Bool {
        seekable.contains { $0.start <= t && t + margin <= $0.end }
    }

    /// How far before `t` an exact seek must aim the demuxer to stay in the cache, when `t` lies in its last GOP: mpv marks a
    /// GOP seekable only once the next key frame is read, so while the read waits (the next segment held back) the cached
    /// packets reach `t` but the seekable range ends before it, up to `within` seconds (docs/PLATFORM.md). Nil when no range
    /// ends that close before `t` or the packets do not reach `margin` past it.
    public func aimBack(for t: Double, margin: Double = 0.05, within: Double) -> Double? {
        guard let end = cacheEnd, t + margin <= end,
            let r = seekable.first(where: { $0.start <= t && $0.end < t && t - $0.end <= within })
        else { return nil }
        return t - r.end + 0.1
    }
}

/// A look the Session asks for later (`PaneEffect.after`); the owner sends it back as `SessionInput.timer` with the player read.
public enum SessionTimer: Sendable, Equatable {
    /// The reload+seek in progress.
    case reloadSeek(ReloadSeek)
    /// Splice+seek: has the demuxer gone back to segment `msn`'s predecessor from `rung` yet (attempt `attempt`)?
    case reread(rung: Int, msn: Int, attempt: Int)
    /// Splice+seek: the player holds paused until its seek has landed on `to` (or session time `deadline` passes).
    case rereadSettle(to: Double, wasPaused: Bool, deadline: Double)
    /// Splice+seek: the demuxer has re-read its segment; seeks go to the cache again.
    case seekableCacheBack
    /// Sync's hold is over (`SessionState.holdSteps`).
    case endHold
    /// An interstitial's asset `index` was given to the player this long ago: has it shown a frame?
    case assetStart(index: Int)
    /// Live: the primary's playlist, read to resume after an interstitial, has not come back: it resumes without it.
    case resumeUnread
}

extension SessionState {
    /// A look asked for earlier, with the player read just now.
    mutating func timer(_ timer: SessionTimer, look: SeekLook, at t: Double) -> PanePlan {
        switch timer {
        case .reloadSeek(let step): return reloadSeekStep(step, look: look, at: t)
        case .reread(let rung, let msn, let attempt): return rereadStep(rung: rung, msn: msn, attempt: attempt, look: look, at: t)
        case .rereadSettle(let to, let wasPaused, let deadline):
            var plan = PanePlan()
            // The player plays on once it is no longer seeking and shows the target (or after the deadline).
            let landed = look.seeking == false && (look.time.map { abs($0 - to) < 0.1 } ?? false)
            plan.effects = [landed || t >= deadline ? .letGo(play: !wasPaused) : .after(ms: 5, timer)]
            return plan
        case .seekableCacheBack:
            var plan = PanePlan()
            plan.effects = [.seekableCache(nil)]
            return plan
        case .endHold:
            var plan = PanePlan()
            plan.effects = endHold()
            return plan
        // Taken while an interstitial plays (`duringInterstitial`); one that comes after it is over says nothing.
        case .assetStart, .resumeUnread: return PanePlan()
        }
    }

    /// One check of a splice+seek's re-read (`PaneEffect.reread`): done when the demuxer asked for the segment before the
    /// playhead's again, now from the new rung; else the aimed seek again, at most four times. The first seek holds the player
    /// paused until it has landed: a seek while playing shows the key frame before its target for a moment, then jumps on to it
    /// (as a reload+seek waits out). One seek, never repeated forward: it is repeated only while the demuxer has not acted on
    /// it (the option reaches the demuxer thread on its next cycle; until then the seek is a harmless cache seek to the same
    /// spot).
    mutating func rereadStep(rung: Int, msn: Int, attempt: Int, look: SeekLook, at t: Double) -> PanePlan {
        var plan = PanePlan()
        let demuxed = inFlight[msn - 1]?.rung == rung || segmentRung[msn - 1] == rung
        let time = playerLoading ? nil : look.time
        let settle = attempt == 0 && !demuxed ? time : nil
        if settle != nil { plan.effects.append(.holdStill(byHLSTUI: !userPaused)) }
        var sought = false
        if !demuxed, let now = freshPoint(time), let back = demuxerSeekOffset(into: now) {
            plan.effects.append(.seekDemuxer(by: 0, aimBack: back))
            sought = true
        }
        if let to = settle {
            plan.effects.append(
                sought ? .after(ms: 5, .rereadSettle(to: to, wasPaused: userPaused, deadline: t + 2)) : .letGo(play: !userPaused))
        }
        plan.effects.append(
            sought && attempt < 3
                ? .after(ms: 30, .reread(rung: rung, msn: msn, attempt: attempt + 1)) : .after(ms: 300, .seekableCacheBack))
        return plan
    }

    /// One look at a reload+seek at session time `t`: seek once the fresh cache holds the target, done once the player shows
    /// it (or at the deadline), and what ends it — the Loader's held segments released, the read-ahead restored, the player let
    /// go. A sync moment that ran past the held discontinuity reloads there; a low-latency start that never landed starts
    /// again at the edge, once.
    mutating func reloadSeekStep(_ current: ReloadSeek, look: SeekLook, at t: Double) -> PanePlan {
        var step = current
        var plan = PanePlan()
        var done = t >= step.deadline
        // The moment ran on past the discontinuity whose segments are held back (a reload slower than `SyncWindow.breakMargin`,
        // as on a loaded machine): no seek can reach it in this cache, whose reset is still held back. The pane reloads again at
        // the discontinuity, where no reset lies before the moment, and seeks to it there — not played on from the first
        // segment, a whole reload's span away from every other pane.
        if !done, step.soughtTo == nil, case .moment(let date, _, let readAt) = step.to, let h = step.heldFrom,
            let b = programDateTime(StreamPoint(msn: h, offset: 0)), date.adding(seconds: t - readAt).seconds(since: b) >= 0
        {
            plan.effects.append(.releaseSegments)
            if let usual = step.readaheadBefore { plan.effects.append(.readahead(usual)) }
            plan.said.append((.info, "sync: the moment ran on past the discontinuity at msn \(h) during the reload; reloading there"))
            plan.effects += planReload(rung: step.rung, msn: h, to: .moment(date, msn: h, readAt: readAt), at: t)
            return plan
        }
        // Not before the new file has started: until then the cache state read may still be the old file's, and a seek into it
        // is lost when the new one starts at its segment (measured under load: a switch landed 1.9 s early).
        let to: Double? =
            if playerLoading { nil } else {
                switch step.to {
                case .raw(let raw): raw
                // Where the other panes are now: a reload that took longer (a loaded machine, a slow origin) still lands the
                // same distance ahead of them.
                case .moment(let date, let msn, let readAt): rawTime(of: date.adding(seconds: t - readAt), from: msn)
                case .position(let msn, let offset, let readAt): rawTime(at: StreamPoint(msn: msn, offset: offset + t - readAt))
                }
            }
        if !done, step.soughtTo == nil {
            if let to, look.holds(to, margin: 0.05) {
                plan.effects.append(.seekAbsolute(to: to, aimBack: nil))
                step.soughtTo = to
            } else if let to, step.heldFrom != nil || step.isEdgeStart, let back = look.aimBack(for: to, within: 12) {
                // The segments after the target's are held back, or not published yet (a low-latency start, PART-HOLD-BACK
                // behind the edge, lies in the newest GOP whenever the hold-back is shorter than a GOP), so its GOP is not marked
                // seekable yet: the demuxer is aimed into the range before it and the exact seek decodes on to the target
                // (docs/PLATFORM.md).
                plan.effects.append(.seekAbsolute(to: to, aimBack: back))
                step.soughtTo = to
            }
        } else if !done, let to = step.soughtTo, look.seeking == false, let now = look.time, abs(now - to) < 0.1 {
            // Not while the seek is still running: time-pos reads its target at once, and a player let go then shows the
            // keyframe before the target for a moment, then jumps to it (measured under load: 2.07 s, then 3.47 s 37 ms later).
            done = true
        }
        guard done else {
            plan.effects.append(.after(ms: 5, .reloadSeek(step)))
            return plan
        }
        if step.heldFrom != nil { plan.effects.append(.releaseSegments) }
        if let usual = step.readaheadBefore { plan.effects.append(.readahead(usual)) }
        // A low-latency start whose seek never landed starts again at the edge once (where the edge is now), rather than play
        // a whole deadline further back than PART-HOLD-BACK.
        if case .position = step.to {
            if step.soughtTo == nil, edgeStartMisses == 0 {
                edgeStartMisses += 1
                plan.said.append(
                    (.warn, "low latency: the player's cache never held the start behind the edge; starting again at the edge"))
                plan.effects.append(.refresh(rung: step.rung, purpose: .edgeStart))
                return plan
            }
            if step.soughtTo != nil { edgeStartMisses = 0 }
        }
        plan.effects.append(.letGo(play: !step.wasPaused))
        if step.soughtTo == nil {
            let what =
                switch step.to {
                case .moment: "sync: the reloaded cache never held the moment"
                case .raw: "reload+seek: the new rung's cache never held the playhead"
                case .position: "low latency: the player's cache never held the start behind the edge"
                }
            plan.said.append((.warn, "\(what); playing from its segment start"))
        }
        return plan
    }
}
