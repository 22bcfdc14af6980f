import CMCD
import HLS
import LoaderEvents

/// What the Loader reports, as the Session takes it in: requests, keys, playlists, first timestamps, failovers and GAPs.
extension SessionState {
    mutating func loader(_ e: LoaderEvent, at t: Double) -> [SessionFact] {
        switch e {
        case .request(let r): return request(r, at: t)
        case .key(let k):
            key(k, at: t)
            return []
        case .diagnostic(let d):
            problem = d
            if cause == nil { cause = d }
            note(.warn, d, t)
            return []
        case .firstPTS(let rung, let msn, let seconds):
            if rung != nil {
                clock.firstPTS[msn] = seconds
                clock.trim()
                switching.served(msn: msn, by: rung)
            }
            return []
        case .mediaStart(let rung, let msn, let video, let audio, let independent):
            guard let rung else { return [] }
            return segmentMedia(rung: rung, msn: msn, video: video, audio: audio, independent: independent, at: t)
        case .segmentStarted(let rung, let msn, _):
            ledger.started(msn: msn, rung: rung, at: t)
            return []
        case .failover(let msn, let failed, let by, let cause): return failover(msn: msn, failed: failed, by: by, cause: cause, at: t)
        case .recovered(let rung, let down, let cause):
            let name = ladder.rungs[safe: rung]?.name ?? "rung \(rung)"
            note(.info, "\(name) answers again after \(fixed(down, 1)) s (it failed with \(cause)): used again", t)
            return []
        case .reload(let r):
            lowLatency.add(r)
            return []
        case .timedMetadata(let m):
            metadata.add(m)
            return []
        case .captionData(let c):
            return noticeCaptions(in: closedCaptions.add(c), at: t)
        case .playerCMCD:
            // Another player's, through `hlstui proxy`: not this pane's.
            return []
        case .resume(let r):
            resumed(r, at: t)
            return []
        case .gapFilled(let msn, let gapRung, let by): return gapFilled(msn: msn, rung: gapRung, by: by, at: t)
        case .playlist(let p): return playlist(p, at: t)
        }
    }

    /// A request the Loader made: the request log and totals, the playhead's timing (first PTS, the rung of each segment),
    /// throughput, failures and GAPs.
    private mutating func request(_ r: RequestEvent, at t: Double) -> [SessionFact] {
        let arrived = ledger.record(r, at: t)
        if r.kind == .part { lowLatency.part(r) }
        if followsCMSD { followServer(r.cmsd, at: t) }
        // Only the variant's own segments time the playhead: renditions share MSNs but not always first PTS.
        if r.kind == .segment, let msn = r.msn, r.rung != nil {
            if let pts = r.firstPTS { clock.firstPTS[msn] = pts; clock.trim() }
            switching.served(msn: msn, by: r.rung)
            if arrived { notePeak(bytes: r.bytes, msn: msn) }
        }
        if let err = r.failure {
            let text = "\(r.kind.rawValue) \(r.msn.map { "\($0) " } ?? "")\(SessionState.shortName(r.url)): \(err)"
            lastFailure = (t, text)
            problem = text
            if cause == nil { cause = text }
            note(.warn, text, t)
        }
        if r.outcome == .gap, let msn = r.msn, reportGap(rung: r.rung ?? -1, msn: msn) {
            let m = r.rung.flatMap { media[$0] } ?? playingMedia
            let seg = m.flatMap { $0.segments[safe: msn - $0.mediaSequence] }
            return [
                .gap(
                    rung: r.rung, msn: msn, pdt: seg?.effectiveProgramDateTime, duration: seg?.duration ?? 0,
                    action: "answered locally, never requested")
            ]
        }
        // A rung's playlist or segment that failed upstream fails its pathway (docs/STEERING.md).
        if let err = r.failure, let rung = r.rung, !r.local, r.kind == .media || r.kind == .segment || r.kind == .initSection {
            return pathwayFailed(rung: rung, cause: err, at: t)
        }
        return []
    }

    /// A key the Loader fetched or failed.
    private mutating func key(_ k: KeyEvent, at t: Double) {
        ledger.key(k)
        if let err = k.error {
            problem = "key: \(err)"
            if cause == nil { cause = problem }
        }
        if let repair = k.repair { note(.warn, "key \(k.fingerprint ?? "?") repaired: \(repair)", t) }
    }

    /// A segment the Loader served from another rung (or from none) after its own rung failed it.
    private mutating func failover(msn: Int, failed: Int, by: Int?, cause: String, at t: Double) -> [SessionFact] {
        let rungs = ladder.rungs
        let name = { (r: Int) in rungs[safe: r]?.name ?? "rung \(r)" }
        if let by {
            note(.warn, "msn \(msn) of \(name(failed)) failed (\(cause)): served from \(name(by))", t)
        } else {
            note(.error, "msn \(msn) failed on every allowed rung (last: \(cause))", t)
        }
        lastFailure = (t, cause)
        let shown = by.map {
            [
                SessionFact.servedFrom(
                    VariantSwitch(t: t, from: failed, to: $0, reason: .failover, mechanism: .splice, atMSN: msn, detail: cause))
            ]
        }
        return pathwayFailed(rung: failed, cause: cause, at: t) + (shown ?? [])
    }

    /// A body that broke while the player read it: the player waits for the rest (a stall has this cause), and hears how it
    /// ended (DECISIONS.md, "A body that breaks is resumed").
    private mutating func resumed(_ r: ResumeEvent, at t: Double) {
        switch r.phase {
        case .broken:
            lastFailure = (t, r.text)
            note(.warn, r.text, t)
        case .resumed:
            note(.info, r.text, t)
        case .gaveUp:
            lastFailure = (t, r.text)
            problem = r.text
            if cause == nil { cause = r.text }
            note(.warn, r.text, t)
        }
    }

    /// A GAP of `rung` the Loader filled from rung `by`.
    private mutating func gapFilled(msn: Int, rung gapRung: Int, by: Int, at t: Double) -> [SessionFact] {
        let shown = SessionFact.servedFrom(VariantSwitch(t: t, from: gapRung, to: by, reason: .gap, mechanism: .splice, atMSN: msn))
        guard reportGap(rung: gapRung, msn: msn) else { return [shown] }
        let seg = media[gapRung].flatMap { $0.segments[safe: msn - $0.mediaSequence] }
        let name = ladder.rungs[safe: by]?.name ?? "rung \(by)"
        note(.info, "GAP msn \(msn) of rung \(gapRung): served from \(name)", t)
        return [
            .gap(
                rung: gapRung, msn: msn, pdt: seg?.effectiveProgramDateTime, duration: seg?.duration ?? 0,
                action: "served from rung \(by)"),
            shown,
        ]
    }

    /// A playlist the Loader read: held per rung (PDTs carried, the segment in progress counted), its continuity checked, the
    /// breaks followed, and the GAPs of the rung playing that no other rung fills.
    private mutating func playlist(_ p: PlaylistEvent, at t: Double) -> [SessionFact] {
        let violations = continuity(p, at: t)
        // A live reload keeps the PDT the last one gave (a tag only after discontinuities slides out of the window).
        // LL-HLS: the segment in progress counts as far as its parts are published (the player is given it as they come).
        let playlist = Timeline.carryingProgramDateTimes(p.playlist.withSegmentInProgress, from: p.rung.flatMap { media[$0] })
        if let rung = p.rung { media[rung] = playlist } else if let r = p.rendition { renditionMedia[r] = p.playlist }
        if p.rung != nil { remember(playlist) }
        if let rung = p.rung {
            liveEdges.seen(rung, playlist, at: now)
            liveEdges.read(rung, at: t)
        }
        if let rung = p.rung, rung == (loadedRung ?? 0) { breaks.update(playlist) }
        // GAPs of the rung playing that no other rung fills: reported once, as soon as the playlist shows them.
        guard let rung = p.rung, rung == (loadedRung ?? 0) else { return violations }
        return violations
            + p.playlist.segments.filter {
                $0.gap && isUnfillableGap($0.mediaSequence) && reportGap(rung: rung, msn: $0.mediaSequence)
            }
            .map {
                .gap(
                    rung: rung, msn: $0.mediaSequence, pdt: $0.effectiveProgramDateTime, duration: $0.duration,
                    action: "no allowed rung has media: the player's playlist ends before it and hlstui reloads after it")
            }
    }
}
