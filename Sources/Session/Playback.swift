/// Where the player stands (a feature sub-state, docs/ARCHITECTURE.md): a stream given and loading, the first frame, the
/// user's pause, the end, a failure. Its state changes only through its transitions; what follows from each (the facts, the
/// lines said) is the Session's.
public struct Playback: Sendable, Equatable {
    /// The player has shown a frame (played) at least once.
    public private(set) var started = false
    /// Session time of the first frame (`SessionFact.firstFrame`); nil before it.
    public private(set) var firstFrameAt: Double?
    public private(set) var ended = false
    /// Why playback failed, in one sentence.
    public private(set) var error: String?
    /// The user's pause (space): the player's own pause property cannot tell it apart from the pause mpv sets at the end of
    /// what it was given (`keep-open`), so hlstui's reloads play on unless this is set.
    public private(set) var userPaused = false
    /// True from the moment the player is given a stream until it restarts playback: `time-pos` then reads 0, not a position.
    public private(set) var loading = false
    /// Where the playhead was when the player was given the stream it is loading (nil when none was playing).
    public private(set) var loadingPoint: StreamPoint?
    /// Session time of the last stream given to the player, and the segment it starts at (nil: the playlist's choice).
    public private(set) var lastGiven: Double?
    public private(set) var givenStart: Int?

    public init() {}

    /// The player was given a stream from segment `start` at `t`.
    mutating func given(start: Int?, at t: Double) {
        loading = true
        lastGiven = t
        givenStart = start
    }

    /// Where the playhead was when the player stopped reading for the stream it loads (nil: not on the playlists).
    mutating func loading(from point: StreamPoint?) { loadingPoint = point }

    /// The player restarted playback; true the first time.
    mutating func restarted(at t: Double) -> Bool {
        loading = false
        loadingPoint = nil
        guard !started else { return false }
        started = true
        firstFrameAt = t
        return true
    }

    /// The user paused or played on; the pause now.
    mutating func togglePause() -> Bool {
        userPaused.toggle()
        return userPaused
    }

    mutating func failed(_ message: String) { error = message }

    /// The end of the stream was reached.
    mutating func reachedEnd() { ended = true }
}

extension SessionState {
    public var started: Bool { playback.started }
    /// Session time of the first frame (`SessionFact.firstFrame`); nil before it.
    public var firstFrameAt: Double? { playback.firstFrameAt }
    public var ended: Bool { playback.ended }
    /// Why playback failed, in one sentence.
    public var error: String? { playback.error }
    /// The user's pause (`Playback.userPaused`).
    public var userPaused: Bool { playback.userPaused }
    /// True from the moment the player is given a stream until it restarts playback (`Playback.loading`).
    public var playerLoading: Bool { playback.loading }
    var loadingPoint: StreamPoint? { playback.loadingPoint }
    /// Session time of the last stream given to the player, and the segment it starts at (nil: the playlist's choice).
    public var lastGiven: Double? { playback.lastGiven }
    public var givenStart: Int? { playback.givenStart }
}
