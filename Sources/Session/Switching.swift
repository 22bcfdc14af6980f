import HLS

/// When a switch takes effect: after what is buffered (no stall), or now.
public enum SwitchMode: String, Sendable, CaseIterable {
    case smooth, immediate
}

/// How a switch is carried out on this platform (docs/PLATFORM.md, measured).
public enum SwitchMechanism: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The first stream given to the player.
    case load
    /// The first stream given to the player, a splice the Loader routes segment by segment.
    case loadSpliced = "load (spliced)"
    /// The next segment the player has not asked for comes from the new rung (TS rungs that share layout).
    case splice
    /// Splice, then `seek 0 relative+exact` so the player re-reads the current segment from the new rung (VOD).
    case spliceSeek = "splice+seek"
    /// Splice, then reload at the next segment boundary (live, where FFmpeg cannot seek).
    case spliceReload = "splice+reload@boundary"
    /// Reload a playlist that starts at the next segment boundary, without a demuxer seek (fMP4, or rungs that differ).
    case reloadBoundary = "reload@boundary"
    /// Reload at the current segment, then seek inside the fresh cache to the playhead (VOD fMP4, immediate).
    case reloadSeek = "reload+seek"

    /// As logs and `monitor` events spell it.
    public var description: String { rawValue }
}

/// Which mechanism a switch uses; pure.
public enum SwitchPlanner {
    /// The codec families of a variant ("avc1", "mp4a"), from CODECS; nil when CODECS is missing.
    public static func families(_ v: Variant) -> Set<String>? {
        guard v.codecs != nil else { return nil }
        return Set(v.codecList.map { String($0.split(separator: ".").first ?? "") })
    }

    /// True when a media playlist is MPEG-TS (no EXT-X-MAP and no fMP4 segment names).
    public static func isTS(_ m: MediaPlaylist) -> Bool { !m.isFragmentedMP4 }

    /// True when segments of `a` and `b` can follow each other in one TS stream: the same codec families, and the same audio
    /// and video groups — or, on another pathway, groups whose renditions stand for each other one for one
    /// (`RenditionCounterparts`; the Loader then reads the player's renditions from `b`'s pathway).
    public static func compatible(_ a: Rung, _ b: Rung, renditions: [Rendition] = []) -> Bool {
        guard families(a.variant) == families(b.variant) else { return false }
        func same(_ x: String?, _ y: String?, _ type: String) -> Bool {
            x == y || RenditionCounterparts.pairs(from: x, to: y, type: type, in: renditions) != nil
        }
        return same(a.variant.audio, b.variant.audio, "AUDIO") && same(a.variant.video, b.variant.video, "VIDEO")
    }

    /// The mechanism for a switch.
    public static func mechanism(spliced: Bool, compatible: Bool, live: Bool, mode: SwitchMode) -> SwitchMechanism {
        if spliced && compatible {
            switch mode {
            case .smooth: return .splice
            case .immediate: return live ? .spliceReload : .spliceSeek
            }
        }
        return mode == .immediate && !live ? .reloadSeek : .reloadBoundary
    }

    /// The rungs that may stand in for `rung` (GAP failover): allowed, compatible, best (highest bandwidth) first.
    public static func fill(for rung: Int, ladder: Ladder, allowed: [Int]) -> [Int] {
        guard let r = ladder.rungs[safe: rung] else { return [] }
        return allowed.filter { ladder.rungs[safe: $0].map { compatible(r, $0, renditions: ladder.renditions) } ?? false }
            .sorted { ladder.rungs[$0].bandwidth > ladder.rungs[$1].bandwidth }
    }
}

/// Tuning of the automatic rung choice.
public struct AbrConfig: Sendable, Equatable {
    /// A higher rung must fit in this share of the measured throughput (hls.js `abrBandWidthUpFactor`).
    public var upFactor = 0.7
    /// The rung playing stays while it fits in this share (hls.js `abrBandWidthFactor`); the gap to `upFactor` is the hysteresis.
    public var stayFactor = 0.95
    /// Seconds after a switch before switching up again.
    public var upInterval = 4.0
    /// Seconds of buffer below which hlstui does not switch up.
    public var upBuffer = 3.0
    public init() {}
}

/// What the automatic choice sees at one moment.
public struct AbrInput: Sendable {
    public var ladder: Ladder
    public var allowed: [Int]
    public var current: Int
    /// Bits per second (the lower of the fast and slow averages).
    public var estimate: Double?
    /// Seconds buffered ahead of the playhead.
    public var bufferAhead: Double?
    /// Seconds per segment (target duration).
    public var segmentDuration: Double
    /// The oldest segment download in progress: its rung and how long it has taken so far.
    public var inFlight: (rung: Int, msn: Int, elapsed: Double)?
    /// Seconds since the last switch.
    public var sinceSwitch: Double?
    public init(
        ladder: Ladder, allowed: [Int], current: Int, estimate: Double?, bufferAhead: Double?, segmentDuration: Double,
        inFlight: (rung: Int, msn: Int, elapsed: Double)? = nil, sinceSwitch: Double? = nil
    ) {
        self.ladder = ladder
        self.allowed = allowed
        self.current = current
        self.estimate = estimate
        self.bufferAhead = bufferAhead
        self.segmentDuration = segmentDuration
        self.inFlight = inFlight
        self.sinceSwitch = sinceSwitch
    }
}

/// The automatic rung choice: throughput (fast and slow moving averages) and buffer, with hysteresis; pure.
public enum Abr {
    /// The rung to switch to and why, or nil to stay.
    public static func decide(_ i: AbrInput, config c: AbrConfig = AbrConfig()) -> (rung: Int, reason: String)? {
        let rungs = i.ladder.rungs
        let byRate = i.allowed.filter { rungs.indices.contains($0) }.sorted { rungs[$0].bandwidth < rungs[$1].bandwidth }
        guard let lowest = byRate.first, rungs.indices.contains(i.current) else { return nil }
        let cur = rungs[i.current]
        func fit(_ share: Double, _ bps: Double) -> Int { byRate.last { Double(rungs[$0].bandwidth) <= share * bps } ?? lowest }
        // Emergency: a segment of the rung playing is taking longer than the buffer can wait, switch down before it ends.
        if let f = i.inFlight, f.rung == i.current, let ahead = i.bufferAhead, i.current != lowest {
            let expected = i.estimate.map { Double(cur.bandwidth) * i.segmentDuration / $0 } ?? i.segmentDuration
            if f.elapsed > max(0.5 * i.segmentDuration, 2 * expected), f.elapsed + 0.5 > ahead {
                // What the download achieved so far bounds the rate: at most one segment's worth in `elapsed` seconds.
                let achieved = Double(cur.bandwidth) * i.segmentDuration / f.elapsed
                let to = fit(c.stayFactor, achieved)
                if to != i.current && rungs[to].bandwidth < cur.bandwidth {
                    return (to, "segment \(f.msn) of \(cur.name) has taken \(fixed(f.elapsed, 1)) s with \(fixed(ahead, 1)) s buffered")
                }
            }
        }
        guard let bps = i.estimate else { return nil }
        let rate = Rung.rate(Int(bps))
        if Double(cur.bandwidth) > c.stayFactor * bps {
            let to = fit(c.stayFactor, bps)
            if to != i.current && rungs[to].bandwidth < cur.bandwidth { return (to, "\(cur.name) needs more than the measured \(rate)bps") }
            return nil
        }
        guard (i.sinceSwitch ?? .infinity) >= c.upInterval, (i.bufferAhead ?? 0) >= c.upBuffer else { return nil }
        let to = fit(c.upFactor, bps)
        if rungs[to].bandwidth > cur.bandwidth { return (to, "measured \(rate)bps fits \(rungs[to].name)") }
        return nil
    }
}
