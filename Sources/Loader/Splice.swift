import Foundation
import HLS

/// Which rung serves the segments the player has not asked for yet, and which rungs may stand in for a GAP (DECISIONS.md, rung switching).
public struct SpliceRoute: Sendable, Equatable {
    public var rung: Int
    /// Rungs that may serve a GAP segment of `rung`, best first (the rungs the caps allow).
    public var fill: [Int]
    public init(rung: Int, fill: [Int]) {
        self.rung = rung
        self.fill = fill
    }
}

/// One rung's media playlist as the Loader last read it.
struct RungMedia: Sendable {
    var url: String
    var media: MediaPlaylist
    var read: Double

    /// The segment with media sequence number `msn`, if the playlist lists it.
    func segment(_ msn: Int) -> Segment? {
        let i = msn - media.mediaSequence
        return media.segments.indices.contains(i) && media.segments[i].mediaSequence == msn
            ? media.segments[i]
            : media.segments.first { $0.mediaSequence == msn }
    }
}

extension LoaderServer {
    /// Routes the segments the player has not asked for yet to `route.rung`; returns the first MSN the new rung will serve.
    @discardableResult
    public func route(_ route: SpliceRoute) -> Int? {
        let next = table.withLockedValue { t -> Int? in
            t.route = route
            return t.lastRequested["slot"].map { $0 + 1 }
        }
        // Read the new rung's playlist (and fetch its keys) before the player asks for its first segment.
        Task { _ = await rungMedia(route.rung, containing: nil) }
        return next
    }

    /// The Resource that serves segment `s` of the rung `rung` read from `base`: MSN, GAP, init section, key and IV.
    func segmentResource(_ s: Segment, base: String, rung: Int?, playlist: String) -> Resource {
        var rr = Resource(upstream: VirtualPlaylists.resolve(s.uri, against: base), kind: .segment, rung: rung)
        rr.msn = s.mediaSequence
        rr.gap = s.gap
        rr.initURL = s.map.map { VirtualPlaylists.resolve($0.uri, against: base) }
        rr.playlist = playlist
        rr.byteRange = s.byteRange
        if options.decryptAES, let k = s.keys.first(where: { $0.method == .aes128 && $0.system == .identity }), let uri = k.uri {
            var key = k
            key.uri = VirtualPlaylists.resolve(uri, against: base)
            rr.key = key
            rr.iv = KeyMaterial.iv(attribute: k.iv, mediaSequence: s.mediaSequence)
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
            return Resource(upstream: "slot", kind: .segment, rung: nil, msn: msn, gap: true, playlist: "slot")
        }
        var gapped = false
        var fallback: Resource?
        for r in [route.rung] + fillRungs {
            guard let rm = await rungMedia(r, containing: msn), let s = rm.segment(msn) else { continue }
            let res = segmentResource(s, base: rm.url, rung: r, playlist: "slot")
            if s.gap {
                if r == route.rung { gapped = true; fallback = res }
                continue
            }
            if r != route.rung && gapped { emit(.gapFilled(msn: msn, gapRung: route.rung, by: r)) }
            return res
        }
        // No allowed rung has media here: answer as a GAP (never fetched from the origin).
        return fallback ?? Resource(upstream: "slot", kind: .segment, rung: route.rung, msn: msn, gap: true, playlist: "slot")
    }
}

/// EXT-X-BYTERANGE sub-ranges served to the player as whole resources (RFC 8216bis §4.4.4.2): the upstream Range to ask for.
enum SubRange {
    /// The upstream `Range` header for sub-range `r` and the player's own range within it (nil: all of it); nil when the player's range does not fit.
    static func request(_ r: ByteRange, player: String?) -> (upstream: String, relative: ClosedRange<Int>?)? {
        guard r.length > 0 else { return nil }
        guard let player else { return ("bytes=\(r.offset)-\(r.offset + r.length - 1)", nil) }
        guard player.hasPrefix("bytes="), !player.contains(",") else { return nil }
        let spec = player.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let a: Int, b: Int
        if spec[0].isEmpty {
            guard let n = Int(spec[1]), n > 0 else { return nil }
            (a, b) = (max(0, r.length - n), r.length - 1)
        } else {
            guard let x = Int(spec[0]) else { return nil }
            guard spec[1].isEmpty || Int(spec[1]) != nil else { return nil }
            (a, b) = (x, spec[1].isEmpty ? r.length - 1 : min(Int(spec[1])!, r.length - 1))
        }
        guard a >= 0, a <= b else { return nil }
        return ("bytes=\(r.offset + a)-\(r.offset + b)", a...b)
    }
}
