import Foundation
import HLS
import Loader
import Session

/// Rung switches, boundary reloads and GAP/discontinuity crossings (DECISIONS.md, rung switching).
extension Pane {
    /// After a selection action: updates the splice's GAP fill for the new caps and switches to the rung the controllers want.
    func reconsider(reason: SwitchReason) {
        let (target, loaded) = state.withLockedValue { s in (s.targetRung, s.loadedRung) }
        guard let target, fetched.withLockedValue({ $0?.playlist.multivariant != nil }) else { return }
        if target == loaded {
            if let r = spliceRoute(target) { loader.route(r) }
            return
        }
        switchTo(target, reason: reason, manual: true)
    }

    /// The splice route that plays `rung`, with the rungs that may fill its GAPs; nil when the stream is not spliced.
    func spliceRoute(_ rung: Int) -> SpliceRoute? {
        state.withLockedValue { s in
            s.spliced
                ? SpliceRoute(rung: rung, fill: SwitchPlanner.fill(for: rung, ladder: s.ladder, allowed: s.caps.allowed(s.ladder))) : nil
        }
    }

    /// Makes `rung` play, by the mechanism its container, the ladder and the mode allow (docs/PLATFORM.md), and reports the switch.
    func switchTo(_ rung: Int, reason: SwitchReason, detail: String? = nil, manual: Bool) {
        let s = snapshot
        guard let from = s.loadedRung, from != rung, let a = s.ladder.rungs[safe: rung], let b = s.ladder.rungs[safe: from] else { return }
        let live = s.playingMedia?.isLive ?? false
        var detail = detail
        var mech = SwitchPlanner.mechanism(
            spliced: s.spliced, compatible: SwitchPlanner.compatible(b, a), live: live,
            mode: manual ? s.manualSwitch : config.autoSwitch)
        let here = fresh().map(\.msn) ?? s.playhead?.msn
        var atMSN: Int?
        apply(.reloadPlanned(rung: nil))
        switch mech {
        case .splice:
            atMSN = spliceRoute(rung).flatMap { loader.route($0) }
        case .spliceSeek:
            if let r = spliceRoute(rung) { loader.route(r) }
            if let h = here, rereadCurrent(rung: rung, at: h) {
                atMSN = h
            } else {
                // FFmpeg cannot re-read the player's first segment exactly: the new rung is loaded at that segment instead and the
                // player moved inside its fresh cache (a cache seek, exact whoever packaged the stream), as on fMP4.
                mech = .reloadSeek
                detail = [
                    detail,
                    "the segment under the playhead is the player's first, which FFmpeg 5.1 cannot re-read exactly: reloaded there and sought in the cache",
                ]
                .compactMap { $0 }.joined(separator: "; ")
                atMSN = here
                reloadInPlace(rung)
            }
        case .spliceReload:
            if let r = spliceRoute(rung) { loader.route(r) }
            apply(.reloadPlanned(rung: rung))
            atMSN = here.map { $0 + 1 }
        case .reloadBoundary:
            prewarm(rung)
            apply(.reloadPlanned(rung: rung))
            atMSN = here.map { $0 + 1 }
        case .reloadSeek:
            atMSN = here
            prewarm(rung)
            reloadInPlace(rung)
        case .load, .loadSpliced:
            // Not a switch: the planner only plans switches between rungs (the first load is `Pane.open`'s).
            return
        }
        let sw = VariantSwitch(t: t, from: from, to: rung, reason: reason, mechanism: mech, atMSN: atMSN, detail: detail)
        apply(.switched(sw))
        output(self, .switched(sw))
    }

    /// Makes the player re-read the segment under the playhead (`at`) from the newly routed `rung` (splice+seek): the cache is
    /// made unseekable for one seek, so it goes to the demuxer. One seek, never repeated forward: it is repeated only while the
    /// demuxer has not acted on it (the option reaches the demuxer thread on its next cycle; until then the seek is a harmless
    /// cache seek to the same spot). False when the segment is the player's first (see `demuxerSeek`).
    func rereadCurrent(rung: Int, at here: Int) -> Bool {
        guard let p = fresh(), p.msn == here, demuxerSeekOffset(into: p) != nil else { return false }
        try? mpv.set(.demuxerSeekableCache(false))
        let mpv = self.mpv
        tasks.spawn { [weak self] in
            for attempt in 0..<4 {
                try? await Task.sleep(for: .milliseconds(attempt == 0 ? 10 : 30))
                guard let self else { return }
                // The demuxer went back: the segment before the playhead's is asked for again, now from the new rung.
                let demuxed = self.state.withLockedValue { s in s.inFlight[here - 1]?.rung == rung || s.segmentRung[here - 1] == rung }
                if demuxed { break }
                guard let now = self.fresh(), self.demuxerSeek(relative: 0, into: now) else { break }
            }
            try? await Task.sleep(for: .milliseconds(300))
            try? mpv.set(.demuxerSeekableCache(nil))
        }
        return true
    }

    /// How far before the target a demuxer seek must aim so FFmpeg 5.1 lands at or before it: the middle of the segment before
    /// the target's. FFmpeg's HLS demuxer seeks to where the playlist says a segment starts, counted from the first timestamp it
    /// read, and drops packets until a video key frame whose *decoding* time is at or after that; when that first timestamp is
    /// later than a key frame's decoding time (B-frames delay presentation, and packagers that write audio first put a later
    /// audio timestamp first), the key frame is dropped and playback lands on the next segment. Aimed one segment back it
    /// lands on that segment's key frame or the target's, both at or before the target (DECISIONS.md, switches never skip).
    /// Nil when the target's segment is the first of the player's playlist.
    func demuxerSeekOffset(into p: StreamPoint) -> Double? {
        let s = snapshot
        let first = s.givenStart ?? s.playingMedia?.segments.first?.mediaSequence ?? p.msn
        guard p.msn > first,
            let previous = s.seen[p.msn - 1]?.duration
                ?? s.playingMedia?.segments.first(where: { $0.mediaSequence == p.msn - 1 })?.duration
        else { return nil }
        return max(0, p.offset) + previous / 2
    }

    /// A seek by `d` seconds to point `into` that the demuxer carries out (TS), aimed with `demuxerSeekOffset`; false (nothing
    /// done) when it cannot be aimed so.
    @discardableResult
    func demuxerSeek(relative d: Double, into p: StreamPoint) -> Bool {
        guard let back = demuxerSeekOffset(into: p) else { return false }
        try? mpv.set(.hrSeekDemuxerOffset(back))
        try? mpv.command(.seekRelative(d))
        // mpv reads the offset when it carries the seek out on its own thread: it is reset once that has happened.
        let mpv = self.mpv
        tasks.spawn {
            try? await Task.sleep(for: .milliseconds(300))
            try? mpv.set(.hrSeekDemuxerOffset(0))
        }
        return true
    }

    /// Reads `rung`'s media playlist now, so the session knows its segments before the player asks.
    func prewarm(_ rung: Int) {
        guard let f = fetched.withLockedValue({ $0 }) else { return }
        let loader = self.loader
        tasks.spawn { _ = await loader.prewarmVariant(f, rung: rung) }
    }

    /// The playhead now (a fresh `time-pos`, not the last sample).
    func fresh() -> StreamPoint? {
        guard !loading.withLockedValue({ $0 }), let t = mpv.get(.timePos) else { return snapshot.playhead }
        return state.withLockedValue { $0.locate(t) }
    }

    /// Immediate switch without a splice (VOD fMP4): reload at the current segment paused, seek inside the fresh cache to where
    /// the playhead was (a cache seek, so FFmpeg 5.1 never seeks fMP4), then play.
    func reloadInPlace(_ rung: Int) {
        guard let target = mpv.get(.timePos), let p = state.withLockedValue({ $0.locate(target) }) else {
            apply(.reloadPlanned(rung: rung))
            return
        }
        let wasPaused = mpv.get(.pause) ?? false
        // Marked before the pause, so no sample in between reads a pause the user never asked for.
        holding.withLockedValue { $0 = !wasPaused }
        try? mpv.set(.pause(true))
        guard load(rung: rung, startMSN: p.msn) else {
            holding.withLockedValue { $0 = false }
            return
        }
        let mpv = self.mpv
        tasks.spawn { [weak self] in
            let deadline = ContinuousClock.now + .seconds(5)
            var sought = false
            while ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
                if !sought {
                    guard mpv.get(.demuxerCacheState)?.holds(target, margin: 0.05) == true else { continue }
                    try? mpv.command(.seekAbsolute(target))
                    sought = true
                } else if let now = mpv.get(.timePos), abs(now - target) < 0.1 {
                    break
                }
            }
            if !wasPaused { try? mpv.set(.pause(false)) }
            self?.holding.withLockedValue { $0 = false }
            if !sought {
                self?.apply(
                    .log(level: .warn, text: "reload+seek: the new rung's cache never held the playhead; playing from its segment start"))
            }
        }
    }

    /// Every 20 ms: carries out a reload waiting for its segment boundary, and crosses GAP runs no rung can fill.
    func startWatcher() {
        tasks.spawn { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                guard let self else { return }
                self.watch()
            }
        }
    }

    /// Live: when the playing rung's playlist has not been read for a target duration and a half second (FFmpeg reloads only when it
    /// needs a segment, and never a playlist the Loader ended before a break), hlstui reads it, so the live edge and latency stay current.
    func refreshLiveWindow() {
        let (rung, target) = state.withLockedValue { s in (s.loadedRung, s.playingMedia.flatMap { $0.isLive ? $0.targetDuration : nil }) }
        guard let rung, let target, let f = fetched.withLockedValue({ $0 }) else { return }
        let now = self.t
        let due = playlistSeen.withLockedValue { seen -> Bool in
            guard let last = seen[rung], now - last > Double(target) + 0.5 else { return false }
            seen[rung] = now
            return true
        }
        guard due else { return }
        tasks.spawn { [weak self] in
            guard let self, let m = await self.loader.refresh(f, rung: rung) else { return }
            self.apply(.liveEdge(rung: rung, playlist: m))
        }
    }

    /// A player that stopped at the end of what it had because its origin failed (live: FFmpeg gives up reloading the playlist
    /// and never tries again; VOD: it skipped the segments that failed up to the end) is reloaded as soon as the origin answers —
    /// live at the playhead's moment, or the live edge if that moment left the window; VOD where it stopped. Tried once a second
    /// while the stall lasts.
    func recoverIfStopped() {
        let s = snapshot
        guard s.started, !s.ended, s.error == nil, let stall = s.currentStall, s.eofSince != nil,
            let rung = s.loadedRung, let f = fetched.withLockedValue({ $0 })
        else { return }
        let now = self.t
        let due = recovery.withLockedValue { last -> Bool in
            guard now - (last ?? -10) >= 1 else { return false }
            last = now
            return true
        }
        guard due, now - stall.start >= 1 else { return }
        tasks.spawn { [weak self] in
            guard let self, let m = await self.loader.refresh(f, rung: rung) else { return }
            let (msn, how) = self.state.withLockedValue { $0.resumePoint(in: m) }
            guard self.snapshot.currentStall != nil, !self.loading.withLockedValue({ $0 }) else { return }
            self.apply(.liveEdge(rung: rung, playlist: m))
            self.load(rung: rung, startMSN: msn)
            try? self.mpv.set(.pause(false))
            self.say(
                .info,
                "the origin answers again after \(fixed(self.t - stall.start, 1)) s stalled (\(stall.cause ?? "no cause seen")): reloaded \(how)"
            )
        }
    }

    /// One watcher step: a pending boundary reload, an fMP4 discontinuity or an unfillable GAP run at the playhead.
    func watch() {
        refreshLiveWindow()
        recoverIfStopped()
        guard !loading.withLockedValue({ $0 }), let t = mpv.get(.timePos) else { return }
        let end = atEnd()
        guard let decision = state.withLockedValue({ $0.watch(at: t, atEnd: end) }) else { return }
        switch decision {
        case .reloadForSwitch(let rung, let msn):
            load(rung: rung, startMSN: msn)
            apply(.log(level: .info, text: "reloaded at the boundary of msn \(msn)"))
        case .crossDiscontinuity(let msn):
            // FFmpeg 5.1 stalls for good where an fMP4 stream's timestamps restart: a fresh load there does not.
            reloadAtBreak(startMSN: msn)
            apply(.log(level: .info, text: "fMP4 discontinuity at msn \(msn): reloaded there (FFmpeg 5.1 stalls on fMP4 timestamp resets)"))
        case .crossGap(let g):
            // The player's playlist ends before the run (so FFmpeg never sees the hole that would freeze video and desync audio,
            // docs/PLATFORM.md); at that boundary the playlist is reloaded from the first segment after the run.
            let rung = snapshot.loadedRung ?? 0
            reloadAtBreak(startMSN: g.after)
            let text =
                "crossed GAP msn \(g.first)–\(g.after - 1) (\(fixed(g.duration, 1)) s, no rung has media): reloaded at msn \(g.after)"
            apply(.log(level: .info, text: text))
            let pdt = snapshot.playingMedia?.segments.first { $0.mediaSequence == g.first }?.effectiveProgramDateTime
            output(
                self, .fact(.gap(rung: rung, msn: g.first, pdt: pdt, duration: g.duration, action: "crossed: reloaded at msn \(g.after)")))
        }
    }

    /// True when the player stopped at the end of what it was given (the Loader ended its playlist before a break).
    func atEnd() -> Bool { mpv.get(.eofReached) ?? false }

    /// Reloads the rung loaded from `startMSN` after a break (GAP run, fMP4 discontinuity); playing on if the end had paused it.
    func reloadAtBreak(startMSN: Int) {
        let pausedByEnd = atEnd() && (mpv.get(.pause) ?? false)
        load(rung: snapshot.loadedRung ?? 0, startMSN: startMSN)
        if pausedByEnd { try? mpv.set(.pause(false)) }
    }
}
