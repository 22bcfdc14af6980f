/// What a live media playlist must keep from one reload to the next. A server changes a media playlist only by appending
/// lines, removing segments from the start in order, incrementing EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE,
/// and adding EXT-X-ENDLIST (RFC 8216bis §6.2.1); so a segment keeps its MSN, URI, duration, discontinuity and
/// discontinuity sequence number (§4.4.3.2, §4.4.3.3) for as long as it is listed.
public struct ContinuityFinding: Sendable, Equatable {
    public enum Rule: String, Sendable, CaseIterable {
        /// EXT-X-MEDIA-SEQUENCE went back: segments removed come back, or the stream restarted its numbering.
        case msnBackwards = "msn-backwards"
        /// A segment still listed under the same MSN has another URI.
        case uriChanged = "uri-changed"
        /// … or another duration.
        case durationChanged = "duration-changed"
        /// … or gained or lost its EXT-X-DISCONTINUITY.
        case discontinuityChanged = "discontinuity-changed"
        /// … or another discontinuity sequence number (EXT-X-DISCONTINUITY-SEQUENCE not kept in step with the tags removed).
        case discontinuitySequence = "discontinuity-sequence"
        /// … or another EXT-X-PROGRAM-DATE-TIME.
        case pdtChanged = "pdt-changed"
        /// A PDT that does not follow the segment before it (by more than a second) with no discontinuity between them.
        case pdtJump = "pdt-jump"
        /// EXT-X-ENDLIST was there and is gone.
        case endlistRemoved = "endlist-removed"
        /// A date range listed again under its ID gives an attribute another value (§4.4.5.1: an ID's tags agree).
        case dateRangeChanged = "daterange-changed"
        /// A WebVTT segment that does not start with the `WEBVTT` signature (RFC 8216bis §3.1.4; W3C WebVTT).
        case webvttHeader = "webvtt-header"
        /// A WebVTT segment without X-TIMESTAMP-MAP: its cues are timed as if cue time 0 were media time 0 (§3.1.4).
        case webvttTimestampMap = "webvtt-timestamp-map"
        /// A WebVTT segment whose cues, mapped to the media's timestamps, lie outside the time the segment covers: its
        /// X-TIMESTAMP-MAP disagrees with the media (§3.1.4: a segment holds the cues shown during its period).
        case webvttOffMedia = "webvtt-off-media"
        /// An IMSC1 segment whose TTML cues lie outside the time the segment covers on the media's clock (§3.1.5).
        case imscOffMedia = "imsc-off-media"
        /// The video carries closed captions the multivariant playlist says it has none of (CLOSED-CAPTIONS=NONE, §4.4.6.2).
        case captionsNone = "captions-none"
        /// A segment whose first video frame needs an earlier one (§4.4.2.1 under EXT-X-INDEPENDENT-SEGMENTS).
        case segmentNotIndependent = "segment-not-independent"
        /// Neighbouring segments' timestamps apart by other than the EXTINF, with no discontinuity (§4.4.4.3).
        case timestampsContinuous = "timestamps-continuous"
        /// Audio moved against video from one segment to the next (`SegmentMediaRules.offsetMove`).
        case avOffset = "av-offset"
        /// Segments never listed: the media sequence moved past them between two reloads closer together than a segment
        /// stays listed (§6.2.2: a segment leaves only once three target durations follow it).
        case msnSkipped = "msn-skipped"
        /// Segments removed although what is left lasts less than three target durations (§6.2.2).
        case windowShort = "window-short"
        /// A live playlist unchanged for longer than a client reloading by §6.3.4 waits (the target duration, then half of it).
        case playlistStale = "playlist-stale"
        /// Two variants' playlists whose ends lie further apart by EXT-X-PROGRAM-DATE-TIME than a target duration (§6.2.4).
        case variantsDrift = "variants-drift"
        /// The same moment in two variants in another discontinuity sequence (§6.2.4).
        case variantsDiscontinuity = "variants-discontinuity-sequence"
    }

    public var rule: Rule
    public var severity: Severity
    /// The section broken, `RFC 8216bis §…`.
    public var section: String
    /// The segment it concerns (nil: the playlist).
    public var msn: Int?
    public var message: String

    public init(_ rule: Rule, _ severity: Severity, _ section: String, msn: Int?, _ message: String) {
        (self.rule, self.severity, self.section, self.msn, self.message) = (rule, severity, section, msn, message)
    }
}

public enum LiveContinuity {
    /// What changed between two reloads of one live media playlist that the server may not change. `previous` and `next`
    /// as read (a delta update compares the segments it lists); `elapsed`: seconds between the two reads, when known (the
    /// segments the media sequence moved past are judged by it).
    public static func check(previous a: MediaPlaylist, next b: MediaPlaylist, elapsed: Double? = nil) -> [ContinuityFinding] {
        var out: [ContinuityFinding] = []
        if a.endList && !b.endList {
            out.append(ContinuityFinding(.endlistRemoved, .error, bis("6.2.1"), msn: nil, "EXT-X-ENDLIST was listed and is gone"))
        }
        if b.mediaSequence < a.mediaSequence {
            out.append(
                ContinuityFinding(
                    .msnBackwards, .error, bis("6.2.1"), msn: b.mediaSequence,
                    "EXT-X-MEDIA-SEQUENCE went back from \(a.mediaSequence) to \(b.mediaSequence)"
                        + (b.mediaSequence + b.segments.count <= a.mediaSequence
                            ? " (a new numbering: the stream restarted without ending)" : " (segments removed are listed again)")))
            // The segments compared below are not the same ones.
            return out
        }
        out += removal(previous: a, next: b, elapsed: elapsed)
        let before = Dictionary(a.segments.map { ($0.mediaSequence, $0) }, uniquingKeysWith: { x, _ in x })
        // Per rule, the segments that broke it: one finding each, its first segment as the example.
        var changed: [(rule: ContinuityFinding.Rule, severity: Severity, section: String, msn: Int, what: String)] = []
        for s in b.segments {
            guard let old = before[s.mediaSequence] else { continue }
            let msn = s.mediaSequence
            if old.uri != s.uri { changed.append((.uriChanged, .error, bis("6.2.1"), msn, "was \(old.uri), now \(s.uri)")) }
            if abs(old.duration - s.duration) > 0.0005 {
                changed.append(
                    (
                        .durationChanged, .error, bis("6.2.1"), msn,
                        "was \(formatSeconds(old.duration)) s long, now \(formatSeconds(s.duration)) s"
                    ))
            }
            if old.discontinuity != s.discontinuity {
                changed.append(
                    (.discontinuityChanged, .error, bis("6.2.1"), msn, (s.discontinuity ? "gained" : "lost") + " its EXT-X-DISCONTINUITY"))
            }
            if old.discontinuitySequence != s.discontinuitySequence {
                changed.append(
                    (
                        .discontinuitySequence, .error, bis("4.4.3.3"), msn,
                        "was in discontinuity sequence \(old.discontinuitySequence), now \(s.discontinuitySequence) (EXT-X-DISCONTINUITY-SEQUENCE MUST keep the listed segments' numbers)"
                    ))
            }
            if let p = old.programDateTime, let q = s.programDateTime, abs(p.seconds(since: q)) > 0.0005 {
                changed.append((.pdtChanged, .warning, bis("6.2.1"), msn, "was dated \(p.iso8601), now \(q.iso8601)"))
            }
        }
        for rule in ContinuityFinding.Rule.allCases {
            let all = changed.filter { $0.rule == rule }
            guard let first = all.first else { continue }
            let which =
                all.count == 1 ? "msn \(first.msn)" : "\(all.count) segments (msn \(first.msn)–\(all[all.count - 1].msn)), msn \(first.msn)"
            out.append(ContinuityFinding(rule, first.severity, first.section, msn: first.msn, "\(which) \(first.what)"))
        }
        // A date range listed again: its attributes as the last reload gave them (an update may add, never change).
        var earlier: [String: [String: String]] = [:]
        for r in a.dateRanges { earlier[r.id, default: [:]].merge(Lint.attributeValues(r)) { old, _ in old } }
        var said: Set<String> = []
        for r in b.dateRanges {
            guard let was = earlier[r.id] else { continue }
            for (name, value) in Lint.attributeValues(r).sorted(by: { $0.key < $1.key }) {
                guard let old = was[name], old != value, said.insert(r.id).inserted else { continue }
                out.append(
                    ContinuityFinding(
                        .dateRangeChanged, .error, bis("4.4.5.1"), msn: nil,
                        "EXT-X-DATERANGE ID=\"\(r.id)\" had \(name)=\(old), now \(value)"))
            }
        }
        // A PDT jump among the segments new in this reload (each said once: the older ones were checked when they were new).
        let newFrom = a.mediaSequence + a.segments.count
        for (i, s) in b.segments.enumerated() where s.mediaSequence >= newFrom && i > 0 {
            let prev = b.segments[i - 1]
            guard !s.discontinuity, let p = prev.effectiveProgramDateTime, let q = s.programDateTime else { continue }
            let off = q.seconds(since: p) - prev.duration
            if abs(off) > 1 {
                out.append(
                    ContinuityFinding(
                        .pdtJump, .warning, bis("4.4.4.6"), msn: s.mediaSequence,
                        "msn \(s.mediaSequence)'s PDT is \(formatSeconds(off)) s off the end of the segment before it, with no EXT-X-DISCONTINUITY"
                    ))
            }
        }
        return out
    }

    /// RFC 8216bis §6.2.2: the server MUST NOT remove a segment if what is left of the playlist lasts less than three target
    /// durations. So a segment stays listed while three target durations of media are made after it (in real time, about
    /// as long), and two reloads less than two target durations apart see every segment between them; and a playlist that
    /// lost segments at its start still lasts three target durations.
    static func removal(previous a: MediaPlaylist, next b: MediaPlaylist, elapsed: Double?) -> [ContinuityFinding] {
        guard b.mediaSequence > a.mediaSequence, !b.endList, let td = b.targetDuration ?? a.targetDuration, td > 0 else { return [] }
        var out: [ContinuityFinding] = []
        let lastBefore = a.mediaSequence + a.segments.count - 1
        if let elapsed, b.mediaSequence > lastBefore + 1, elapsed < Double(2 * td) {
            let first = lastBefore + 1
            let last = b.mediaSequence - 1
            let which = first == last ? "msn \(first) was" : "msn \(first)–\(last) (\(last - first + 1) segments) were"
            out.append(
                ContinuityFinding(
                    .msnSkipped, .error, bis("6.2.2"), msn: first,
                    "\(which) never listed: EXT-X-MEDIA-SEQUENCE went from \(a.mediaSequence) (last msn \(lastBefore)) to \(b.mediaSequence) in \(formatSeconds(elapsed)) s, where a segment stays listed while three target durations (\(3 * td) s) follow it"
                ))
        }
        let left = b.totalDuration
        if left < Double(3 * td) - 0.001 {
            out.append(
                ContinuityFinding(
                    .windowShort, .error, bis("6.2.2"), msn: nil,
                    "segments removed up to msn \(b.mediaSequence - 1) leave \(formatSeconds(left)) s listed, under three target durations (\(3 * td) s)"
                ))
        }
        return out
    }
}
