import HLS

/// Where two panes stand against each other on the wall clock (EXT-X-PROGRAM-DATE-TIME, RFC 8216bis §4.4.4.6).
public enum SyncState: Sendable, Equatable {
    /// Waiting for both playheads to have a PDT.
    case waiting
    /// Holding the pane ahead (paused) until the other reaches its moment.
    case aligning
    /// Steering speed; locked once within a frame for a second.
    case steering
    case locked
    /// Not synchronized, and why (a stream without PDT, the user switched it off).
    case off(String)
    /// These panes (0-based) stalled waiting for data; the others are paused until they play again.
    case waitingFor([Int])

    public var label: String {
        switch self {
        case .waiting: return "waiting for PDT"
        case .aligning: return "aligning"
        case .steering: return "locking"
        case .locked: return "locked"
        case .off(let why): return "off: \(why)"
        case .waitingFor(let panes):
            let names = panes.map { "\($0 + 1)" }
            return "waiting for pane\(names.count > 1 ? "s" : "") \(names.joined(separator: ", ")) (rebuffering)"
        }
    }
}

/// The PDT range a pane's playlist lists now (RFC 8216bis §4.4.4.6): where a reload can start, and how long the pane can be
/// held before its playhead leaves a live window.
public struct SyncWindow: Sendable, Equatable {
    /// The PDT of the first segment listed.
    public var start: DateTime
    /// The PDT where the last segment listed ends (the live edge).
    public var end: DateTime
    public var live: Bool
    /// Seconds (EXT-X-TARGETDURATION).
    public var targetDuration: Double
    /// The PDT where the pane's buffer ends.
    public var bufferedUntil: DateTime?
    /// LL-HLS: the pane is given parts as they are published and starts PART-HOLD-BACK behind the last one (RFC 8216bis
    /// §4.4.3.8, `SessionState.lowLatencyStart`): the margin it needs before the edge (`edgeMargin`).
    public var holdBack: Double?
    /// Where the stream's live edge is, which may lie past `end`: media listed after it in segments without a PDT (after a
    /// discontinuity whose segment has no EXT-X-PROGRAM-DATE-TIME yet, as a low-latency segment in progress before its first
    /// part says one, RFC 8216bis §4.4.4.6), taken as following on; or another rung's playlist read since (a switch's new rung
    /// is read once, then again only when the player reaches it). Not a moment a pane can be moved to: how near the wall
    /// clock the stream reaches (`LatencySync`).
    public var edge: DateTime
    /// EXT-X-PART-INF's PART-TARGET of a playlist that offers parts (RFC 8216bis §4.4.3.7).
    public var partTarget: Double?
    /// The PDT of each segment listed after an EXT-X-DISCONTINUITY (RFC 8216bis §4.4.4.3), in order: a move aimed within
    /// `breakMargin` before one reloads there without a seek (`SessionState.planRealign`).
    public var breaks: [DateTime]
    public init(
        start: DateTime, end: DateTime, live: Bool, targetDuration: Double, bufferedUntil: DateTime? = nil, breaks: [DateTime] = []
    ) {
        self.start = start
        self.end = end
        self.live = live
        self.targetDuration = targetDuration
        self.bufferedUntil = bufferedUntil
        self.breaks = breaks
        edge = end
    }

    /// How near before a discontinuity (seconds) a move's target is not sought to: it runs on with the wall clock while the
    /// reload lands and could cross the discontinuity, where the segment it was sought in ends. Such a reload starts at the
    /// discontinuity instead.
    public static let breakMargin = 1.0

    /// The first discontinuity after `moment`.
    func breakAfter(_ moment: DateTime) -> DateTime? { breaks.first { $0.seconds(since: moment) > 0 } }

    /// Where a move can land exactly, aimed at `moment`: the moment itself (a seek inside the reloaded cache), or — within
    /// `breakMargin` before a discontinuity, where a reload starts at the discontinuity — that margin before it.
    public func exactLanding(near moment: DateTime) -> DateTime {
        guard let b = breakAfter(moment), b.seconds(since: moment) < Self.breakMargin else { return moment }
        return b.adding(seconds: -Self.breakMargin)
    }

    /// Where a move aimed at `moment` lands (`SessionState.planRealign`): the moment itself, or — within `breakMargin` before a
    /// discontinuity — the discontinuity's first frame.
    public func landing(aimedAt moment: DateTime) -> DateTime {
        guard let b = breakAfter(moment), b.seconds(since: moment) < Self.breakMargin else { return moment }
        return b
    }

    /// Seconds a reload must start before the live edge to play on without waiting for the origin: two target durations
    /// (RFC 8216bis §6.3.3 asks three of a player's first start; one stalled FFmpeg 5.1 here, measured on the origin's cameras);
    /// for a pane given parts, PART-HOLD-BACK behind the last part (§4.4.3.8), where its low-latency start lands.
    public var edgeMargin: Double { live ? holdBack ?? 2 * targetDuration : 0 }

    /// How far the end moves at once as the playlist is reloaded: a part for a pane given parts, else a segment.
    public var publishStep: Double { holdBack != nil ? partTarget ?? targetDuration : targetDuration }

    /// A reload can start at `moment` and play on from it: a segment holds it, `edgeMargin` before the edge.
    public func canStart(at moment: DateTime) -> Bool {
        moment.seconds(since: start) >= 0 && end.seconds(since: moment) >= edgeMargin
    }

    /// A playhead at `moment` can pause and play on, however long: a held player reads on (its read-ahead grows by the hold,
    /// DECISIONS.md, sync), so each segment is read while the sliding window lists it; what it needs is the first
    /// segment after its buffer (`bufferedUntil`, else the playhead) still listed now, with a segment to spare.
    public func canHold(at moment: DateTime, bufferedUntil: DateTime? = nil) -> Bool {
        guard live else { return true }
        return (bufferedUntil ?? moment).seconds(since: start) >= targetDuration
    }

    /// "10:00:00.000–10:00:12.000", the window in one line.
    public var text: String { "\(Self.clock(start))–\(Self.clock(end))" }

    static func clock(_ d: DateTime) -> String { String(DateTime(microseconds: d.milliseconds * 1000).iso8601.dropFirst(11).prefix(12)) }
}

/// What the controller did to bring the panes together, as the strip and the `sync` events say it.
public enum SyncAction: Sendable, Equatable, CustomStringConvertible {
    /// The pane behind reloaded at the other's moment (less latency: preferred).
    case forward(pane: Int)
    /// The pane ahead reloaded at the other's moment.
    case back(pane: Int)
    /// The pane ahead paused for the offset.
    case hold(pane: Int, seconds: Double)
    /// Speed steering only.
    case steer

    public var description: String {
        switch self {
        case .forward(let p): return "pane \(p + 1) forward"
        case .back(let p): return "pane \(p + 1) back"
        case .hold(let p, let s): return "pane \(p + 1) held \(fixed(s, 1)) s"
        case .steer: return "steering"
        }
    }
}

/// What the controller wants done now.
public struct SyncCommand: Sendable, Equatable {
    /// Playback speed per pane.
    public var speeds: [Double]
    /// Panes to hold (paused) for the given seconds, so the other catches up.
    public var hold: (pane: Int, seconds: Double)?
    /// A pane too far ahead to wait for: reload it at the segment holding this moment.
    public var realign: (pane: Int, to: DateTime)?

    public init(speeds: [Double], hold: (pane: Int, seconds: Double)? = nil, realign: (pane: Int, to: DateTime)? = nil) {
        self.speeds = speeds
        self.hold = hold
        self.realign = realign
    }

    public static func == (a: SyncCommand, b: SyncCommand) -> Bool {
        a.speeds == b.speeds && a.hold?.pane == b.hold?.pane && a.hold?.seconds == b.hold?.seconds
            && a.realign?.pane == b.realign?.pane && a.realign?.to == b.realign?.to
    }
}

/// Keeps pane 1 on pane 0's wall clock: a proportional controller on speed within a few percent (as Media3 and Shaka steer
/// live latency), a hold of the pane ahead for large errors; pure.
public struct SyncController: Sendable {
    /// Speed change per second of offset (1.5: the error decays with a time constant of two thirds of a second, at most
    /// ±`maxCorrection`). Not more: mpv's `audio-pts` counts the audio already buffered at the new speed, so a speed change
    /// first moves the reading the other way (by about the output's buffer times the change, 0.14–0.35 s × the change
    /// measured here) before it moves as the speed does; at a gain of 3 that made the panes ring (±20 ms, measured), at 2
    /// they rang for a second after each step (docs/SYNC.md, measuring).
    public var gain = 1.5
    public var maxCorrection = 0.05
    /// Beyond this offset (seconds) steering would take too long: the pane ahead is held instead.
    public var holdThreshold = 1.0
    /// Until the panes lock (at the start, and again after any hold or reload brought them together), offsets beyond this are
    /// held away at once: steering 0.2 s at 5 % takes 4 s, and what is left after a reload lands is its landing error, not a
    /// transient (a plain reload starts at a segment's first frame, up to a segment from its moment). Once locked only
    /// `holdThreshold` is, so a transient never pauses a pane.
    public var startHoldThreshold = 0.05
    /// Locked since the last hold or reload.
    public private(set) var steady = false
    /// Beyond this offset (seconds) holding would take too long: a pane reloads at the other's moment (or, behind a pane with
    /// longer segments, beyond its target duration and a half).
    public var realignThreshold = 3.0
    /// The longest hold when no reload can bring the panes together.
    public var maxHold = 120.0
    /// How far past the other's moment a move aims (seconds), so it lands ahead of the other and is held the rest rather than
    /// behind it and moved again. A move's target runs on with the wall clock until the reload's fresh cache holds it, as the
    /// other pane plays on meanwhile (`SessionState.reloadSeekStep`), so this covers only the seek inside that cache and the
    /// player's restart (DECISIONS.md, sync).
    public var landingMargin = 0.5
    /// A move back is made only when it shortens the hold by at least this (seconds): a reload costs about that much.
    public var minimumSaving = 1.0
    /// A move forward is preferred (less latency) while the hold it leaves is at most this (seconds).
    public var shortHold = 1.0
    /// Beside more panes, a pane this close behind the reference (seconds) catches up by speed alone.
    public var steerLimit = 0.25
    /// What was done last to bring the panes together.
    public private(set) var action: SyncAction?
    /// The two panes' numbers on screen (0-based): messages and actions name them.
    public var panes = [0, 1]
    /// Which of the two the controller may hold or reload (beside more panes, the reference clock is never moved).
    public var movable = [true, true]
    /// Within this offset (seconds) for `lockAfter` seconds counts as locked, when either pane's reading moves a frame at a
    /// time (`SyncReading.continuous`); and once locked, the lock holds within it: a frame of a 30 fps feed.
    public var lockTolerance = 0.034
    /// Within this offset for `lockAfter` seconds counts as locked when both readings advance between frames (the audio clock):
    /// the lock is then declared only once the panes agree to the millisecond (docs/SYNC.md, measuring).
    public var preciseTolerance = 0.005
    public var lockAfter = 0.5
    public private(set) var state: SyncState = .waiting
    public private(set) var offset: Double?
    public private(set) var speeds: [Double] = [1, 1]
    var withinSince: Double?
    var holdUntil: Double?
    /// Consecutive readings that jumped away from a steady offset (a playhead read across a timestamp reset, say).
    var jumps = 0
    var missingSince: Double?
    public var enabled = true {
        didSet { gaveUp = nil }
    }
    /// Why aligning cannot work (the streams share no moment), once tried.
    public private(set) var gaveUp: String?
    public init() {}

    /// When to try again after a move that found no segment at its moment (nil: not until switched off and on).
    var retryAt: Double?

    /// Stops trying: the pane ahead could not reach the other's moment. `retryAt`: a session time to try again — a reload that
    /// found no segment at a moment its window spans (segments there without PDT) may find one once the window moves on.
    public mutating func giveUp(_ why: String, retryAt: Double? = nil) {
        gaveUp = why
        self.retryAt = retryAt
        state = .off(why)
        _ = release()
    }

    /// Seconds pane 0's playhead is ahead of pane 1's on the wall clock.
    public static func offset(_ a: DateTime?, _ b: DateTime?) -> Double? {
        guard let a, let b else { return nil }
        return a.seconds(since: b)
    }

    /// One control step at session time `t`: `pdts` of the two playheads, `playing` whether each advances (not paused, not
    /// waiting for data), `hasPDT` whether each stream carries PDT at all.
    /// `windows`: the PDT range each pane's playlist lists (nil: not known, taken as no limit).
    /// `continuous`: whether each reading advances between video frames (`SyncReading.continuous`).
    public mutating func step(
        t: Double, pdts: [DateTime?], playing: [Bool], hasPDT: [Bool], windows: [SyncWindow?] = [nil, nil],
        continuous: [Bool] = [false, false]
    ) -> SyncCommand {
        guard enabled else {
            state = .off("switched off")
            return release()
        }
        if let r = retryAt, t >= r {
            gaveUp = nil
            retryAt = nil
        }
        if let why = gaveUp {
            state = .off(why)
            return release()
        }
        if let i = hasPDT.firstIndex(of: false) {
            state = .off("pane \(panes[i] + 1) has no EXT-X-PROGRAM-DATE-TIME")
            return release()
        }
        if let until = holdUntil, t < until { return SyncCommand(speeds: speeds, hold: nil) }
        holdUntil = nil
        guard let d = SyncController.offset(pdts[0], pdts[1]), playing.allSatisfy({ $0 }) else {
            // A moment without a reading (a reload, a segment not located yet) keeps the state; a lasting one is "waiting".
            missingSince = missingSince ?? t
            if t - missingSince! > 0.5 && state != .aligning { state = .waiting }
            return SyncCommand(speeds: speeds, hold: nil)
        }
        missingSince = nil
        // While steady, a reading far from the last is a transient until it lasts 0.6 s (at a timestamp reset mpv holds the
        // video and plays audio that started earlier for ~0.3 s, measured on the origin's cameras; a real jump lasts). Also
        // after a spell without readings: on a loaded machine the readings at a reset can be missing long enough to count as
        // "waiting", and the first ones back are the same transient.
        if let last = offset, steady, state == .steering || state == .locked || state == .waiting, abs(d - last) > 0.1, jumps < 12 {
            jumps += 1
            return SyncCommand(speeds: speeds, hold: nil)
        }
        jumps = 0
        offset = d
        if abs(d) > (steady ? holdThreshold : startHoldThreshold), let a = pdts[d > 0 ? 0 : 1], let b = pdts[d > 0 ? 1 : 0] {
            return align(t: t, offset: d, ahead: d > 0 ? 0 : 1, at: [a, b], windows: windows)
        }
        // Pane 1 behind (d > 0) plays faster.
        if action == nil || state != .steering && state != .locked { action = .steer }
        let correction = min(maxCorrection, max(-maxCorrection, gain * d))
        speeds = [1, 1 + correction]
        // Locked: kept within a frame. Not yet: declared once within the tolerance the readings allow for `lockAfter`.
        let tolerance = state == .locked || !continuous.allSatisfy({ $0 }) ? lockTolerance : preciseTolerance
        if abs(d) <= tolerance {
            withinSince = withinSince ?? t
            if t - withinSince! >= lockAfter {
                state = .locked
                steady = true
            } else if state != .locked {
                state = .steering
            }
        } else {
            withinSince = nil
            state = .steering
        }
        return SyncCommand(speeds: speeds, hold: nil)
    }

    /// Brings the panes together when they are `offset` seconds apart (`ahead`: the pane ahead on the wall clock; `at`: the
    /// playheads' PDT, ahead first), by the first way that exists: hold the pane ahead when the offset is small; else bring
    /// the pane behind forward to the other's moment when that leaves only a short hold (less latency); else move the pane
    /// ahead back to the other's moment; else bring the pane behind forward as near it as its window lets it play on; else
    /// move the pane ahead back as far as its window lets it, the rest held next; else hold the pane ahead for the whole
    /// offset, when it can; else give up, with both windows in the line.
    mutating func align(t: Double, offset d: Double, ahead: Int, at pdts: [DateTime], windows: [SyncWindow?]) -> SyncCommand {
        let behind = 1 - ahead
        let gap = abs(d)
        let (aheadPDT, behindPDT) = (pdts[0], pdts[1])
        state = .aligning
        steady = false
        withinSince = nil
        speeds = [1, 1]
        let canHold =
            movable[ahead] && gap <= maxHold
            && (windows[ahead].map { $0.canHold(at: aheadPDT, bufferedUntil: $0.bufferedUntil) } ?? true)
        let holdLimit = max(realignThreshold, (windows[behind]?.targetDuration ?? 0) * 1.5)
        // When the window lists the other's moment: back to a landing margin past it (a short hold follows), or to the moment
        // itself when the window ends too soon for that.
        let aimedBack =
            movable[ahead] && (windows[ahead]?.canStart(at: behindPDT) ?? true)
            ? [behindPDT.adding(seconds: landingMargin), behindPDT].first { windows[ahead]?.canStart(at: $0) ?? true }
            : nil
        // Where a discontinuity follows the target's segment the reload does not seek and lands at the next segment's first
        // frame: a move back that would leave nearly the same hold is no move (made again, it would land there again).
        let backTarget = aimedBack.flatMap { b in
            gap - (windows[ahead]?.landing(aimedAt: b) ?? b).seconds(since: behindPDT) >= minimumSaving ? b : nil
        }
        // A reload and a hold of under a second lock sooner than a longer pause.
        let backIsQuicker = backTarget != nil && gap > realignThreshold
        if gap <= holdLimit && canHold && !backIsQuicker {
            // The pane ahead on the wall clock waits for the other.
            holdUntil = t + gap + 0.3
            action = .hold(pane: panes[ahead], seconds: gap)
            return SyncCommand(speeds: speeds, hold: (pane: ahead, seconds: gap))
        }
        if !movable[ahead] && gap <= steerLimit { return steer() }
        // Forward to a landing margin past the other's moment (the pane moved is held for the rest), or as near it as the
        // window lets the pane behind play on (`edgeMargin`).
        let target =
            windows[behind].map { w in min(aheadPDT.adding(seconds: landingMargin), w.end.adding(seconds: -w.edgeMargin)) } ?? aheadPDT
        let canForward = movable[behind] && target.seconds(since: behindPDT) >= 1 && (windows[behind]?.canStart(at: target) ?? true)
        func forward() -> SyncCommand {
            holdUntil = t + 0.5
            action = .forward(pane: panes[behind])
            return SyncCommand(speeds: speeds, realign: (pane: behind, to: target))
        }
        // One move and a hold of at most `realignThreshold`: forward first (less latency), unless moving the pane ahead back
        // leaves a shorter hold.
        let heldAfterForward = aheadPDT.seconds(since: target)
        if canForward && (heldAfterForward <= shortHold || heldAfterForward <= realignThreshold && backTarget == nil) { return forward() }
        if let backTarget {
            holdUntil = t + 0.5
            action = .back(pane: panes[ahead])
            return SyncCommand(speeds: speeds, realign: (pane: ahead, to: backTarget))
        }
        // Forward part of the way; what is left is held or moved at the next step.
        if canForward { return forward() }
        // Back part of the way, to the earliest moment the window lists with a segment to spare while the reload lands; the
        // rest is held at the next step: a shorter pause, locked sooner.
        if movable[ahead], let w = windows[ahead], w.live {
            let earliest = w.start.adding(seconds: 2 * w.targetDuration)
            let saved = aheadPDT.seconds(since: earliest)
            if saved >= max(realignThreshold, 2 * w.targetDuration), gap - saved <= maxHold, w.canStart(at: earliest) {
                holdUntil = t + 0.5
                action = .back(pane: panes[ahead])
                return SyncCommand(speeds: speeds, realign: (pane: ahead, to: earliest))
            }
        }
        if canHold {
            holdUntil = t + gap + 0.3
            action = .hold(pane: panes[ahead], seconds: gap)
            return SyncCommand(speeds: speeds, hold: (pane: ahead, seconds: gap))
        }
        if !movable[ahead] && gap <= holdLimit { return steer() }
        let numbers = panes
        let w = { (i: Int) in windows[i].map { "pane \(numbers[i] + 1) lists \($0.text)" } ?? "pane \(numbers[i] + 1)'s window unknown" }
        giveUp("no moment in common (\(DurationText.words(gap)) apart): \(w(0)), \(w(1))")
        return SyncCommand(speeds: speeds)
    }

    /// Pane 1 is being moved to `to` by another's decision (beside more panes, with the reference's own move at the start),
    /// from `from`: what is left when it lands is a landing error, held away.
    mutating func moved(at t: Double, from: DateTime, to: DateTime) {
        state = .aligning
        steady = false
        withinSince = nil
        speeds = [1, 1]
        holdUntil = t + 0.5
        action = to.seconds(since: from) > 0 ? .forward(pane: panes[1]) : .back(pane: panes[1])
    }

    /// The reference is ahead and may not wait: the other pane catches up at the steering limit.
    mutating func steer() -> SyncCommand {
        state = .steering
        action = .steer
        speeds = [1, 1 + maxCorrection]
        return SyncCommand(speeds: speeds)
    }

    mutating func release() -> SyncCommand {
        speeds = [1, 1]
        withinSince = nil
        holdUntil = nil
        return SyncCommand(speeds: speeds, hold: nil)
    }
}

/// Durations in words for one-line messages: "4.2 s", "12 min", "3 h", "41 days".
public enum DurationText {
    public static func words(_ s: Double) -> String {
        if s < 120 { return fixed(s, 1) + " s" }
        if s < 7200 { return "\(Int(s / 60)) min" }
        if s < 172_800 { return "\(Int(s / 3600)) h" }
        return "\(Int(s / 86400)) days"
    }
}
