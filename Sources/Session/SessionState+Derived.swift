import CMCD
import HLS
import LoaderEvents

/// What follows from the state alone: the playhead's place and PDT, the buffer, latency, throughput and the rung to play.
extension SessionState {
    // MARK: derived facts (pure functions of the state)

    /// The failure behind a stall starting at `t`: the last one the Loader saw within 30 s.
    public func recentFailure(at t: Double) -> String? {
        guard let f = lastFailure, t - f.t < 30 else { return nil }
        return "origin: " + f.text
    }

    /// The stall in progress, if any.
    public var currentStall: Stall? { stallWatch.current }
    /// The newest stalls (`StallWatch.limit`); `earlierStalls` counts the ones trimmed, so the totals stay whole.
    public var stalls: [Stall] { stallWatch.stalls }
    public var earlierStalls: StallTotals { stallWatch.earlier }
    /// Since when the player sits at the end of what it was given while the stream is not over.
    public var eofSince: Double? { stallWatch.eofSince }
    /// Since when the player has been opening a stream it was given (a reload) after playback had started.
    public var loadingSince: Double? { stallWatch.loadingSince }

    /// The state for the status line.
    public var state: PlaybackState {
        if error != nil { return .error }
        if ended { return .ended }
        if !started { return .starting }
        // At the end of what it was given while the stream goes on, mpv pauses itself (keep-open): waiting, not a pause.
        // Held by hlstui while a switch moves it inside the new rung: waiting for data too.
        if sample.pausedForCache || currentStall != nil || eofSince != nil || sample.held || loadingSince != nil { return .buffering }
        if sample.paused { return .paused }
        if sample.restarting { return .restarting }
        return .playing
    }

    /// The media playlist the playhead is measured against.
    public var playingMedia: MediaPlaylist? {
        let ordered = [playingRung, loadedRung].compactMap { $0 }.compactMap { media[$0] }
        // The rungs' segments line up by MSN and PDT: when the rung that served the playhead's segment was last read before the
        // window moved past it, another rung's newer playlist that lists the segment measures it.
        if let p = playhead,
            let m = ordered.first(where: { $0.lists(p.msn) })
                ?? media.keys.sorted().compactMap({ media[$0] }).first(where: { $0.lists(p.msn) })
        {
            return m
        }
        return ordered.first ?? media.values.first
    }

    /// Where the playhead is, by segment.
    public var playhead: StreamPoint? {
        if playerLoading, let p = loadingPoint { return p }
        return sample.timePos.flatMap(locate)
    }

    /// The segment and offset of raw media time `t`.
    public func locate(_ t: Double) -> StreamPoint? {
        guard let m = media[loadedRung ?? 0] ?? media.values.first else { return nil }
        return clock.locate(t, in: m)
    }

    /// The rung whose bytes are on screen: the rung that served the segment at the playhead (measured), else the rung loaded.
    public var playingRung: Int? {
        guard let t = sample.timePos, let m = loadedRung.flatMap({ media[$0] }) ?? media.values.first, let p = clock.locate(t, in: m) else {
            return loadedRung
        }
        return segmentRung[p.msn] ?? loadedRung
    }

    /// Seconds from the start of the playlist window to the playhead (negative when its segment has left the window).
    public var position: Double? {
        guard let p = playhead, let m = playingMedia else { return nil }
        if p.msn < m.mediaSequence {
            let before = (p.msn..<m.mediaSequence).map { seen[$0]?.duration }
            guard before.allSatisfy({ $0 != nil }) else { return nil }
            return p.offset - before.reduce(0) { $0 + ($1 ?? 0) }
        }
        return MediaClock.position(p, in: m, starts: Timeline.startTimes(m))
    }

    /// Records the duration and PDT of a playlist's segments (the newest 256 kept).
    mutating func remember(_ m: MediaPlaylist) {
        for seg in m.segments {
            seen[seg.mediaSequence] = SegmentFacts(
                duration: seg.duration, pdt: seg.effectiveProgramDateTime, discontinuity: seg.discontinuity)
        }
        if seen.count > 256 { for k in seen.keys.sorted().prefix(seen.count - 256) { seen[k] = nil } }
    }

    /// The window's length (VOD: the duration).
    public var windowDuration: Double? { playingMedia?.totalDuration }

    /// Wall-clock time of the frame at the playhead.
    public var playheadPDT: DateTime? { playhead.flatMap(programDateTime) }

    /// Wall-clock time of `p`: from the playlist that lists its segment, else from what an earlier playlist said of it (a held
    /// or buffered playhead can be behind the live window).
    public func programDateTime(_ p: StreamPoint) -> DateTime? {
        if let m = playingMedia, m.lists(p.msn) { return MediaClock.programDateTime(p, in: m) }
        return seen[p.msn]?.pdt.map { $0.adding(seconds: p.offset) }
    }

    /// Live: seconds between the playhead and the end of the newest segment.
    public var liveLatency: Double? {
        guard let m = playingMedia, m.isLive, let pos = position else { return nil }
        // The edge keeps moving after a playlist showed it (hls.js adds the playlist's age); a playlist that stops growing is
        // stuck, so at most 1.5 target durations are added. With PDT the edge hlstui read itself counts even when the player's
        // window is older (a full cache, or a playlist the Loader ended before a break).
        let edge = loadedRung.flatMap { edgeSeen[$0] }
        let age = edge.map { min(max(0, now - $0.at), 1.5 * Double(m.targetDuration ?? 2)) } ?? 0
        if let end = edge?.end, let here = playheadPDT { return end.seconds(since: here) + age }
        return m.totalDuration - pos + age
    }

    /// Glass-to-glass latency: the wall clock minus the EXT-X-PROGRAM-DATE-TIME of the frame at the playhead (RFC 8216bis
    /// §4.4.4.6), on a live stream with PDT; it includes the encoder's and the origin's delay, unlike `liveLatency`. A VOD's
    /// PDT is when it was recorded, not a latency: nil.
    /// Measured on the frame: when it is shown (`frameShownAt`), else when `time-pos` was read.
    public var pdtLatency: Double? {
        guard playingMedia?.isLive == true, let wall = frameShownAt ?? sample.wall, let here = playheadPDT else { return nil }
        return wall.seconds(since: here)
    }

    /// The wall clock when the frame at the playhead is shown. `time-pos` names the frame mpv has decoded and queued, which it
    /// shows when its audio clock reaches the frame's timestamp, late by `avsync`; `audio-pts` is that clock, read at
    /// `audioWall` and advancing between frames: the frame is shown its distance ahead of it later (docs/SYNC.md, measuring).
    /// Nil without audio, while paused or loading, and when the readings do not agree as steady playback has them: the frame
    /// more than 75 ms ahead of the audio clock or 20 ms behind it (a player restarting, or resyncing its picture to its
    /// audio), or `audio-pts` read over 20 ms after `time-pos` (a starved machine between the two reads).
    public var frameShownAt: DateTime? {
        guard let t = sample.timePos, let a = sample.audioPts, let at = sample.audioWall, let wall = sample.wall, !sample.paused,
            !sample.loading, !sample.held, sample.speed > 0, at.seconds(since: wall) <= 0.02
        else { return nil }
        let ahead = (t - a + (sample.avsync ?? 0)) / sample.speed
        guard ahead >= -0.02, ahead <= 0.075 else { return nil }
        return at.adding(seconds: ahead)
    }

    /// Seconds between the PDT of the audio heard when `audio-pts` was read and that moment (RFC 8216bis §4.4.4.6): the audio's
    /// glass-to-glass latency, continuous where the frames' moves a frame at a time. Nil as `frameShownAt`, and on VOD.
    public var audioLatency: Double? {
        guard playingMedia?.isLive == true, frameShownAt != nil, let a = sample.audioPts, let at = sample.audioWall,
            let p = locate(a), !clock.precedes(a, p), let pdt = programDateTime(p)
        else { return nil }
        return at.seconds(since: pdt)
    }

    /// Where the media the player holds ahead of the playhead ends, in playlist-window seconds: the end of the run of
    /// segments delivered to it whole from the playhead's segment on (the Loader saw them go out), or — before any is known —
    /// the playhead plus mpv's `cache-end` − `time-pos` when both lie in the same timestamp run. Nil when neither is known.
    /// mpv's seekable ranges are not used for it: on live streams they stop moving, and a timestamp reset splits them
    /// (DECISIONS.md, the buffer bar).
    public var bufferedEnd: Double? {
        guard let m = playingMedia, let t = sample.timePos, let p = clock.locate(t, in: m) else { return nil }
        let starts = Timeline.startTimes(m)
        guard let here = position else { return nil }
        var last: Int?
        var msn = p.msn
        while delivered[msn] != nil {
            last = msn
            msn += 1
        }
        if let last {
            let dur = m.segments[safe: last - m.mediaSequence]?.duration ?? Double(m.targetDuration ?? 2)
            if let end = MediaClock.position(StreamPoint(msn: last, offset: dur), in: m, starts: starts), end >= here { return end }
        }
        if let ce = sample.cacheEnd, ce >= t, ce - t < 3600 { return here + (ce - t) }
        return nil
    }

    /// Seconds of media the player holds ahead of the playhead (see `bufferedEnd`); nil when that is not known.
    public var bufferedAhead: Double? {
        guard let end = bufferedEnd, let here = position else { return nil }
        return max(0, end - here)
    }

    /// What the player holds, in playlist-window seconds: the range around the playhead (from the start of mpv's seekable
    /// range holding it, where that maps into the window, to `bufferedEnd`), and mpv's other seekable ranges that map whole.
    public var bufferedRanges: [TimeRange] {
        guard let m = playingMedia else { return [] }
        let starts = Timeline.startTimes(m)
        let map = { (x: Double) in self.clock.locate(x, in: m).flatMap { MediaClock.position($0, in: m, starts: starts) } }
        var out: [TimeRange] = []
        var main: TimeRange?
        // A range whose end lies before its start crosses a timestamp reset: it holds everything from its start on.
        let holds = { (r: TimeRange, t: Double) in r.start - 0.05 <= t && (t <= r.end + 0.05 || r.end < r.start) }
        if let t = sample.timePos, let here = position, let end = bufferedEnd {
            let holding = sample.seekableRanges.first { holds($0, t) }
            let back =
                holding.flatMap { r -> Double? in
                    if let a = map(r.start) { return a <= here ? a : nil }
                    // What played before the live window slid on is still in the cache: buffered from the window's start.
                    if let p = clock.locate(r.start, in: m), p.msn < m.mediaSequence { return 0 }
                    return nil
                } ?? here
            if end > back { main = TimeRange(start: back, end: end) }
        }
        for r in sample.seekableRanges {
            guard let t = sample.timePos, !holds(r, t) else { continue }
            guard let a = map(r.start), let b = map(r.end), b > a else { continue }
            if let mr = main, a < mr.end && b > mr.start { continue }
            out.append(TimeRange(start: a, end: b))
        }
        if let main { out.append(main) }
        return out.sorted { $0.start < $1.start }
    }

    /// The rung the controllers want now.
    public var targetRung: Int? {
        VariantPolicy.target(ladder, mode: mode, caps: caps, throughput: throughput.estimate, candidates: abrCandidates)
    }

    /// Total seconds stalled so far (an open stall counts up to now).
    public var stalledSeconds: Double { stallWatch.seconds(now: now) }

    /// The peak bitrate the player's memory budget is sized from: the ladder's BANDWIDTH, else the segments measured.
    public var budgetBitsPerSecond: Int? { ladder.peakBandwidth ?? observedPeakBitsPerSecond }

    mutating func notePeak(bytes: Int, msn: Int) {
        let duration = seen[msn]?.duration ?? playingMedia?.segments.first { $0.mediaSequence == msn }?.duration
        guard let duration, duration > 0.1, bytes > 0 else { return }
        let bps = Int(Double(bytes) * 8 / duration)
        ledger.peak(bps)
    }

    /// Stalls so far, the trimmed ones included.
    public var stallCount: Int { stallWatch.count }

    /// Marks a GAP as reported; false when it already was. The marks far behind the newest are forgotten.
    mutating func reportGap(rung: Int, msn: Int) -> Bool {
        guard gapsReported.insert(GapMark(rung: rung, msn: msn)).inserted else { return false }
        if gapsReported.count > 2 * Self.segmentMemory, let newest = gapsReported.map(\.msn).max() {
            gapsReported = gapsReported.filter { $0.msn > newest - Self.segmentMemory }
        }
        return true
    }

    /// Marks a break (a GAP run's first MSN, an fMP4 discontinuity's negated MSN) as crossed; false when it already was. The
    /// marks far behind the newest are forgotten.
    mutating func cross(_ mark: Int) -> Bool {
        guard crossed.insert(mark).inserted else { return false }
        if crossed.count > 2 * Self.segmentMemory, let newest = crossed.map(abs).max() {
            crossed = crossed.filter { abs($0) > newest - Self.segmentMemory }
        }
        return true
    }

    /// Drops the entries of a per-MSN table more than `segmentMemory` segments behind `newest`, once it holds twice that many
    /// (so trimming costs little per segment).
    static func trim<V>(_ table: inout [Int: V], newest: Int) {
        guard table.count > 2 * segmentMemory else { return }
        table = table.filter { $0.key > newest - segmentMemory }
    }
}

extension SessionState {
    /// What CMCD reports of the player from now on, as measured at the last sample (`--cmcd`, docs/CMCD.md).
    public var cmcdStatus: CMCDPlayerStatus {
        let top = caps.allowed(ladder).compactMap { ladder.rungs[safe: $0]?.bandwidth }.max()
        let stopped = sample.paused || currentStall != nil
        return CMCDPlayerStatus(
            bufferAhead: bufferedAhead, throughput: throughput.estimate.map { Int($0) }, rate: stopped ? 0 : sample.speed,
            topBitrate: top, urgent: !started || playerLoading || currentStall != nil, stalls: stallCount, live: playingMedia?.isLive)
    }
}
