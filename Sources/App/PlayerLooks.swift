import Foundation
import HLS
import Player
import Session

/// The player's properties read into the Session's looks: reading only. What a reading means while the player loads,
/// restarts or is held is the Session's to say (`SessionState.sampled`; docs/ARCHITECTURE.md, the pane).
extension MPV {
    /// `time-pos` now, whether the player stopped at the end of what it was given and whether it is paused; `time` is nil
    /// while it loads (it reads 0 then). `captions`: the captions it shows are read too (`PaneEffect.closedCaptions`).
    func look(loading: Bool, captions: Bool = false) -> PlayerLook {
        // The captions before the playhead: a caption read is then one of a frame at or before the time read after it. Read
        // the other way round, a frame shown between the two reads (a loaded machine spaces them) put a caption one frame
        // before its time.
        guard !loading else { return PlayerLook(time: nil) }
        let text = captions ? shownCaptions() : nil
        var l = PlayerLook(time: get(.timePos), atEnd: get(.eofReached) ?? false, paused: get(.pause) ?? false)
        if l.time != nil { l.captions = text }
        return l
    }

    /// The captions the player shows now: the captions track is chosen at every load (`PlayerOptions.mpvOptions`), so only
    /// its text is read; nil when the player has no captions track chosen.
    func shownCaptions() -> String? {
        guard get(.currentSubCodec) == "eia_608" else { return nil }
        return get(.subText) ?? ""
    }

    /// Every property of a sample, read now with the wall clock. `loading`: between a loadfile and the player's restart,
    /// when time-pos reads 0, the positions are not read. `held`: hlstui holds the player paused.
    func sample(loading: Bool, held: Bool) -> PlayerSample {
        var s = PlayerSample()
        s.loading = loading
        // Stamped as soon as time-pos is read: each property read waits for mpv's core (libmpv 0.35), and on a starved
        // machine — right after a load above all — the next read can wait a whole decode; a stamp taken after it dated the
        // position late, and the next sample's step looked like skipped content (0.165 s once, beside busy processes).
        if !loading { s.timePos = get(.timePos) }
        s.wall = DateTime(seconds: Date().timeIntervalSince1970)
        if !loading {
            s.audioPts = get(.audioPts)
            s.audioWall = DateTime(seconds: Date().timeIntervalSince1970)
            s.avsync = get(.avsync)
        }
        s.paused = get(.pause) ?? false
        s.held = held
        s.pausedForCache = get(.pausedForCache) ?? false
        s.coreIdle = get(.coreIdle) ?? true
        s.eof = get(.eofReached) ?? false
        s.width = get(.videoWidth)
        s.height = get(.videoHeight)
        if get(.currentSubCodec) == "eia_608" { s.captions = get(.subText) }
        s.audioLanguage = get(.audioTrackLanguage)
        s.audioChannels = get(.audioChannelCount)
        s.droppedFrames = (get(.frameDropCount) ?? 0) + (get(.decoderFrameDropCount) ?? 0)
        s.speed = get(.speed) ?? 1
        if let cache = get(.demuxerCacheState) {
            s.seekableRanges = cache.seekableRanges.map { TimeRange(start: $0.start, end: $0.end) }
            s.cacheEnd = cache.cacheEnd
            s.underrun = cache.underrun
        }
        return s
    }

    /// What the wall-clock moment at the playhead is computed from (`SessionState.moment`), and when: the instant right after
    /// `audio-pts` was read, the clock the moment comes from (each property read waits for mpv's core; on a loaded machine the
    /// reads around it can take milliseconds).
    func clockLook() -> (ClockLook, ContinuousClock.Instant) {
        var look = ClockLook(
            paused: get(.pause) ?? false, pausedForCache: get(.pausedForCache) ?? false, eofReached: get(.eofReached) ?? false,
            coreIdle: get(.coreIdle) ?? false)
        look.audioPts = get(.audioPts)
        let at = ContinuousClock.now
        look.timePos = get(.timePos)
        return (look, at)
    }

    /// The cache, whether a seek is under way and the position: what a timed look of the Session decides on (`SessionTimer`).
    func seekLook() -> SeekLook {
        let cache = get(.demuxerCacheState)
        return SeekLook(
            seekable: cache?.seekableRanges.map { TimeRange(start: $0.start, end: $0.end) } ?? [], cacheEnd: cache?.cacheEnd,
            seeking: get(.seeking), time: get(.timePos))
    }
}
