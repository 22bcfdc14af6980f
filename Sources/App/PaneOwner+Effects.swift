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
        for e in effects {
            switch e {
            case .load(let rung, let msn, let prewarmed):
                // A stream the player refused failed the pane: nothing after it is carried out.
                guard load(rung: rung, startMSN: msn, prewarmed: prewarmed) else { return (routedAt, true) }
            case .route(let rung, let fill): routedAt = loader.route(SpliceRoute(rung: rung, fill: fill))
            case .prewarm(let rung):
                guard let f = fetched else { continue }
                let loader = self.loader
                back.spawn { _ = await loader.prewarmVariant(f, rung: rung) }
            case .refresh(let rung, let purpose):
                guard let f = fetched else { continue }
                back.ask { [loader] in await loader.refresh(f, rung: rung).map { .refreshed(rung: rung, $0, purpose) } }
            case .seekInCache(let d): try? mpv.command(.seekRelative(d))
            case .seekDemuxer(let d, let aim):
                try? mpv.set(.hrSeekDemuxerOffset(aim))
                try? mpv.command(.seekRelative(d))
                // mpv reads the offset when it carries the seek out on its own thread: it is reset once that has happened.
                back.after(300, .timer(.resetDemuxerOffset))
            case .pause(let p): try? mpv.set(.pause(p))
            case .speed(let s): try? mpv.set(.speed(s))
            case .readSubtitles(let read):
                guard let f = fetched else { continue }
                back.ask { [loader] in await loader.answer(read, base: f.url) }
            // The Session notes it (`captionsOn`): each look reads the captions from then on.
            case .closedCaptions(let on): try? mpv.set(.subtitleVisibility(on))
            case .seekAbsolute(let to, let aim):
                if let aim { try? mpv.set(.hrSeekDemuxerOffset(aim)) }
                try? mpv.command(.seekAbsolute(to))
                // mpv reads the offset when it carries the seek out on its own thread: it is reset once that has happened.
                if aim != nil { back.after(300, .timer(.resetDemuxerOffset)) }
            case .after(let ms, let timer): back.after(ms, .timer(.session(timer)))
            // The Session marked the hold before this pause (`PlayerHold`): no sample reads a pause the user never asked for.
            case .holdStill: try? mpv.set(.pause(true))
            case .seekableCache(let on): try? mpv.set(.demuxerSeekableCache(on))
            case .holdSegments(let from, let seconds): loader.holdSegments(from: from, seconds: seconds)
            case .releaseSegments: loader.releaseSegments()
            case .readahead(let seconds): readahead(seconds)
            case .letGo(let play): if play { try? mpv.set(.pause(false)) }
            case .reloadSteering(let url, let pathway, let throughput):
                guard let f = fetched else { continue }
                // An in-line manifest (a data: SERVER-URI) is read as it is: its reloads go to its RELOAD-URI.
                let url =
                    DataURI.isData(url)
                    ? url : SteeringRequest.url(VirtualPlaylists.resolve(url, against: f.url), pathway: pathway, throughput: throughput)
                back.ask { [loader] in await .steered(loader.steering(url, base: f.url)) }
            case .fetchAssetList(let id, let uri, let offset):
                let url = interstitialURL(uri)
                back.ask { [loader, primaryID] in
                    .interstitial(.listAnswered(id: id, await loader.assetList(url, primaryID: primaryID, startOffset: offset)))
                }
            case .openAsset(let uri):
                let url = interstitialURL(uri)
                back.ask { [loader] in
                    do throws(UpstreamError) { return .assetFetched(try await loader.fetchTop(url)) } catch {
                        return .interstitial(.assetFailed(uri: url, why: error.description))
                    }
                }
            case .loadAsset(let variant):
                guard loadAsset(variant: variant) else { return (routedAt, true) }
            }
        }
        return (routedAt, false)
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
            apply(.failed(message: "the player refused the stream: \(error.description)", cause: "mpv"))
            return false
        }
    }

    /// An interstitial's asset or list, as its date range or list writes it, resolved against the media playlist that
    /// schedules it (the rung loaded; a list's URIs are already resolved against the list).
    func interstitialURL(_ uri: String) -> String {
        guard let f = fetched else { return uri }
        let rung = state.loadedRung ?? state.targetRung ?? 0
        let media = f.playlist.multivariant.flatMap { $0.variants[safe: rung] }.map { VirtualPlaylists.resolve($0.uri, against: f.url) }
        return VirtualPlaylists.resolve(uri, against: media ?? f.url)
    }

    /// Gives the player the interstitial asset just opened (its variant `variant`, through the Loader as the primary is);
    /// false when the player refused it, which the Session takes as the asset failed.
    func loadAsset(variant: Int?) -> Bool {
        guard let a = asset else { return false }
        let presented = loader.present(a, variants: variant.map { [$0] }, subtitles: false)
        do {
            try? mpv.set(.demuxerLavfOptions(""))
            try mpv.command(.loadfile(presented.playerURL))
            return true
        } catch {
            carry(state.reduce(.interstitial(.assetFailed(uri: a.url, why: "the player refused it: \(error.description)")), at: t))
            return false
        }
    }

    /// A look the Session asked for: the player's cache, whether it seeks and its position now, for the Session to decide on.
    func look(for timer: SessionTimer) { carry(state.reduce(.timer(timer, mpv.seekLook()), at: t)) }

    /// Reads `seconds` ahead of the playhead, within the pane's memory budget for that many seconds.
    func readahead(_ seconds: Double) {
        try? mpv.set(.readahead(seconds))
        try? mpv.set(.cacheSeconds(seconds))
        budget(readahead: seconds)
    }

    /// Caps what the player holds ahead and behind at the stream's peak bitrate (libmpv applies a change at once and prunes);
    /// nothing when the caps would not change.
    func budget(readahead: Double? = nil) {
        let b = CacheBudget(
            readahead: readahead ?? state.playerHold.readahead, backBuffer: parts.config.player.backBuffer,
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
        case .session(let timer): look(for: timer)
        }
    }
}
