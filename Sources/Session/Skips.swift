import HLS

/// Forward jumps of the playhead past content never shown, as the player's samples show them (a feature sub-state,
/// docs/ARCHITECTURE.md; DECISIONS.md, switches never skip content). The playhead is measured by segment and offset, so
/// timestamp resets do not count; samples that cannot advance (paused, waiting, loading) move the reference time with
/// them, so time spent waiting never excuses a jump. Its state changes only through its transitions; where a point lies on
/// the stream (`distance`) and what caused a jump (`cause`) are the Session's to say.
public struct SkipWatch: Sendable {
    /// The newest 100 skips; `count` and `seconds` cover all of them.
    public private(set) var skips: [Skip] = []
    public private(set) var count = 0
    public private(set) var seconds = 0.0
    /// Where the playhead was at the last sample that said: the reference the next jump is measured from.
    private(set) var progress: Progress?
    /// Somebody asked the playhead to move (a seek, a sync move): the next stream given starts the check afresh.
    private(set) var moveAsked = false

    public init() {}

    /// The playhead is to move on purpose and the player will be given the stream again: measured afresh where it lands.
    mutating func moveRequested() {
        progress = nil
        moveAsked = true
    }

    /// The next stream given to the player moves the playhead because somebody asked (a seek by reload): not a skip. The
    /// samples of the player until then are measured as before.
    mutating func expectMove() { moveAsked = true }

    /// The playhead is to move on purpose within the stream it has (a seek, a hold): measured afresh from the next sample.
    mutating func restart() { progress = nil }

    /// The player was given the stream again. Where the playhead really was when it stopped reading (`from`: its point and
    /// time at `wall`) is what the next sample is measured from, unless a move was asked: then the check starts afresh.
    mutating func streamGiven(from: (wall: DateTime, point: StreamPoint, time: Double)?, speed: Double) {
        if moveAsked {
            moveAsked = false
            progress = nil
        } else if let f = from {
            progress = Progress(wall: f.wall, point: f.point, time: f.time, advancing: false, speed: speed)
        }
    }

    /// A sample whose position means nothing yet (loading, held, restarting): the position before stands, only the clock
    /// moves on.
    mutating func hold(wall: DateTime) {
        guard var p = progress else { return }
        p.wall = wall
        p.advancing = false
        p.audio = nil
        progress = p
    }

    /// A sample whose position is not located yet, or not measurable from the last point: the last point stands, so the jump
    /// is measured from it once it can be. Time the player may have played meanwhile counts as played (the clock of the last
    /// point is kept); time it stood still does not (the clock moves on).
    mutating func keepLast(wall: DateTime, advancing: Bool) {
        guard var p = progress else { return }
        if advancing || p.advancing {
            p.advancing = true
        } else {
            p.wall = wall
            p.audio = nil
        }
        progress = p
    }

    /// A sample at `point` (`time` on the player's clock) at `wall`, at session time `t`: the skip it shows, if any (a jump
    /// right after another, the player catching up, grows that one and returns nil). `audio`: the player's `audio-pts` then.
    /// `cause`: what explains a jump over those segments, nil when nothing but the player does.
    mutating func observe(
        wall: DateTime, point: StreamPoint, time: Double, advancing: Bool, speed: Double, at t: Double, audio: Double? = nil,
        distance: (StreamPoint, StreamPoint) -> Double?, cause: (ClosedRange<Int>) -> String?
    ) -> Skip? {
        guard let last = progress else {
            progress = Progress(wall: wall, point: point, time: time, advancing: advancing, speed: speed, audio: audio)
            return nil
        }
        guard let moved = distance(last.point, point) else {
            // Not for long: a point whose segments are forgotten never becomes measurable, and the check starts afresh.
            if wall.seconds(since: last.wall) > 10 {
                progress = Progress(wall: wall, point: point, time: time, advancing: advancing, speed: speed, audio: audio)
            } else {
                keepLast(wall: wall, advancing: advancing)
            }
            return nil
        }
        progress = Progress(wall: wall, point: point, time: time, advancing: advancing, speed: speed, audio: audio)
        let elapsed = max(0, wall.seconds(since: last.wall))
        let played = (last.advancing || advancing ? elapsed * max(last.speed, speed, 1) : 0)
        // A frame or two of slack: samples read several properties one after another.
        guard moved - played > 0.15 else { return nil }
        // The player catching up right after a jump (it shows the rest faster) belongs to the same skip.
        if let k = skips.last, k.toTime == last.time, k.to == last.point {
            skips[skips.count - 1].to = point
            skips[skips.count - 1].toTime = time
            skips[skips.count - 1].seconds += moved - played
            seconds += moved - played
            return nil
        }
        let why = cause(last.point.msn...point.msn)
        // Nothing explains the jump and the audio played on at its pace: the picture stood while the audio played (a decoder
        // starved of CPU) and caught up by dropping the frames it was late with (`droppedFrames` counts them). Nothing of the
        // stream was passed over: the audio was heard (docs/PLATFORM.md, libmpv: time-pos and the audio clock).
        if why == nil, let a0 = last.audio, let a = audio, abs((a - a0) - played) <= 0.15 { return nil }
        let skip = Skip(
            t: t, fromTime: last.time, from: last.point, toTime: time, to: point, seconds: moved - played,
            cause: why ?? "the player jumped ahead (no switch, reload or failure explains it)")
        count += 1
        seconds += skip.seconds
        skips.append(skip)
        if skips.count > 100 { skips.removeFirst(skips.count - 100) }
        return skip
    }
}

/// The skips as the Session's readers know them.
extension SessionState {
    public var skips: [Skip] { skipWatch.skips }
    public var skipCount: Int { skipWatch.count }
    public var skippedSeconds: Double { skipWatch.seconds }
}
