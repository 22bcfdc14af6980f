import LoaderCore
import LoaderEvents
import Foundation
import HLS
import Loader
import MediaFormats
import Player
import Session

/// How the owner carries out the Session's effects on this platform (docs/PLATFORM.md; DECISIONS.md, rung switching).
extension PaneOwner {
    /// Carries out `effects` in order; says from which MSN a splice route takes effect, when one was routed, and whether the
    /// player refused a stream it was given.
    @discardableResult
    func run(_ effects: [PaneEffect]) -> (routedAt: Int?, refused: Bool) {
        var routedAt: Int?
        var refused = false
        for e in effects {
            switch e {
            case .load(let rung, let msn, let prewarmed): if !load(rung: rung, startMSN: msn, prewarmed: prewarmed) { refused = true }
            case .startAtEdge(let rung, let msn, let offset, let readAt, let holdFrom):
                // The playlist the start is planned on was read just now, by the Loader: the player's read of it is answered
                // from that read (`LoaderServer.reusable`), not read again (docs/PROXY.md).
                reloadInPlace(
                    rung: rung, msn: msn, to: .position(msn: msn, offset: offset, readAt: readAt), holdFrom: holdFrom, prewarmed: true)
            case .route(let rung, let fill): routedAt = loader.route(SpliceRoute(rung: rung, fill: fill))
            case .reread(let rung, let msn): reread(rung: rung, at: msn)
            case .reloadInPlace(let rung, let msn, let to): reloadInPlace(rung: rung, msn: msn, to: .raw(to))
            case .reloadAtMoment(let rung, let msn, let moment, let holdFrom, let readAt):
                let read = readAt ?? moveReadAt.map { Pane.seconds($0 - parts.started) } ?? t
                reloadInPlace(rung: rung, msn: msn, to: .moment(moment, msn: msn, readAt: read), holdFrom: holdFrom)
            case .prewarm(let rung):
                guard let f = fetched else { continue }
                let loader = self.loader
                spawn { _ = await loader.prewarmVariant(f, rung: rung) }
            case .refresh(let rung, let purpose):
                guard let f = fetched else { continue }
                ask { [loader] in await loader.refresh(f, rung: rung).map { .refreshed(rung: rung, $0, purpose) } }
            case .seekInCache(let d): try? mpv.command(.seekRelative(d))
            case .seekDemuxer(let d, let back):
                try? mpv.set(.hrSeekDemuxerOffset(back))
                try? mpv.command(.seekRelative(d))
                // mpv reads the offset when it carries the seek out on its own thread: it is reset once that has happened.
                after(300, .resetDemuxerOffset)
            case .hold(let seconds):
                // While held the player reads on, as far as the hold and its usual read-ahead: a live window slides on
                // meanwhile, and what is read now is not missed when it plays (DECISIONS.md, sync).
                readahead(parts.config.player.readahead + seconds)
                try? mpv.set(.pause(true))
                after(Int(seconds * 1000), .endHold)
            case .pause(let p): try? mpv.set(.pause(p))
            case .speed(let s): try? mpv.set(.speed(s))
            case .readSubtitles(let read):
                guard let f = fetched else { continue }
                ask { [loader] in await loader.answer(read, base: f.url) }
            case .closedCaptions(let on):
                captionsWanted = on
                try? mpv.set(.subtitleVisibility(on))
            case .seekAbsolute(let to, let back):
                if let back { try? mpv.set(.hrSeekDemuxerOffset(back)) }
                try? mpv.command(.seekAbsolute(to))
                // mpv reads the offset when it carries the seek out on its own thread: it is reset once that has happened.
                if back != nil { after(300, .resetDemuxerOffset) }
            case .after(let ms, let timer): after(ms, .session(timer))
            case .holdStill(let byHLSTUI):
                // Marked before the pause, so no sample reads a pause the user never asked for.
                holding = byHLSTUI
                try? mpv.set(.pause(true))
            case .seekableCache(let on): try? mpv.set(.demuxerSeekableCache(on))
            case .releaseSegments: loader.releaseSegments()
            case .readahead(let seconds): readahead(seconds)
            case .letGo(let play):
                if play { try? mpv.set(.pause(false)) }
                holding = false
            case .reloadSteering(let url, let pathway, let throughput):
                guard let f = fetched else { continue }
                // An in-line manifest (a data: SERVER-URI) is read as it is: its reloads go to its RELOAD-URI.
                let url =
                    DataURI.isData(url)
                    ? url : SteeringRequest.url(VirtualPlaylists.resolve(url, against: f.url), pathway: pathway, throughput: throughput)
                ask { [loader] in await .steered(loader.steering(url, base: f.url)) }
            }
        }
        return (routedAt, refused)
    }

    /// Gives the player `rung` (spliced or alone), starting at segment `startMSN` when given (a reload: no demuxer seek, so
    /// fMP4 works too).
    @discardableResult
    func load(rung: Int, startMSN: Int?, prewarmed: Bool = false) -> Bool {
        guard let f = fetched else { return false }
        let single = f.playlist.multivariant == nil
        var route: SpliceRoute?
        if case .route(let r, let fill)? = state.route(rung) { route = SpliceRoute(rung: r, fill: fill) }
        let presented = loader.present(
            f, variants: single ? nil : [rung], startMSN: startMSN, prewarmVariants: !prewarmed, splice: route,
            audio: state.audioPick(rung: route?.rung ?? rung)?.rendition, subtitles: false)
        do {
            let from = state.playerLoading ? nil : mpv.get(.timePos).map { ($0, DateTime(seconds: Date().timeIntervalSince1970)) }
            apply(.streamGiven(startMSN: startMSN, from: from))
            apply(.audioGiven(rung: route?.rung ?? rung))
            // Live: a reload starts at the first segment of the playlist the Loader serves (live_start_index=0), not three from
            // its end, so the playhead keeps its PDT.
            try? mpv.set(.demuxerLavfOptions(isLive ? "live_start_index=\(startMSN == nil ? -3 : 0)" : ""))
            try mpv.command(.loadfile(presented.playerURL))
            return true
        } catch {
            fail("the player refused the stream: \(error.description)", cause: "mpv")
            return false
        }
    }

    /// Makes the player re-read the segment under the playhead (`msn`) from the newly routed `rung` (splice+seek): the cache is
    /// made unseekable for one seek, so it goes to the demuxer; the Session checks the re-read (`SessionTimer.reread`).
    func reread(rung: Int, at msn: Int) {
        try? mpv.set(.demuxerSeekableCache(false))
        after(10, .session(.reread(rung: rung, msn: msn, attempt: 0)))
    }

    /// Immediate switch without a splice (VOD fMP4), or sync's move to a moment: reload at the target's segment paused, seek
    /// inside the fresh cache to the target (a cache seek, so FFmpeg 5.1 never seeks fMP4, and exact whoever packaged the
    /// stream), then play — the Session decides each look (`ReloadSeek`).
    /// `prewarmed`: the rung's playlist was just read (the start at a live edge): the Loader does not read it again.
    func reloadInPlace(rung: Int, msn: Int, to: ReloadSeek.Target, holdFrom: Int? = nil, prewarmed: Bool = false) {
        let wasPaused = state.userPaused
        // Marked before the pause, so no sample reads a pause the user never asked for.
        holding = !wasPaused
        try? mpv.set(.pause(true))
        guard load(rung: rung, startMSN: msn, prewarmed: prewarmed) else {
            holding = false
            return
        }
        // Set once the stream is presented (a presentation clears it), before the player can ask for a segment; bounded, so a
        // seek that never comes does not stall the pane.
        var step = ReloadSeek(to: to, rung: rung, wasPaused: wasPaused, heldFrom: holdFrom, deadline: t + ReloadSeek.limit)
        if let holdFrom {
            loader.holdSegments(from: holdFrom, seconds: 2)
            // The target lies up to the held segment's start past where the reload starts (two segments before it,
            // DECISIONS.md, sync): the player reads that far before the seek, past its usual read-ahead when segments are long.
            let usual = readaheadSeconds ?? parts.config.player.readahead
            if let end = state.programDateTime(StreamPoint(msn: holdFrom, offset: 0)),
                let start = state.programDateTime(StreamPoint(msn: msn, offset: 0)), end.seconds(since: start) + 1 > usual
            {
                step.readaheadBefore = usual
                readahead(end.seconds(since: start) + 1)
            }
        }
        after(5, .session(.reloadSeek(step)))
    }

    /// A look the Session asked for: the player's cache, whether it seeks and its position now, for the Session to decide on.
    func look(for timer: SessionTimer) { carry(state.reduce(.timer(timer, mpv.seekLook()), at: t)) }

    /// Reads `seconds` ahead of the playhead, within the pane's memory budget for that many seconds.
    func readahead(_ seconds: Double) {
        try? mpv.set(.readahead(seconds))
        try? mpv.set(.cacheSeconds(seconds))
        readaheadSeconds = seconds
        budget()
    }

    /// Caps what the player holds ahead and behind at the stream's peak bitrate (libmpv applies a change at once and prunes);
    /// nothing when the caps would not change.
    func budget() {
        let b = CacheBudget(
            readahead: readaheadSeconds ?? parts.config.player.readahead, backBuffer: parts.config.player.backBuffer,
            peakBitsPerSecond: state.budgetBitsPerSecond)
        guard b != budgetApplied else { return }
        budgetApplied = b
        do throws(MPVError) {
            try mpv.set(.demuxerMaxBytes(b.forwardBytes))
            try mpv.set(.demuxerMaxBackBytes(b.backBytes))
        } catch {
            say(.warn, "the player's cache bound could not be set: \(error)")
        }
    }

    func fire(_ timer: PaneTimer) {
        switch timer {
        case .resetDemuxerOffset: try? mpv.set(.hrSeekDemuxerOffset(0))
        case .endHold:
            if !state.userPaused { try? mpv.set(.pause(false)) }
            readahead(parts.config.player.readahead)
        case .session(let timer): look(for: timer)
        }
    }
}
