/// What a reload of a live media playlist told us, after ExoPlayer's `DefaultHlsPlaylistTracker`.
public enum RefreshOutcome: Sendable, Equatable {
    /// The playlist advanced (more segments, parts, or ENDLIST).
    case newer
    /// The same playlist as before.
    case unchanged
    /// An older playlist than the last one (a stale cache); the last one stays current.
    case older
    /// The media sequence went back past the whole previous window: the stream restarted.
    case reset(previousMediaSequence: Int, mediaSequence: Int)
    /// No change for longer than 3.5 target durations.
    case stuck(secondsWithoutChange: Double)
}

/// Tracks the reloads of one live media playlist; time comes in as seconds on a monotonic clock, so this stays pure.
public struct LiveRefreshTracker: Sendable {
    /// ExoPlayer's PLAYLIST_STUCK_TARGET_DURATION_COEFFICIENT.
    public static let stuckCoefficient = 3.5
    public private(set) var current: MediaPlaylist?
    public private(set) var lastChange: Double = 0

    public init() {}

    /// True when `new` is newer than `old` (media sequence, then segment count, then parts, then ENDLIST).
    public static func isNewer(_ new: MediaPlaylist, than old: MediaPlaylist) -> Bool {
        let newStart = new.mediaSequence + (new.skip?.skippedSegments ?? 0)
        let oldStart = old.mediaSequence + (old.skip?.skippedSegments ?? 0)
        if newStart != oldStart { return newStart > oldStart }
        let newEnd = new.mediaSequence + (new.skip?.skippedSegments ?? 0) + new.segments.count
        let oldEnd = old.mediaSequence + (old.skip?.skippedSegments ?? 0) + old.segments.count
        if newEnd != oldEnd { return newEnd > oldEnd }
        if new.trailingParts.count != old.trailingParts.count { return new.trailingParts.count > old.trailingParts.count }
        return new.endList && !old.endList
    }

    /// Records a reload of `playlist` at monotonic time `now` and says what it was.
    public mutating func update(_ playlist: MediaPlaylist, at now: Double) -> RefreshOutcome {
        guard let old = current else {
            current = playlist
            lastChange = now
            return .newer
        }
        if LiveRefreshTracker.isNewer(playlist, than: old) {
            current = playlist
            lastChange = now
            return .newer
        }
        let newEnd = playlist.mediaSequence + playlist.segments.count
        if newEnd < old.mediaSequence {
            current = playlist
            lastChange = now
            return .reset(previousMediaSequence: old.mediaSequence, mediaSequence: playlist.mediaSequence)
        }
        if let stuck = check(at: now) { return stuck }
        return playlist.mediaSequence < old.mediaSequence || newEnd < old.mediaSequence + old.segments.count ? .older : .unchanged
    }

    /// `.stuck` when the playlist has not changed for 3.5 target durations (and has no ENDLIST), nil otherwise.
    public func check(at now: Double) -> RefreshOutcome? {
        guard let p = current, !p.endList else { return nil }
        let limit = Double(p.targetDuration ?? 10) * LiveRefreshTracker.stuckCoefficient
        let elapsed = now - lastChange
        return elapsed > limit ? .stuck(secondsWithoutChange: elapsed) : nil
    }
}
