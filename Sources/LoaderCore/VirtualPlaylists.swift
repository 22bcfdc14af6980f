import Foundation
import HLS
import LoaderEvents

/// What a URI in a playlist points at: the absolute upstream URL, its kind, and for segments and init sections the segment and
/// the byte range (RFC 8216bis §4.4.4.2, §4.4.4.5) the Loader fetches — the player's playlist carries no EXT-X-BYTERANGE for them.
public struct Reference: Sendable {
    public var upstream: String
    public var kind: ResourceKind
    /// For segments, the segment; for init sections, the first segment that uses it.
    public var segment: Segment?
    public var byteRange: ByteRange?
    /// For init sections: the EXT-X-MAP, with the keys that apply to it.
    public var map: MapSection?
}

/// Builds the playlists the player is given: only what the session chose, every URI through the Loader (docs/ARCHITECTURE.md).
public struct VirtualPlaylists: Sendable {
    /// Maps what a URI points at to the URL the player should request (a proxy URL).
    public let name: @Sendable (Reference) -> String

    public init(reference name: @escaping @Sendable (Reference) -> String) {
        self.name = name
    }

    /// Naming by URL and kind alone.
    public init(name: @escaping @Sendable (_ upstream: String, _ kind: ResourceKind) -> String) {
        self.name = { name($0.upstream, $0.kind) }
    }

    func name(_ upstream: String, _ kind: ResourceKind) -> String { name(Reference(upstream: upstream, kind: kind)) }

    /// `ref` resolved against `base` (RFC 3986 §5), as the playlist's own URL.
    public static func resolve(_ ref: String, against base: String) -> String {
        URL(string: ref, relativeTo: URL(string: base))?.absoluteString ?? ref
    }

    /// The multivariant playlist with only `variants` (indexes) and the renditions their groups use; with `audio`, its AUDIO
    /// group holds that rendition alone, DEFAULT and AUTOSELECT, so the player plays it and fetches no other (FFmpeg reads the
    /// first segment of every rendition it is given at each load; docs/RENDITIONS.md). `subtitles` false: no SUBTITLES group
    /// — FFmpeg 5.1 reads every WebVTT segment of a rendition, one round trip each, before its first frame, and a pane's
    /// player shows none (DECISIONS.md, "Subtitles read by hlstui"); a proxy's player keeps them.
    public func multivariant(_ p: Playlist, base: String, variants keep: [Int], audio: Rendition? = nil, subtitles: Bool = true)
        -> Playlist
    {
        guard case .multivariant(var m) = p.body else { return p }
        let chosen = keep.filter { m.variants.indices.contains($0) }.map { m.variants[$0] }
        let groups = Set(chosen.flatMap { [$0.audio, $0.video, subtitles ? $0.subtitles : nil].compactMap { $0 } })
        m.variants = chosen.map { v in
            var v = v
            if !subtitles { v.subtitles = nil }
            v.uri = name(Self.resolve(v.uri, against: base), .media)
            v.leadingLines = []
            return v
        }
        m.renditions = m.renditions.filter { groups.contains($0.groupID) || $0.type == "CLOSED-CAPTIONS" }.filter { r in
            guard let a = audio, r.type == "AUDIO", r.groupID == a.groupID else { return true }
            return r.name == a.name
        }.map { r in
            var r = r
            if let a = audio, r.type == "AUDIO", r.groupID == a.groupID {
                r.isDefault = true
                r.autoselect = true
            }
            r.uri = r.uri.map { name(Self.resolve($0, against: base), .media) }
            return r
        }
        m.iFrameVariants = []
        m.sessionKeys = []
        m.sessionData = []
        m.contentSteering = nil
        var out = p
        out.defines = []
        out.body = .multivariant(m)
        return out
    }

    /// A media playlist for the player: variables resolved (no EXT-X-DEFINE), URIs through the Loader,
    /// AES-128 keys removed when the Loader decrypts, other keys' URIs through the Loader; GAP segments keep their flag.
    public func media(_ p: Playlist, base: String, decryptAES: Bool) -> Playlist {
        guard case .media(var m) = p.body else { return p }
        func keys(_ ks: [Key]) -> [Key] {
            ks.compactMap { k in
                if decryptAES && k.method == .aes128 && k.system == .identity { return nil }
                var k = k
                if let u = k.uri, !u.hasPrefix("skd://"), !u.hasPrefix("data:") { k.uri = name(Self.resolve(u, against: base), .key) }
                return k
            }
        }
        for i in m.segments.indices {
            // The Loader serves each sub-range as a whole resource of its own, so a splice or a decryption never sees another's bytes.
            let s = m.segments[i]
            m.segments[i].uri = name(
                Reference(upstream: Self.resolve(s.uri, against: base), kind: .segment, segment: s, byteRange: s.byteRange))
            m.segments[i].byteRange = nil
            m.segments[i].byteRangeOffsetImplied = false
            m.segments[i].keys = keys(m.segments[i].keys)
            if let map = s.map {
                m.segments[i].map?.uri = name(
                    Reference(
                        upstream: Self.resolve(map.uri, against: base), kind: .initSection, segment: s,
                        byteRange: map.byteRange, map: map))
                m.segments[i].map?.byteRange = nil
                m.segments[i].map?.keys = keys(map.keys)
            }
            for j in m.segments[i].parts.indices {
                m.segments[i].parts[j].uri = name(Self.resolve(m.segments[i].parts[j].uri, against: base), .part)
            }
            m.segments[i].leadingLines = []
        }
        for j in m.trailingParts.indices { m.trailingParts[j].uri = name(Self.resolve(m.trailingParts[j].uri, against: base), .part) }
        m.trailingKeys = m.trailingKeys.map(keys)
        if let map = m.trailingMap {
            m.trailingMap?.uri = name(
                Reference(upstream: Self.resolve(map.uri, against: base), kind: .initSection, byteRange: map.byteRange, map: map))
            m.trailingMap?.byteRange = nil
            m.trailingMap?.keys = keys(map.keys)
        }
        m.preloadHints = []
        m.renditionReports = []
        m.trailingLines = []
        var out = p
        out.defines = []
        out.body = .media(m)
        return out
    }

    /// The playlist from segment `msn` on (the Loader's way to start FFmpeg at a segment without a demuxer seek, docs/PLATFORM.md).
    /// `earlier`: segments that left a live window before `m` was read, from `msn` up to its first (`RecentSegments`), so a
    /// player reloaded at a segment that just left the window starts there instead of skipping to the window's first.
    public static func starting(at msn: Int, _ m: MediaPlaylist, earlier: [Segment] = []) -> MediaPlaylist {
        var m = m
        let prepend = earlier.first?.mediaSequence == msn && earlier.count == m.mediaSequence - msn
        if prepend {
            m.segments = earlier + m.segments
            m.mediaSequence = msn
        }
        guard let first = m.segments.firstIndex(where: { $0.mediaSequence >= msn }), first > 0 || prepend else { return m }
        var out = m
        out.segments = Array(m.segments[first...])
        out.mediaSequence = out.segments[0].mediaSequence
        out.mediaSequenceTagged = true
        out.discontinuitySequence = out.segments[0].discontinuitySequence
        out.discontinuitySequenceTagged = out.discontinuitySequence != 0
        // RFC 8216bis §4.4.4.6: the first segment carries its date, as it did implicitly before.
        out.segments[0].programDateTime = out.segments[0].effectiveProgramDateTime
        out.segments[0].discontinuity = false
        out.dateRanges = []
        return out
    }

    /// The playlist up to its first break: a GAP segment, or in fMP4 a discontinuity (FFmpeg 5.1 stalls for good where fMP4
    /// timestamps restart, measured). The player reaches the end there and the session reloads after it, so FFmpeg never sees
    /// the hole (a hole desyncs A/V by 3.4 s, docs/PLATFORM.md) or the reset.
    /// `after`: the newest segment the player has (its start or its latest request); the cut comes after it, never before.
    public static func endingBeforeBreak(_ m: MediaPlaylist, after: Int?) -> MediaPlaylist {
        let fmp4 = m.isFragmentedMP4
        let floor = after ?? m.mediaSequence
        guard let b = m.segments.first(where: { $0.mediaSequence > floor && ($0.gap || (fmp4 && $0.discontinuity)) }) else { return m }
        return ending(before: b.mediaSequence, m)
    }

    /// `m` ended before segment `msn` (EXT-X-ENDLIST after the one before it): at a break (`endingBeforeBreak`), or after a
    /// segment given to the player empty because it opens an fMP4 break the player could not be told of in time
    /// (`LoaderServer.growing`). Unchanged when `m` lists nothing before `msn`.
    public static func ending(before msn: Int, _ m: MediaPlaylist) -> MediaPlaylist {
        guard let i = m.segments.firstIndex(where: { $0.mediaSequence >= msn }), i > 0 else { return m }
        var out = m
        out.segments = Array(m.segments[..<i])
        out.trailingParts = []
        out.dateRanges = []
        // An end: FFmpeg plays to the last frame (a live playlist would make mpv wait for data ~0.3 s before it).
        out.endList = true
        return out
    }
}

/// The segments a live media playlist listed, remembered after they leave its window for as long as the server must keep them
/// available (RFC 8216bis §6.2.2: the segment's duration plus the duration of the longest playlist that listed it); pure.
public struct RecentSegments: Sendable {
    struct Entry: Sendable {
        var segment: Segment
        /// Until when (Loader seconds) the server must keep it.
        var until: Double
    }

    var entries: [Int: Entry] = [:]
    public init() {}

    /// Records the segments of a playlist read at `now`.
    public mutating func note(_ m: MediaPlaylist, at now: Double) {
        guard m.isLive else { return }
        let listed = m.segments.reduce(0) { $0 + $1.duration }
        for s in m.segments { entries[s.mediaSequence] = Entry(segment: s, until: now + s.duration + listed) }
        entries = entries.filter { $0.value.until >= now }
    }

    /// The remembered segments from `msn` up to the first of `m`, when every one of them is known and still available; else none.
    public func before(_ m: MediaPlaylist, from msn: Int, at now: Double) -> [Segment] {
        guard msn < m.mediaSequence, m.mediaSequence - msn <= entries.count else { return [] }
        var out: [Segment] = []
        for n in msn..<m.mediaSequence {
            guard let e = entries[n], e.until >= now else { return [] }
            out.append(e.segment)
        }
        return out
    }

    public var count: Int { entries.count }
}
