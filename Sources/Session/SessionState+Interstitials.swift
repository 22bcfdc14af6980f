import HLS
import LoaderEvents

/// What comes back to the Session of an interstitial's reads (`PaneEffect.fetchAssetList`, `.openAsset`, `.loadAsset`).
public enum InterstitialInput: Sendable {
    /// The X-ASSET-LIST of interstitial `id` answered, or could not be read.
    case listAnswered(id: String, Result<AssetList, AssetListError>)
    /// The asset's playlist was read: the player may be given it.
    case assetOpened(Playlist)
    /// The asset at `uri` cannot be played: its playlist could not be read, or the player refused it.
    case assetFailed(uri: String, why: String)
}

/// Interstitials played in the pane (RFC 8216bis Appendix D; docs/EVENTS.md, "Interstitials played"): at its time the
/// primary leaves for the interstitial's assets, one after another through the Loader, and resumes where the RFC says —
/// START-DATE plus X-RESUME-OFFSET on VOD (the assets' own duration without it), the live moment on live. An asset that
/// fails is skipped with its cause; a list that fails or is empty plays nothing, said.
extension SessionState {
    /// How long an asset given to the player may take to show its first frame before it counts as failed.
    static let assetStartLimit = 10.0

    /// The interstitials the rung loaded schedules (the target rung's before the first load).
    var interstitialSchedule: [Interstitial] {
        (loadedRung.flatMap { media[$0] } ?? media[targetRung ?? 0] ?? media.values.first).map(Interstitial.schedule) ?? []
    }

    /// Not played yet, and with an asset to play.
    func playable(_ i: Interstitial) -> Bool { !interstitials.done.contains(i.id) && (i.assetURI != nil || i.assetList != nil) }

    /// The pre-roll (CUE=PRE) still to play before the primary, from the rung's first playlist.
    func preRoll(in m: MediaPlaylist?) -> Interstitial? {
        m.map(Interstitial.schedule)?.first { $0.cue.contains("PRE") && playable($0) }
    }

    /// The post-roll (CUE=POST) still to play once the primary ends.
    var postRoll: Interstitial? { interstitialSchedule.first { $0.cue.contains("POST") && playable($0) } }

    /// The interstitials that play at their START-DATE (not before or after the primary).
    var midRolls: [Interstitial] { interstitialSchedule.filter { !$0.cue.contains("PRE") && !$0.cue.contains("POST") } }

    /// The segment boundary of the rung loaded nearest `date` (X-SNAP, RFC 8216bis Appendix D); `date` itself without one.
    func nearestBoundary(_ date: DateTime) -> DateTime {
        let m = loadedRung.flatMap { media[$0] } ?? playingMedia
        let starts = m?.segments.compactMap(\.effectiveProgramDateTime) ?? []
        let ends = m?.segments.compactMap { s in s.effectiveProgramDateTime.map { $0.adding(seconds: s.duration) } } ?? []
        return (starts + ends).min { abs($0.seconds(since: date)) < abs($1.seconds(since: date)) } ?? date
    }

    /// Where the primary leaves for `i`: START-DATE, or with X-SNAP=OUT the segment boundary nearest it.
    func leaveDate(_ i: Interstitial) -> DateTime? {
        guard let start = i.startDate else { return nil }
        return i.snap.contains("OUT") ? nearestBoundary(start) : start
    }

    /// The interstitial the playhead has just come to, seen before its leaving point and now at or past it; notes the ones it
    /// is before.
    mutating func midRollDue() -> Interstitial? {
        guard started, !playerLoading, let at = playheadPDT else { return nil }
        var due: Interstitial?
        for i in midRolls where playable(i) {
            guard let leave = leaveDate(i) else { continue }
            if at.seconds(since: leave) < 0 {
                interstitials.approach(i.id)
            } else if due == nil, interstitials.approaching.contains(i.id) {
                due = i
            }
        }
        return due
    }

    /// A seek forward by `delta` passes the interstitials between the playhead and its target without playing them (one
    /// that restricts JUMP has been played first, `planJump`).
    mutating func passInterstitials(seekingBy delta: Double) {
        guard delta > 0, let pos = position, let m = playingMedia, let from = playheadPDT,
            let to = Timeline.programDateTime(at: min(pos + delta, m.totalDuration), in: m)
        else { return }
        let ids = midRolls.filter { i in
            leaveDate(i).map { $0.seconds(since: from) > 0 && to.seconds(since: $0) >= 0 } ?? false
        }.map(\.id)
        interstitials.pass(Set(ids))
    }

    /// A seek forward by `delta` past an interstitial that restricts JUMP (RFC 8216bis Appendix D, X-RESTRICT): the last one
    /// it passes plays first, then the primary goes on at the seek's target. Nil when the seek passes none.
    mutating func planJump(by delta: Double, at t: Double) -> PanePlan? {
        guard delta > 0, interstitials.run == nil, let pos = position, let m = playingMedia, let from = playheadPDT else { return nil }
        let target = min(max(0, pos + delta), max(0, m.totalDuration - 0.5))
        guard let to = Timeline.programDateTime(at: target, in: m),
            let i = interstitialSchedule.last(where: { i in
                guard let start = i.startDate, i.restrict.contains("JUMP"), playable(i), !i.cue.contains("PRE"), !i.cue.contains("POST")
                else { return false }
                return start.seconds(since: from) > 0 && to.seconds(since: start) >= 0
            })
        else { return nil }
        var plan = beginInterstitial(i, resume: .at(to), when: "mid", at: t)
        plan.said.append((.info, "seek past interstitial \(i.id) (X-RESTRICT JUMP): it plays first, then the seek's target"))
        return plan
    }

    /// A seek by `delta`: the interstitials it passes forward are not played, those it goes back before may play again.
    /// No effects of its own (the seek's follow).
    mutating func interstitialsSeek(by delta: Double, at t: Double) -> [PaneEffect] {
        passInterstitials(seekingBy: delta)
        rearmInterstitials(seekingBy: delta)
        return []
    }

    /// A seek back by `delta` (negative) before interstitials already played: those without CUE=ONCE play again when the
    /// playhead reaches them (RFC 8216bis §4.4.5.1, CUE: ONCE triggers once; the others each time it is crossed).
    mutating func rearmInterstitials(seekingBy delta: Double) {
        guard delta < 0, let pos = position, let m = playingMedia, let to = Timeline.programDateTime(at: max(0, pos + delta), in: m)
        else { return }
        let ids = Set(
            midRolls.filter { i in
                guard let leave = leaveDate(i), interstitials.done.contains(i.id) else { return false }
                // Played with CUE=ONCE: never again; passed by a seek: it was never played.
                guard !(i.cue.contains("ONCE") && interstitials.played.contains(i.id)) else { return false }
                return leave.seconds(since: to) > 0
            }.map(\.id))
        guard !ids.isEmpty else { return }
        interstitials.rearm(ids)
        breaks.rearm(ids)
    }

    /// The primary leaves for `i`: held still, and its list read or its asset opened.
    mutating func beginInterstitial(_ i: Interstitial, resume: InterstitialPlay.Resume, when: String, at t: Double) -> PanePlan {
        interstitials.begin(i, resume: resume, at: t)
        var plan = PanePlan()
        plan.facts = [.interstitial(.began(id: i.id, when: when))]
        let restricted = i.restrict.isEmpty ? "" : " (X-RESTRICT \(i.restrict.sorted().joined(separator: ",")))"
        note(.info, "interstitial \(i.id) (\(when)-roll): the primary leaves for it\(restricted)", t)
        // The primary stands still at its moment while the list is read (a slow list must not play the primary on).
        plan.effects = when == "mid" ? [.holdStill(byHLSTUI: !userPaused)] : []
        if let list = i.assetList {
            // Joined past its start (live): the list is asked for what is left (Appendix D.2, `_HLS_start_offset`).
            let late = i.startDate.flatMap { s in playheadPDT.map { $0.seconds(since: s) } } ?? 0
            plan.effects.append(.fetchAssetList(id: i.id, uri: list, startOffset: late > 0.5 ? late : nil))
        } else if let uri = i.assetURI {
            plan.facts.append(.interstitial(.asset(id: i.id, index: 0, count: 1, uri: uri)))
            plan.effects.append(.openAsset(uri: uri))
        }
        return plan
    }

    /// What the pane's interstitial reads brought back.
    mutating func interstitial(_ input: InterstitialInput, at t: Double) -> PanePlan {
        guard let run = interstitials.run else { return PanePlan() }
        let id = run.interstitial.id
        switch input {
        case .listAnswered(let listID, let result):
            guard listID == id, run.assets == nil else { return PanePlan() }
            switch result {
            case .failure(let e):
                return finishInterstitial(said: (.warn, "interstitial \(id): its X-ASSET-LIST \(e.description): nothing plays"), at: t)
            case .success(let list):
                let assets = Self.withinLimit(list.assets, limit: run.interstitial.playoutLimit)
                interstitials.listed(assets)
                var plan = PanePlan()
                plan.facts = [.interstitial(.listed(id: id, assets: assets.count, seconds: assets.reduce(0) { $0 + $1.duration }))]
                guard let first = assets.first else {
                    return finishInterstitial(
                        said: (.info, "interstitial \(id): its asset list is empty: nothing plays"), at: t, before: plan)
                }
                plan.facts.append(.interstitial(.asset(id: id, index: 0, count: assets.count, uri: first.uri)))
                plan.effects = [.openAsset(uri: first.uri)]
                return plan
            }
        case .assetOpened(let playlist):
            let ladder = Ladder(playlist)
            let variant = Self.assetVariant(ladder, like: loadedRung.flatMap { self.ladder.rungs[safe: $0] })
            interstitials.opened(ladder, variant: variant)
            var plan = PanePlan()
            plan.effects = [.loadAsset(variant: variant), .letGo(play: !userPaused)]
            plan.effects.append(.after(ms: Int(Self.assetStartLimit * 1000), .assetStart(index: run.index)))
            return plan
        case .assetFailed(let uri, let why):
            return nextAsset(failed: why.hasPrefix(uri) ? why : "\(uri): \(why)", at: t)
        }
    }

    /// The asset's variant the player is given: the highest whose BANDWIDTH is within the primary rung's, else the lowest
    /// (nil: the asset is a media playlist, or the player picks).
    static func assetVariant(_ asset: Ladder, like rung: Rung?) -> Int? {
        guard !asset.single, !asset.rungs.isEmpty else { return nil }
        let by = asset.rungs.indices.sorted { (asset.rungs[$0].variant.bandwidth ?? 0) < (asset.rungs[$1].variant.bandwidth ?? 0) }
        guard let cap = rung?.variant.bandwidth else { return by.first }
        return by.last { (asset.rungs[$0].variant.bandwidth ?? 0) <= cap } ?? by.first
    }

    /// X-PLAYOUT-LIMIT applied to a list: the assets that start within it (the last one is cut as it plays).
    static func withinLimit(_ assets: [AssetList.Asset], limit: Double?) -> [AssetList.Asset] {
        guard let limit else { return assets }
        var start = 0.0
        return assets.filter { a in
            defer { start += a.duration }
            return start < limit
        }
    }

    /// The asset playing is over — ended, failed (`failed`: its cause) — and the next one plays, or the primary resumes.
    mutating func nextAsset(failed: String? = nil, at t: Double) -> PanePlan {
        guard let run = interstitials.run else { return PanePlan() }
        let id = run.interstitial.id
        var plan = PanePlan()
        if let failed {
            plan.facts.append(.interstitial(.assetFailed(id: id, index: run.index, uri: run.asset?.uri ?? "", why: failed)))
            let line = "interstitial \(id): asset \(run.index + 1) skipped: \(failed)"
            note(.warn, line, t)
            problem = line
        } else if run.assetStarted != nil {
            plan.facts.append(.interstitial(.assetEnded(id: id, index: run.index, seconds: max(0, run.position ?? 0))))
        }
        guard let next = interstitials.next(failed: failed) else { return finishInterstitial(at: t, before: plan) }
        let count = interstitials.run?.assets?.count ?? 1
        plan.facts.append(.interstitial(.asset(id: id, index: run.index + 1, count: count, uri: next.uri)))
        plan.effects = [.openAsset(uri: next.uri)]
        return plan
    }

    /// The interstitial is over: the primary resumes (VOD: START-DATE plus the resumption offset; live: the live moment), starts
    /// (a pre-roll) or ends (a post-roll).
    mutating func finishInterstitial(
        said: (level: LogLevel, text: String)? = nil, at t: Double, before: PanePlan = PanePlan()
    ) -> PanePlan {
        guard let current = interstitials.run else { return before }
        if case .live = current.resume, !current.resuming {
            // The primary's playlist was not read while the asset played: read now, the resumption follows its answer (or,
            // without one, the playlist known).
            interstitials.resuming()
            if let said { note(said.level, said.text, t) }
            var plan = before
            plan.effects += [.refresh(rung: loadedRung ?? 0, purpose: .resume), .after(ms: 3000, .resumeUnread)]
            return plan
        }
        guard let run = interstitials.finish() else { return before }
        var plan = PanePlan()
        let id = run.interstitial.id
        let played = run.elapsed
        var at: String
        switch run.resume {
        case .firstLoad(let m, let multivariant, let partsGiven):
            plan = planFirstLoad(media: m, multivariant: multivariant, partsGiven: partsGiven, at: t)
            at = "start"
        case .end:
            playback.reachedEnd()
            plan.facts = [.ended]
            at = "end"
        case .vod(let start):
            // No X-RESUME-OFFSET: the resumption offset is the interstitial's duration (Appendix D), what its assets played.
            // X-SNAP=IN: the segment boundary nearest the resumption point.
            let due = start.adding(seconds: run.interstitial.resumeOffset ?? played)
            let date = run.interstitial.snap.contains("IN") ? nearestBoundary(due) : due
            plan.effects = resumeVOD(at: date, at: t)
            at = date.iso8601
        case .at(let date):
            plan.effects = resumeVOD(at: date, at: t)
            at = date.iso8601
        case .live(let moment, let since):
            let due = moment.adding(seconds: t - since)
            let date = run.interstitial.snap.contains("IN") ? nearestBoundary(due) : due
            skipWatch.moveRequested()
            plan.effects =
                planRealign(to: date, readAt: t, purpose: "interstitial \(id) over", at: t) ?? [.load(rung: loadedRung ?? 0, startMSN: nil)]
            at = date.iso8601
        }
        // The player paused itself at the asset's end (keep-open): the primary plays unless the user paused; a plan that holds
        // the player for a seek holds it after this.
        if at != "end" { plan.effects.insert(.letGo(play: !userPaused), at: 0) }
        plan.facts.insert(.interstitial(.resumed(id: id, played: played, at: at)), at: 0)
        plan.facts = before.facts + plan.facts
        plan.effects = before.effects + plan.effects
        if let said { note(said.level, said.text, t) }
        let failed = run.failed.isEmpty ? "" : ", \(run.failed.count) asset(s) skipped"
        note(
            .info, "interstitial \(id) over after \(fixed(played, 1)) s\(failed): the primary \(at == "end" ? "ends" : "resumes at \(at)")",
            t)
        return plan
    }

    /// VOD: the primary given again from the segment holding `date`, and the playhead put there (nothing of the primary is
    /// skipped that the resumption offset does not skip); at that segment's start when its timestamps are not known yet.
    mutating func resumeVOD(at date: DateTime, at t: Double) -> [PaneEffect] {
        let rung = loadedRung ?? 0
        skipWatch.moveRequested()
        guard let m = media[rung] ?? playingMedia, let pt = Timeline.playlistTime(at: date, in: m),
            let i = Timeline.segmentIndex(at: pt, in: m)
        else { return [.load(rung: rung, startMSN: nil)] }
        let msn = m.segments[i].mediaSequence
        if let raw = rawTime(of: date, from: msn) { return planReload(rung: rung, msn: msn, to: .raw(raw), at: t) }
        return [.load(rung: rung, startMSN: msn)]
    }

    /// The inputs an interstitial in play takes instead of the primary: the player's samples, first frame and end are the
    /// asset's; the Loader's requests and keys are shown (the asset's own), its playlists and segment timings are not the
    /// primary's; the primary's own reads, moves and switches wait. Nil: the input goes its usual way.
    mutating func duringInterstitial(_ input: SessionInput, at t: Double) -> PanePlan? {
        guard let run = interstitials.run else { return nil }
        var plan = PanePlan()
        switch input {
        case .interstitial, .refreshed(_, _, .resume, _): return nil
        case .timer(.resumeUnread, _):
            if run.resuming { return finishInterstitial(at: t) }
        case .event(let e):
            switch e {
            case .sample(let s):
                now = max(now, t)
                guard !run.resuming else { return plan }
                interstitials.sampled(position: s.timePos, width: s.width, height: s.height)
                // At the end of what it was given the player pauses there (keep-open, docs/PLATFORM.md): the asset is over.
                if s.eof, run.assetStarted != nil { return nextAsset(at: t) }
            case .playbackStarted:
                if run.ladder != nil { interstitials.assetStarted(at: t) }
            case .fileEnded(let reason, let err):
                // The primary's own end (its file replaced, or ended before the post-roll) comes before the asset is loaded.
                guard run.ladder != nil, !run.resuming else { return plan }
                if reason == .eof { return nextAsset(at: t) }
                if reason == .error { return nextAsset(failed: "the player: \(err ?? "playback failed")", at: t) }
            case .loader(let l):
                switch l {
                case .request, .key, .resume, .diagnostic: return nil
                default: break
                }
            case .frame, .liveEdge, .streamGiven, .audioGiven: break
            default: return nil
            }
        case .watch, .sampled, .serverCap:
            // X-PLAYOUT-LIMIT: at most that much of the interstitial plays.
            if let limit = run.interstitial.playoutLimit, run.elapsed >= limit, !run.resuming {
                return finishInterstitial(
                    said: (.info, "interstitial \(run.interstitial.id): X-PLAYOUT-LIMIT \(fixed(limit, 1)) s reached"), at: t)
            }
        case .timer(.assetStart(let index), _):
            if index == run.index, run.assetStarted == nil, run.ladder != nil || run.asset != nil, run.assets != nil {
                return nextAsset(failed: "no frame within \(Int(Self.assetStartLimit)) s", at: t)
            }
        case .action(let a, _, _):
            switch a {
            case .togglePause, .quit, .toggleSync, .syncReference: return nil
            default:
                let why =
                    run.interstitial.restrict.isEmpty ? "" : " (X-RESTRICT \(run.interstitial.restrict.sorted().joined(separator: ",")))"
                plan.said = [(.warn, "interstitial \(run.interstitial.id) plays\(why): \(a) waits until the primary resumes")]
            }
        case .realign: plan.refused = true
        case .refreshed, .recovered, .hold, .syncWait, .syncSpeed, .timer, .edgeRead, .firstLoad: break
        }
        return plan
    }
}
