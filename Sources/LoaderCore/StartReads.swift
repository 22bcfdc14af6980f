import HLS
import LoaderEvents

/// What the Loader reads at start before the player asks for it (DECISIONS.md, "Start-up reads ahead"): the init section
/// and the first two segments the player will play, all at once, so the first frame waits for one round trip instead of
/// one per object. Pure: the Loader fetches what this returns.
public enum StartReads {
    /// One object to read ahead: its URL, what it is, the segment's MSN, and (segments) its duration and the next segment's
    /// URL, which CMCD says of it.
    public struct Read: Sendable, Equatable {
        public var url: String
        public var kind: ResourceKind
        public var msn: Int
        public var duration: Double? = nil
        public var next: String? = nil
        /// A part of the segment in progress: its index and byte range (`PartCursor.listed`).
        public var part: Int? = nil
        public var range: String? = nil
    }

    /// How many segments from the start: FFmpeg 5.1 reads the second before the first frame (measured on the origin's 2 s
    /// segments with 50 ms per answer: the first frame 33 ms after the second segment arrived).
    public static let segments = 2

    /// How many listed parts a segment in progress is read ahead of the one being written (`PartCursor.listed`).
    public static let partsAhead = 3

    /// The reads for a player given `m` (read from `base`) that starts at `startMSN` (nil: where FFmpeg starts — the first
    /// segment of a VOD, the third from the end of a live playlist, `live_start_index=-3`). None from the first segment that
    /// is a GAP, encrypted (its key decides how it is served) or a sub-range (EXT-X-BYTERANGE) on.
    /// LL-HLS (PART-TARGET): only for a start the session chose (PART-HOLD-BACK behind the last part), and only complete
    /// segments — the segment in progress is served part by part as its parts are published; a start inside it reads the
    /// init section and the parts listed so far (as many as the part-by-part body reads ahead, `PartCursor.listed`).
    /// Planned on the playlist as the player is given it: from the start MSN, and ended before a GAP or an fMP4 discontinuity
    /// (`VirtualPlaylists.endingBeforeBreak`) — an ended playlist, which FFmpeg plays from its first segment, live or not.
    public static func plan(_ upstream: MediaPlaylist, base: String, startMSN: Int?) -> [Read] {
        guard !upstream.segments.isEmpty else { return [] }
        if upstream.partTarget != nil {
            guard let s = startMSN else { return [] }
            if let inProgress = upstream.segmentInProgress, inProgress.mediaSequence == s {
                guard let map = inProgress.map, map.byteRange == nil, map.keys.allSatisfy({ $0.method == .none }),
                    inProgress.keys.allSatisfy({ $0.method == .none })
                else { return [] }
                let parts = PartCursor.listed(msn: s, after: -1, in: upstream, limit: partsAhead + 1).map {
                    Read(url: VirtualPlaylists.resolve($0.uri, against: base), kind: .part, msn: s, part: $0.part, range: $0.range)
                }
                return [Read(url: VirtualPlaylists.resolve(map.uri, against: base), kind: .initSection, msn: s)] + parts
            }
        }
        var m = upstream
        if let s = startMSN, s > m.mediaSequence, m.segments.contains(where: { $0.mediaSequence == s }) {
            m = VirtualPlaylists.starting(at: s, m)
        }
        m = VirtualPlaylists.endingBeforeBreak(m, after: startMSN)
        let first: Int
        if let s = startMSN {
            guard let i = m.segments.firstIndex(where: { $0.mediaSequence == s }) else { return [] }
            first = i
        } else {
            first = m.endList ? 0 : max(0, m.segments.count - 3)
        }
        var out: [Read] = []
        for (i, s) in m.segments.enumerated().dropFirst(first).prefix(segments) {
            guard !s.gap, s.byteRange == nil, s.keys.allSatisfy({ $0.method == .none }) else { break }
            if out.isEmpty, let map = s.map {
                guard map.byteRange == nil, map.keys.allSatisfy({ $0.method == .none }) else { break }
                out.append(Read(url: VirtualPlaylists.resolve(map.uri, against: base), kind: .initSection, msn: s.mediaSequence))
            }
            let next = i + 1 < m.segments.count ? VirtualPlaylists.resolve(m.segments[i + 1].uri, against: base) : nil
            out.append(
                Read(
                    url: VirtualPlaylists.resolve(s.uri, against: base), kind: .segment, msn: s.mediaSequence, duration: s.duration,
                    next: next))
        }
        return out
    }
}
