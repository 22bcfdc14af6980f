import CMCD
import HLS

/// Seeks: in mpv's cache, by the demuxer aimed early, or by a reload at the target's segment (docs/DASHBOARD.md, seeking).
extension SessionState {
    /// A seek by `delta` seconds within the VOD duration or the live window: inside the buffer with the player (exact); outside
    /// it, TS by a demuxer seek, fMP4 (FFmpeg 5.1 ends fMP4 playback on a demuxer seek) and across GAPs no rung fills by
    /// reloading a playlist that starts at the target's segment.
    mutating func planSeek(by delta: Double, at t: Double) -> [PaneEffect] {
        catchUp?.userMoved()
        guard let pos = position, let m = playingMedia else {
            // The player has not shown a frame yet: a VOD seek is kept for the first look that knows the playhead (from the
            // start, or from a target already kept); a live one has nothing to be relative to.
            if playingMedia?.isLive == false || pendingSeek != nil {
                return planSeek(to: (pendingSeek ?? 0) + delta, at: t)
            }
            note(.warn, "seek: the player has not started yet", t)
            return []
        }
        let target = min(max(0, pos + delta), max(0, m.totalDuration - 0.5))
        let d = target - pos
        // In the cache only when mpv's demuxer holds it too: segments delivered to the player but not yet demuxed are not
        // in its cache, and a seek there goes to the demuxer — which ends fMP4 playback on FFmpeg 5.1 (docs/PLATFORM.md).
        let buffered =
            bufferedRanges.contains { $0.start - 0.01 <= target && target <= $0.end } && playerCacheHolds(target, in: m)
        guard let i = Timeline.segmentIndex(at: target, in: m) else { return [] }
        skipWatch.restart()
        // The subtitles where the seek goes are asked for now, beside the player's reads (docs/SUBTITLES.md).
        let aim = StreamPoint(msn: m.segments[i].mediaSequence, offset: target - Timeline.startTimes(m)[i])
        let subs = subtitleReads(at: t, aim: (aim, target))
        return seekEffects(target: target, delta: d, buffered: buffered, index: i, in: m, at: t) + subs
    }

    /// Whether mpv's demuxer cache (`seekable-ranges`, raw media time) holds playlist position `target` of `m`.
    func playerCacheHolds(_ target: Double, in m: MediaPlaylist) -> Bool {
        let starts = Timeline.startTimes(m)
        return sample.seekableRanges.contains { r in
            guard let a = clock.locate(r.start, in: m).flatMap({ MediaClock.position($0, in: m, starts: starts) }),
                let b = clock.locate(r.end, in: m).flatMap({ MediaClock.position($0, in: m, starts: starts) })
            else { return false }
            return a - 0.01 <= target && target <= b
        }
    }

    /// A seek to `target` seconds of the playlist; kept until the playhead is known when the player has not started (a
    /// command given during start-up is carried out, not lost: `watchStep` gives it once the playhead is known).
    mutating func planSeek(to target: Double, at t: Double) -> [PaneEffect] {
        guard let pos = position, started else {
            pendingSeek = max(0, target)
            note(.info, "seek to \(fixed(max(0, target), 1)) s: once the player shows its first frame", t)
            return []
        }
        pendingSeek = nil
        return planSeek(by: target - pos, at: t)
    }

    /// How the player reaches `target`, in segment `i` of `m`.
    mutating func seekEffects(target: Double, delta d: Double, buffered: Bool, index i: Int, in m: MediaPlaylist, at t: Double)
        -> [PaneEffect]
    {
        var msn = m.segments[i].mediaSequence
        // The player's playlist ends before a GAP no rung fills: beyond one, only a reload reaches the target.
        let here = playhead?.msn ?? msn
        let acrossGap = (min(here, msn)...max(here, msn)).contains { isUnfillableGap($0) }
        if buffered { return [.seekInCache(by: d)] }
        if !m.isFragmentedMP4 && !acrossGap,
            let back = demuxerSeekOffset(into: StreamPoint(msn: msn, offset: target - Timeline.startTimes(m)[i]))
        {
            return [.seekDemuxer(by: d, aimBack: back)]
        }
        while isUnfillableGap(msn) { msn += 1 }
        switching.plan(nil)
        skipWatch.expectMove()
        note(.info, "seek: reloaded at msn \(msn)", t)
        return [.load(rung: loadedRung ?? 0, startMSN: msn)]
    }
}
