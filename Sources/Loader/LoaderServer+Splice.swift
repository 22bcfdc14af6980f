import LoaderEvents
import Foundation
import HLS
import LoaderCore
import NIOConcurrencyHelpers

/// The splice: which rung serves each segment the player asks for (DECISIONS.md, rung switching).
extension LoaderServer {
    /// Routes the segments the player has not asked for yet to `route.rung`; returns the first MSN the new rung will serve.
    @discardableResult
    public func route(_ route: SpliceRoute) -> Int? {
        let (next, left) = table.withLockedValue { t -> (Int?, (rung: Int, cause: String)?) in
            let old = t.route?.rung
            t.route = route
            t.renditionRoute = Self.renditionRoute(t.presented, to: route.rung)
            // A route that leaves a failing rung (its pathway failed: the session moved it) says so once per outage, whichever
            // request met the failure first; a rung routed to again is said anew when it fails next.
            t.substituted.remove(route.rung)
            var left: (Int, String)?
            if let old, old != route.rung, let why = t.health.cause(old), t.substituted.insert(old).inserted { left = (old, why) }
            return (t.lastRequested[.splice].map { $0 + 1 }, left)
        }
        if let left {
            emit(.diagnostic("rung \(left.rung) failed (\(left.cause)): the splice reads rung \(route.rung)'s"))
        }
        // Read the new rung's playlist (and fetch its keys) before the player asks for its first segment.
        tasks.spawn { [self] in _ = await rungMedia(route.rung, containing: nil) }
        return next
    }

    /// Where the player's rendition playlists are read from while the splice routes to `rung`: each rendition of the
    /// presented variant's groups (audio, video, subtitles) maps to the one standing for it in `rung`'s group, when that is
    /// another group (another pathway's copy, `RenditionCounterparts`) with another URL. Empty for the same groups.
    static func renditionRoute(
        _ presented: (m: MultivariantPlaylist, base: String, variant: Int)?, to rung: Int
    ) -> [String: String] {
        guard let p = presented, p.m.variants.indices.contains(p.variant), p.m.variants.indices.contains(rung) else { return [:] }
        let (from, to) = (p.m.variants[p.variant], p.m.variants[rung])
        var out: [String: String] = [:]
        for (type, a, b) in [("AUDIO", from.audio, to.audio), ("VIDEO", from.video, to.video), ("SUBTITLES", from.subtitles, to.subtitles)]
        where a != b {
            for (x, y) in RenditionCounterparts.pairs(from: a, to: b, type: type, in: p.m.renditions) ?? [] {
                guard let xu = x.uri, let yu = y.uri else { continue }
                out[VirtualPlaylists.resolve(xu, against: p.base)] = VirtualPlaylists.resolve(yu, against: p.base)
            }
        }
        return out
    }

    /// The Resource that serves segment `s` of the rung `rung` read from `base`: MSN, GAP, init section, key and IV.
    func segmentResource(_ s: Segment, base: String, rung: Int?, playlist: PlaylistID) -> Resource {
        var rr = Resource(upstream: VirtualPlaylists.resolve(s.uri, against: base), kind: .segment, rung: rung)
        rr.msn = s.mediaSequence
        rr.gap = s.gap
        rr.initURL = s.map.map { VirtualPlaylists.resolve($0.uri, against: base) }
        rr.playlist = playlist
        rr.byteRange = s.byteRange
        rr.duration = s.duration
        if options.decryptAES, let (key, iv) = KeyMaterial.aes128(in: s.keys, base: base, mediaSequence: s.mediaSequence) {
            rr.key = key
            rr.iv = iv
        }
        return rr
    }

    /// Rung `rung`'s media playlist: the copy last read when it lists `msn` (or is complete), else read now (at most twice a second).
    func rungMedia(_ rung: Int, containing msn: Int?) async -> RungMedia? {
        let (cached, url) = table.withLockedValue { ($0.rungMedia[rung], $0.rungURLs[rung]) }
        if let c = cached, c.media.endList || (msn.map { c.segment($0) != nil } ?? false) || now - c.read < 0.5 { return c }
        guard let url else { return cached }
        let variables = table.withLockedValue { $0.variables }
        guard let m = await prewarm(url, rung: rung, variables: variables) else { return cached }
        let fresh = RungMedia(url: url, media: m, read: now)
        table.withLockedValue { $0.rungMedia[rung] = fresh }
        return fresh
    }

    /// The rungs that may fill a GAP of the routed rung, other than itself, best first.
    var fillRungs: [Int] {
        table.withLockedValue { t in t.route.map { r in r.fill.filter { $0 != r.rung } } ?? [] }
    }

    /// The spliced playlist with GAP cleared on every segment another allowed rung has media for (RFC 8216bis §4.4.4.7: play another variant that has no gap there).
    func unmarkFillableGaps(_ m: MediaPlaylist) async -> MediaPlaylist {
        guard m.segments.contains(where: \.gap) else { return m }
        var out = m
        var others: [RungMedia] = []
        for r in fillRungs {
            let wanted = m.segments.last { $0.gap }?.mediaSequence
            if let rm = await rungMedia(r, containing: wanted) { others.append(rm) }
        }
        for i in out.segments.indices where out.segments[i].gap {
            let msn = out.segments[i].mediaSequence
            if others.contains(where: { $0.segment(msn).map { !$0.gap } ?? false }) { out.segments[i].gap = false }
        }
        return out
    }

    /// What serves spliced segment `msn`: the routed rung's segment, or for a GAP the same segment of the best allowed rung with media.
    func resolveSlot(_ msn: Int) async -> Resource {
        guard let route = table.withLockedValue({ $0.route }) else {
            return Resource.spliceSegment(msn: msn, gap: true)
        }
        var gapped = false
        var fallback: Resource?
        for r in [route.rung] + fillRungs {
            guard let rm = await rungMedia(r, containing: msn), let s = rm.segment(msn) else { continue }
            let res = segmentResource(s, base: rm.url, rung: r, playlist: .splice)
            if s.gap {
                if r == route.rung { gapped = true; fallback = res }
                continue
            }
            if r != route.rung && gapped { emit(.gapFilled(msn: msn, gapRung: route.rung, by: r)) }
            return res
        }
        // No allowed rung has media here: answer as a GAP (never fetched from the origin).
        return fallback ?? Resource.spliceSegment(msn: msn, rung: route.rung, gap: true)
    }
}
