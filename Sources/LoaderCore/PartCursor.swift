import HLS

/// Where the next part of a segment still being published comes from, read from the newest playlist (pure; RFC 8216bis
/// §4.4.4.9, §4.4.5.3, §6.2.5.2). The Loader gives the player such a segment as one body that grows part by part
/// (DECISIONS.md, LL-HLS).
public enum PartStep: Sendable, Equatable {
    /// Fetch this part: listed, or the preload hint naming it (`hinted`: the server holds the request until it publishes it).
    case fetch(uri: String, range: String?, hinted: Bool)
    /// The segment is complete and every part of it was given.
    case complete
    /// Not known yet: a blocking reload for this part (`_HLS_msn` and `_HLS_part`) tells.
    case wait
    /// The playlist lists the segment without its parts (they are dropped three target durations on, §6.2.2), or the segment
    /// left the window.
    case lost
}

public enum PartCursor {
    /// The step for part `part` of segment `msn` in `m`.
    public static func next(msn: Int, part: Int, in m: MediaPlaylist) -> PartStep {
        guard let last = m.segments.last else { return .wait }
        if let s = m.segments.first(where: { $0.mediaSequence == msn }) {
            guard !s.parts.isEmpty else { return .lost }
            return part < s.parts.count ? fetch(s.parts[part]) : .complete
        }
        if msn < (m.segments.first?.mediaSequence ?? msn) { return .lost }
        guard last.mediaSequence == msn - 1 else { return .wait }
        if part < m.trailingParts.count { return fetch(m.trailingParts[part]) }
        // §4.4.5.3: the PART hint names the part that follows the last one listed.
        if part == m.trailingParts.count, let h = m.partHint {
            let range = h.byteRangeStart.map { start in
                "bytes=\(start)-" + (h.byteRangeLength.map { String(start + $0 - 1) } ?? "")
            }
            return .fetch(uri: h.uri, range: range, hinted: true)
        }
        return .wait
    }

    /// One part `listed` names: its index in the segment, URI and byte range.
    public struct Listed: Sendable, Equatable {
        public var part: Int
        public var uri: String
        public var range: String?
        public init(part: Int, uri: String, range: String?) {
            self.part = part
            self.uri = uri
            self.range = range
        }
    }

    /// The parts `m` lists of segment `msn` after part `part`, at most `limit`, not the hinted one (the server holds that
    /// request until the part exists, §4.4.5.3): a player that comes to the segment late (a start inside it) has several
    /// published, read together — one round trip for them all instead of one each (`LoaderServer.growing`).
    public static func listed(msn: Int, after part: Int, in m: MediaPlaylist, limit: Int) -> [Listed] {
        var out: [Listed] = []
        for p in (part + 1)..<(part + 1 + max(0, limit)) {
            guard case .fetch(let uri, let range, false) = next(msn: msn, part: p, in: m) else { break }
            out.append(Listed(part: p, uri: uri, range: range))
        }
        return out
    }

    /// Whether segment `msn` opens a break — an EXT-X-DISCONTINUITY, or another EXT-X-MAP than the segment before it — as
    /// `m` lists it; nil while `m` lists none of its parts (the tags come with its first part, RFC 8216bis §4.4.4.9). A
    /// player given the segment before that part (`LoaderServer.growing`) is told by an empty body.
    public static func opensBreak(msn: Int, in m: MediaPlaylist) -> Bool? {
        if let i = m.segments.firstIndex(where: { $0.mediaSequence == msn }) {
            guard i > 0 else { return nil }
            let (s, before) = (m.segments[i], m.segments[i - 1])
            return s.discontinuity || !sameMap(s.map, before.map)
        }
        guard let last = m.segments.last, last.mediaSequence == msn - 1, !m.trailingParts.isEmpty else { return nil }
        return m.trailingDiscontinuity || !sameMap(m.trailingMap ?? last.map, last.map)
    }

    static func sameMap(_ a: MapSection?, _ b: MapSection?) -> Bool {
        a?.uri == b?.uri && a?.byteRange == b?.byteRange
    }

    static func fetch(_ p: Part) -> PartStep {
        .fetch(uri: p.uri, range: p.byteRange.map { "bytes=\($0.offset)-\($0.offset + $0.length - 1)" }, hinted: false)
    }
}
