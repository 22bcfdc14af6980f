import HLS

/// A place in the stream: a segment (by media sequence number) and seconds into it.
public struct StreamPoint: Sendable, Equatable {
    public var msn: Int
    public var offset: Double
    public init(msn: Int, offset: Double) {
        self.msn = msn
        self.offset = offset
    }
}

/// Maps mpv's raw media time (`time-pos` with `rebase-start-time=no`) to segments, playlist time and PDT,
/// through the first PTS the Loader read from each segment (docs/PLATFORM.md).
public struct MediaClock: Sendable {
    /// First PTS (seconds) of each segment seen, by MSN.
    public var firstPTS: [Int: Double] = [:]
    public init() {}

    /// The segment the playhead was last found in, or the first segment of the stream the player was last given: where the
    /// player goes on from. A live window can list the same timestamps twice — a timeline restarted (a loop, an encoder
    /// restart, RFC 8216bis §4.4.4.3 discontinuity) within the window — and only the way the player came tells which one plays.
    public var anchor: Int?

    /// The segment holding raw time `t` in `playlist`, and how far into it: the known segment with the latest first PTS at or before `t`,
    /// then walked forward through the playlist's durations (for times in segments whose bytes have not passed yet).
    public func locate(_ t: Double, in playlist: MediaPlaylist) -> StreamPoint? {
        guard let b = base(t, in: playlist) else {
            // Just before the earliest known segment (audio may start a frame earlier than video): clamp to its start.
            let oldest = playlist.mediaSequence - 30
            let near = firstPTS.filter { $0.key >= oldest && $0.value > t && $0.value - t < 0.5 }.min { $0.value < $1.value }
            return near.map { StreamPoint(msn: $0.key, offset: 0) }
        }
        var p = StreamPoint(msn: b.msn, offset: max(0, t - b.pts))
        let first = playlist.mediaSequence
        while let seg = playlist.segments[safe: p.msn - first], p.offset >= seg.duration, playlist.segments[safe: p.msn + 1 - first] != nil
        {
            p.offset -= seg.duration
            p.msn += 1
        }
        return p
    }

    /// The known segment `t` lies in or after, and its first PTS. From the anchor (its first PTS known and at or before `t`):
    /// on through the known segments that follow it on the same timeline. Otherwise (the player crossed a timestamp reset, or
    /// was sought back) the latest first PTS at or before `t` among the segments near the window — those from the anchor on
    /// when there are any, the nearest of equal ones first.
    func base(_ t: Double, in playlist: MediaPlaylist) -> (msn: Int, pts: Double)? {
        // Only segments near the window: a live loop restarts timestamps, so old segments can carry the same PTS as new ones.
        let oldest = playlist.mediaSequence - 30
        // And only within reach of the segment: 120 s, or its own length (a progressive file is one segment as long as the movie).
        func duration(_ msn: Int) -> Double? { playlist.segments[safe: msn - playlist.mediaSequence]?.duration }
        func reach(_ msn: Int) -> Double { max(120, (duration(msn) ?? 0) + 1) }
        if let a = anchor, let pa = firstPTS[a], pa <= t + 0.0005, t - pa < reach(a) {
            var k = (msn: a, pts: pa)
            while let next = firstPTS[k.msn + 1], next <= t + 0.0005 {
                // A timestamp reset after the anchor's run: crossed only when `t` lies beyond the segment before it (a segment
                // that left the window is at most a target duration long, RFC 8216bis §4.4.3.1).
                let listed = playlist.segments[safe: k.msn + 1 - playlist.mediaSequence]?.discontinuity ?? false
                let length = duration(k.msn) ?? Double(playlist.targetDuration ?? 0)
                if next < k.pts || listed, t < k.pts + length + 0.5 { break }
                k = (k.msn + 1, next)
            }
            return k
        }
        let all = firstPTS.filter { $0.key >= oldest && $0.value <= t + 0.0005 && t - $0.value < reach($0.key) }
        let after = anchor.map { a in all.filter { $0.key >= a } } ?? [:]
        let pool = after.isEmpty ? all : after
        var best: (msn: Int, pts: Double)?
        for (msn, pts) in pool {
            // Equal timestamps: from the anchor on the nearest plays first; without one the newest (the window moves on).
            let better = after.isEmpty ? msn > (best?.msn ?? .min) : msn < (best?.msn ?? .max)
            if best == nil || pts > best!.pts || (pts == best!.pts && better) { best = (msn, pts) }
        }
        return best
    }

    /// Follows the playhead at raw time `t`: the anchor moves to the known segment it lies in, once the anchor itself is known
    /// (until the first segment of a stream just given is measured, what the anchor is is all that tells).
    public mutating func follow(_ t: Double, in playlist: MediaPlaylist) {
        guard anchor.map({ firstPTS[$0] != nil }) ?? true, let b = base(t, in: playlist) else { return }
        anchor = b.msn
    }

    /// Raw time `t` lies before the start of the segment `locate` gave for it by more than a frame: the point was clamped to that
    /// start. Just after a timestamp reset mpv plays audio that began before the new timeline's first segment for a few tenths
    /// of a second; such a time names no moment of the stream yet (docs/PLATFORM.md, TS timestamp reset).
    public func precedes(_ t: Double, _ p: StreamPoint, frame: Double = 0.05) -> Bool {
        guard p.offset == 0, let first = firstPTS[p.msn] else { return false }
        return t < first - frame
    }

    /// Seconds from the start of the playlist's window to `p` (nil when the segment is not in the window).
    public static func position(_ p: StreamPoint, in playlist: MediaPlaylist, starts: [Double]) -> Double? {
        let i = p.msn - playlist.mediaSequence
        guard starts.indices.contains(i) else {
            // Past the end of the window: measure from the end (the live edge moves).
            if i >= starts.count, let last = playlist.segments.last, !starts.isEmpty {
                let lastEnd = starts[starts.count - 1] + last.duration
                let extra = Double(i - starts.count) * Double(playlist.targetDuration ?? Int(last.duration.rounded()))
                return lastEnd + extra + p.offset
            }
            return nil
        }
        return starts[i] + p.offset
    }

    /// The wall-clock time of `p` from the segment's EXT-X-PROGRAM-DATE-TIME (RFC 8216bis §4.4.4.6).
    public static func programDateTime(_ p: StreamPoint, in playlist: MediaPlaylist) -> DateTime? {
        guard let s = playlist.segments[safe: p.msn - playlist.mediaSequence], let pdt = s.effectiveProgramDateTime else { return nil }
        return pdt.adding(seconds: p.offset)
    }

    /// Forgets segments that left every window long ago (keeps the newest `keep`), once a quarter more has gathered, so the
    /// sort is paid once per thousand segments, not on each.
    public mutating func trim(keep: Int = 4000) {
        guard firstPTS.count > keep + keep / 4 else { return }
        let cut = firstPTS.keys.sorted().dropLast(keep)
        for k in cut { firstPTS[k] = nil }
    }
}

extension Array {
    /// The element at `i`, or nil outside the array.
    public subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
