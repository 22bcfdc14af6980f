/// Merging a Playlist Delta Update into the playlist a client already holds (RFC 8216bis §6.2.5.1, §6.3.7).
public enum DeltaUpdate {
    /// Why a delta update could not be merged: the client MUST then reload the playlist without `_HLS_skip` (§6.3.7).
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The delta skips segments the held playlist does not have.
        case missingSegments(first: Int, last: Int)
        /// A segment both playlists list differs (URI or duration): the delta does not describe the same stream.
        case mismatch(msn: Int, held: String, delta: String)

        public var description: String {
            switch self {
            case .missingSegments(let first, let last):
                return "the delta update skips segments \(first)–\(last), which the held playlist does not list (RFC 8216bis §6.3.7)"
            case .mismatch(let msn, let held, let delta):
                return
                    "the delta update lists segment \(msn) as \(delta), the full playlist had \(held) (RFC 8216bis §6.2.5.1: skipped tags MUST be the same)"
            }
        }
    }

    /// The full playlist `delta` stands for, its skipped segments taken from `held`; `delta` unchanged when it skips nothing.
    /// Date ranges: those the delta lists, plus the held ones it does not list and does not name as recently removed
    /// (an `_HLS_skip=v2` update leaves out old EXT-X-DATERANGE tags, §4.4.5.2).
    public static func merge(_ delta: MediaPlaylist, into held: MediaPlaylist) -> Result<MediaPlaylist, Failure> {
        guard let skip = delta.skip else { return .success(delta) }
        let first = delta.mediaSequence
        let last = first + skip.skippedSegments - 1
        guard skip.skippedSegments > 0 else {
            var out = delta
            out.skip = nil
            return .success(out)
        }
        var skipped: [Segment] = []
        for s in held.segments where s.mediaSequence >= first && s.mediaSequence <= last { skipped.append(s) }
        guard skipped.count == skip.skippedSegments, skipped.first?.mediaSequence == first else {
            return .failure(.missingSegments(first: first, last: last))
        }
        // Segments both list must agree.
        for s in delta.segments {
            guard let h = held.segments.first(where: { $0.mediaSequence == s.mediaSequence }) else { continue }
            if h.uri != s.uri || abs(h.duration - s.duration) > 0.0005 {
                return .failure(
                    .mismatch(
                        msn: s.mediaSequence, held: "\(h.uri) (\(formatSeconds(h.duration)) s)",
                        delta: "\(s.uri) (\(formatSeconds(s.duration)) s)"))
            }
        }
        var out = delta
        out.skip = nil
        // The delta's segments count their discontinuities and take their PDT from the skipped ones (§4.4.5.2: skipping does
        // not change EXT-X-DISCONTINUITY-SEQUENCE; §4.4.4.6: a PDT extends over its span).
        var listed = delta.segments
        var sequence = skipped[skipped.count - 1].discontinuitySequence
        var previous = skipped[skipped.count - 1]
        for i in listed.indices {
            if listed[i].discontinuity { sequence += 1 }
            listed[i].discontinuitySequence = sequence
            if listed[i].effectiveProgramDateTime == nil, !listed[i].discontinuity {
                listed[i].effectiveProgramDateTime = previous.effectiveProgramDateTime?.adding(seconds: previous.duration)
            }
            previous = listed[i]
        }
        out.segments = skipped + listed
        // Date ranges kept from the held playlist stand before the first segment; the delta's shift by what was put back.
        let removed = Set(skip.recentlyRemovedDateRanges)
        let kept = Set(delta.dateRanges.map(\.id))
        var ranges = held.dateRanges.filter { !kept.contains($0.id) && !removed.contains($0.id) }
        for i in ranges.indices { ranges[i].beforeSegment = 0 }
        out.dateRanges =
            ranges
            + delta.dateRanges.map { r in
                var r = r
                r.beforeSegment += skipped.count
                return r
            }
        return .success(out)
    }
}
