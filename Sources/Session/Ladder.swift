import HLS

/// One variant of the multivariant playlist as the dashboard and the controllers see it.
public struct Rung: Sendable, Equatable {
    public var index: Int
    public var variant: Variant
    /// Lint findings on this variant's line, short (e.g. "hev1").
    public var marks: [String]

    public var height: Int? { variant.resolution?.height }
    public var bandwidth: Int { variant.bandwidth ?? 0 }

    /// A short name: "720p 2.5M" or "audio 128k".
    public var name: String {
        let rate = Rung.rate(bandwidth)
        if let h = height { return "\(h)p \(rate)" }
        return "#\(index) \(rate)"
    }

    /// Bits per second as "2.5M" / "800k".
    public static func rate(_ bps: Int) -> String {
        if bps >= 1_000_000 {
            let m = Double(bps) / 1_000_000
            if m >= 10 { return "\(Int(m.rounded()))M" }
            let tenths = Int((m * 10).rounded())
            return tenths % 10 == 0 ? "\(tenths / 10)M" : "\(tenths / 10).\(tenths % 10)M"
        }
        return "\(Int((Double(bps) / 1000).rounded()))k"
    }
}

/// The ladder: variants, renditions and I-frame variants of one multivariant playlist (or one rung for a media playlist).
public struct Ladder: Sendable, Equatable {
    public var rungs: [Rung] = []
    public var iFrames: [Variant] = []
    public var renditions: [Rendition] = []
    /// True when the stream was opened from a media playlist (one implicit rung).
    public var single = false
    /// A progressive file (MP4) played without a playlist: one rung, the file.
    public var file = false

    public init() {}

    /// The ladder of a parsed playlist, with each variant's lint marks.
    public init(_ playlist: Playlist) {
        switch playlist.body {
        case .media:
            var v = Variant(uri: "", bandwidth: nil)
            v.line = SourceLine(0)
            rungs = [Rung(index: 0, variant: v, marks: [])]
            single = true
        case .multivariant(let m):
            let lint = Lint.check(playlist)
            rungs = m.variants.enumerated().map { i, v in
                let marks = lint.filter { $0.line == v.line.number && $0.line != nil }.map { Ladder.mark($0.message) }
                return Rung(index: i, variant: v, marks: marks)
            }
            iFrames = m.iFrameVariants
            renditions = m.renditions
        }
    }

    /// The ladder with the variants `m` lists after its own (a steering manifest's clones, appended by
    /// `PathwayClone.expand`): existing rungs keep their index; the renditions become `m`'s.
    public mutating func grow(_ m: MultivariantPlaylist) {
        guard !single, !file else { return }
        for (i, v) in m.variants.enumerated() where i >= rungs.count { rungs.append(Rung(index: i, variant: v, marks: [])) }
        renditions = m.renditions
    }

    /// A lint message shortened to a mark: the quoted codec when there is one, else its first words.
    static func mark(_ message: String) -> String {
        for c in ["hev1", "dvhe"] where message.contains(c) { return c }
        if message.contains("CODECS") { return "no CODECS" }
        if message.contains("RESOLUTION") { return "no RESOLUTION" }
        if message.contains("AVERAGE-BANDWIDTH") { return "avg>peak" }
        return String(message.split(separator: " ").prefix(3).joined(separator: " "))
    }

    /// The distinct heights of the ladder, lowest first.
    public var heights: [Int] { Array(Set(rungs.compactMap(\.height))).sorted() }

    /// The distinct bandwidths of the ladder, lowest first.
    public var bandwidths: [Int] { Array(Set(rungs.map(\.bandwidth))).sorted() }
}

/// A limit on what may play: AVPlayer's `preferredMaximumResolution` (a height) and `preferredPeakBitRate`.
public struct Caps: Sendable, Equatable {
    public var maxHeight: Int?
    public var maxBitrate: Int?
    /// The server's maximum suggested bitrate (CMSD `mb`, CTA-5006), followed with `--cmsd-cap` (docs/CMCD.md).
    public var serverMaxBitrate: Int?
    public init(maxHeight: Int? = nil, maxBitrate: Int? = nil) {
        self.maxHeight = maxHeight
        self.maxBitrate = maxBitrate
    }

    /// True when `rung` is within every cap (a rung without RESOLUTION passes the height cap).
    public func admits(_ rung: Rung) -> Bool {
        if let h = maxHeight, let rh = rung.height, rh > h { return false }
        if let b = maxBitrate, rung.bandwidth > b { return false }
        if let b = serverMaxBitrate, rung.bandwidth > b { return false }
        return true
    }

    /// The rungs that may play: those within the caps, or the lowest rung when the caps exclude every rung (AVPlayer's rule).
    public func allowed(_ ladder: Ladder) -> [Int] {
        let inside = ladder.rungs.filter(admits).map(\.index)
        if !inside.isEmpty || ladder.rungs.isEmpty { return inside }
        let lowest = ladder.rungs.min { ($0.height ?? 0, $0.bandwidth) < ($1.height ?? 0, $1.bandwidth) }!
        return [lowest.index]
    }

    /// The next lower height cap (from no cap: just below the top height; never below the lowest height).
    public func heightDown(_ ladder: Ladder) -> Int? {
        let hs = ladder.heights
        guard let top = hs.last else { return maxHeight }
        guard let cur = maxHeight else { return hs.count > 1 ? hs[hs.count - 2] : top }
        return hs.last { $0 < cur } ?? hs.first
    }

    /// The next higher height cap; above the top height the cap is lifted (nil).
    public func heightUp(_ ladder: Ladder) -> Int? {
        guard let cur = maxHeight else { return nil }
        let hs = ladder.heights
        guard let next = hs.first(where: { $0 > cur }), next != hs.last else { return nil }
        return next
    }

    /// The next lower bitrate cap through the ladder's bandwidths.
    public func bitrateDown(_ ladder: Ladder) -> Int? {
        let bs = ladder.bandwidths
        guard let cur = maxBitrate else { return bs.count > 1 ? bs[bs.count - 2] : bs.last }
        return bs.last { $0 < cur } ?? bs.first
    }

    /// The next higher bitrate cap; above the top the cap is lifted.
    public func bitrateUp(_ ladder: Ladder) -> Int? {
        guard let cur = maxBitrate else { return nil }
        let bs = ladder.bandwidths
        guard let next = bs.first(where: { $0 > cur }), next != bs.last else { return nil }
        return next
    }

    /// "≤720p ≤2.5M", or "none".
    public var description: String {
        var parts: [String] = []
        if let h = maxHeight { parts.append("≤\(h)p") }
        if let b = maxBitrate { parts.append("≤" + Rung.rate(b) + "bps") }
        if let b = serverMaxBitrate { parts.append("CMSD≤" + Rung.rate(b) + "bps") }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }
}

/// Who chooses the rung: the user (pinned) or hlstui (automatic).
public enum SelectionMode: Sendable, Equatable {
    case automatic
    case pinned(Int)
}

/// Which rung should play, given the mode, the caps and the measured throughput.
public enum VariantPolicy {
    /// The rung to play. Pinned: the pin when the caps allow it, else the highest allowed rung (the cap wins; the pin resumes when the cap lifts).
    /// Automatic: among `candidates` (default: the allowed rungs; the session passes ABR's, same codecs as the rung loaded), the highest
    /// whose BANDWIDTH fits ABR's up share of the measured throughput; before any measurement, the first listed allowed variant
    /// (RFC 8216bis §4.3.4.2: the first variant is the client's start).
    public static func target(
        _ ladder: Ladder, mode: SelectionMode, caps: Caps, throughput: Double?, candidates: [Int]? = nil,
        config: AbrConfig = AbrConfig()
    ) -> Int? {
        let allowed = caps.allowed(ladder)
        guard !allowed.isEmpty else { return nil }
        switch mode {
        case .pinned(let i):
            if allowed.contains(i) { return i }
            return allowed.max { ladder.rungs[$0].bandwidth < ladder.rungs[$1].bandwidth }
        case .automatic:
            guard let bps = throughput else { return allowed.first }
            let pool = (candidates ?? allowed).filter { allowed.contains($0) }
            let byRate = (pool.isEmpty ? allowed : pool).sorted { ladder.rungs[$0].bandwidth < ladder.rungs[$1].bandwidth }
            return byRate.last { Double(ladder.rungs[$0].bandwidth) <= config.upFactor * bps } ?? byRate.first
        }
    }
}
