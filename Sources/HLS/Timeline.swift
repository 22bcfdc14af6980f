/// A half-open time range in seconds.
public struct TimeRange: Sendable, Hashable, CustomStringConvertible {
    public var start: Double
    public var end: Double
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
    public var duration: Double { end - start }
    public func contains(_ t: Double) -> Bool { t >= start && t < end }
    public var description: String { "[\(start), \(end))" }
}

/// A run of consecutive EXT-X-GAP segments, RFC 8216bis §4.4.4.7.
public struct GapRange: Sendable, Hashable {
    public var firstMSN: Int
    public var lastMSN: Int
    public var range: TimeRange
    public var programDateTime: DateTime?
}

/// Pure timeline math over media playlists: start times, PDT maps, GAP ranges and alignment of two playlists.
public enum Timeline {
    /// Gives every segment its effective PDT: extrapolated forward and backward from the nearest tag in the same discontinuity span (RFC 8216bis §4.4.4.6, §4.4.4.3).
    public static func assignProgramDateTimes(_ segments: inout [Segment]) {
        var spanStart = 0
        while spanStart < segments.count {
            var spanEnd = spanStart + 1
            while spanEnd < segments.count && !segments[spanEnd].discontinuity { spanEnd += 1 }
            // Forward from each tag.
            var anchor: DateTime?
            var firstTagged: Int?
            for i in spanStart..<spanEnd {
                if let t = segments[i].programDateTime {
                    anchor = t
                    if firstTagged == nil { firstTagged = i }
                }
                segments[i].effectiveProgramDateTime = anchor
                if let a = anchor { anchor = a.adding(seconds: segments[i].duration) }
            }
            // Backward from the first tag.
            if let f = firstTagged, let t = segments[f].programDateTime {
                var back = t
                var i = f - 1
                while i >= spanStart {
                    back = back.adding(seconds: -segments[i].duration)
                    segments[i].effectiveProgramDateTime = back
                    i -= 1
                }
            }
            spanStart = spanEnd
        }
    }

    /// A reload of a live playlist keeps the PDT the earlier one gave its segments: a span between discontinuities in `new`
    /// with no EXT-X-PROGRAM-DATE-TIME of its own takes it from a segment `old` listed with the same media sequence number and
    /// discontinuity sequence, extrapolated over the span (RFC 8216bis §4.4.4.6: a PDT applies to the segments after it; a
    /// server that tags only the first segment after a discontinuity lets that tag slide out of the window while its
    /// segments play on). Tags in `new` are never changed; spans without a shared segment keep no PDT.
    public static func carryingProgramDateTimes(_ new: MediaPlaylist, from old: MediaPlaylist?) -> MediaPlaylist {
        guard let old, new.segments.contains(where: { $0.effectiveProgramDateTime == nil }) else { return new }
        let oldSequences = discontinuitySequences(old)
        var known: [Int: (pdt: DateTime, disc: Int)] = [:]
        for (i, s) in old.segments.enumerated() {
            if let p = s.effectiveProgramDateTime { known[s.mediaSequence] = (p, oldSequences[i]) }
        }
        guard !known.isEmpty else { return new }
        var out = new
        let sequences = discontinuitySequences(new)
        var spanStart = 0
        while spanStart < out.segments.count {
            var spanEnd = spanStart + 1
            while spanEnd < out.segments.count && !out.segments[spanEnd].discontinuity { spanEnd += 1 }
            defer { spanStart = spanEnd }
            let span = spanStart..<spanEnd
            guard span.allSatisfy({ out.segments[$0].effectiveProgramDateTime == nil }),
                let a = span.first(where: { i in known[out.segments[i].mediaSequence].map { $0.disc == sequences[i] } ?? false }),
                let anchor = known[out.segments[a].mediaSequence]?.pdt
            else { continue }
            var t = anchor
            for i in a..<spanEnd {
                out.segments[i].effectiveProgramDateTime = t
                t = t.adding(seconds: out.segments[i].duration)
            }
            t = anchor
            for i in stride(from: a - 1, through: spanStart, by: -1) {
                t = t.adding(seconds: -out.segments[i].duration)
                out.segments[i].effectiveProgramDateTime = t
            }
        }
        return out
    }

    /// The discontinuity sequence number of each segment (EXT-X-DISCONTINUITY-SEQUENCE plus the tags before it, §4.4.3.3).
    public static func discontinuitySequences(_ playlist: MediaPlaylist) -> [Int] {
        var d = playlist.discontinuitySequence
        return playlist.segments.map { s in
            if s.discontinuity { d += 1 }
            return d
        }
    }

    /// The start time of each segment, in seconds from the playlist's first segment.
    public static func startTimes(_ playlist: MediaPlaylist) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(playlist.segments.count)
        var t = 0.0
        for s in playlist.segments {
            out.append(t)
            t += s.duration
        }
        return out
    }

    /// The index of the segment containing playlist time `t` (the last one for t at or past the end), nil when empty or negative.
    public static func segmentIndex(at t: Double, in playlist: MediaPlaylist) -> Int? {
        guard !playlist.segments.isEmpty, t >= 0 else { return nil }
        var acc = 0.0
        for (i, s) in playlist.segments.enumerated() {
            if t < acc + s.duration { return i }
            acc += s.duration
        }
        return playlist.segments.count - 1
    }

    /// The PDT at playlist time `t`, from the containing segment's effective PDT.
    public static func programDateTime(at t: Double, in playlist: MediaPlaylist) -> DateTime? {
        guard let i = segmentIndex(at: t, in: playlist), let p = playlist.segments[i].effectiveProgramDateTime else { return nil }
        let start = startTimes(playlist)[i]
        return p.adding(seconds: t - start)
    }

    /// The playlist time showing `date`: inside the segment whose PDT span holds it, nil when no segment does.
    public static func playlistTime(at date: DateTime, in playlist: MediaPlaylist) -> Double? {
        let starts = startTimes(playlist)
        for (i, s) in playlist.segments.enumerated() {
            guard let p = s.effectiveProgramDateTime else { continue }
            let offset = date.seconds(since: p)
            if offset >= 0 && offset < s.duration { return starts[i] + offset }
        }
        return nil
    }

    /// Merged runs of GAP segments with their playlist times.
    public static func gapRanges(_ playlist: MediaPlaylist) -> [GapRange] {
        var out: [GapRange] = []
        var t = 0.0
        for s in playlist.segments {
            defer { t += s.duration }
            guard s.gap else { continue }
            if var last = out.last, last.lastMSN == s.mediaSequence - 1, last.range.end == t {
                last.lastMSN = s.mediaSequence
                last.range.end = t + s.duration
                out[out.count - 1] = last
            } else {
                out.append(
                    GapRange(
                        firstMSN: s.mediaSequence, lastMSN: s.mediaSequence, range: TimeRange(start: t, end: t + s.duration),
                        programDateTime: s.effectiveProgramDateTime))
            }
        }
        return out
    }

    /// The seconds to add to `other`'s playlist times to put them on `reference`'s, matching media sequence numbers; nil when no MSN is shared.
    public static func alignmentByMediaSequence(reference: MediaPlaylist, other: MediaPlaylist) -> Double? {
        let refStarts = startTimes(reference)
        let otherStarts = startTimes(other)
        var byMSN: [Int: Int] = [:]
        for (i, s) in reference.segments.enumerated() { byMSN[s.mediaSequence] = i }
        for (j, s) in other.segments.enumerated() {
            if let i = byMSN[s.mediaSequence] { return refStarts[i] - otherStarts[j] }
        }
        return nil
    }

    /// The seconds to add to `other`'s playlist times so equal PDTs line up with `reference` (after hls.js `alignMediaPlaylistByPDT`); nil without PDT on both.
    public static func alignmentByProgramDateTime(reference: MediaPlaylist, other: MediaPlaylist) -> Double? {
        let refStarts = startTimes(reference)
        let otherStarts = startTimes(other)
        guard let ri = reference.segments.firstIndex(where: { $0.effectiveProgramDateTime != nil }),
            let oi = other.segments.firstIndex(where: { $0.effectiveProgramDateTime != nil }),
            let rp = reference.segments[ri].effectiveProgramDateTime,
            let op = other.segments[oi].effectiveProgramDateTime
        else { return nil }
        // Reference playlist time of other's anchor PDT.
        let refTimeOfOther = refStarts[ri] + op.seconds(since: rp)
        return refTimeOfOther - otherStarts[oi]
    }

    /// The PDT window both playlists hold, shrunk by `margin` seconds at each end; nil when they do not overlap enough.
    public static func commonProgramDateTimeWindow(_ a: MediaPlaylist, _ b: MediaPlaylist, margin: Double = 0) -> (
        start: DateTime, end: DateTime
    )? {
        func window(_ p: MediaPlaylist) -> (DateTime, DateTime)? {
            guard let f = p.segments.first(where: { $0.effectiveProgramDateTime != nil }),
                let l = p.segments.last(where: { $0.effectiveProgramDateTime != nil }),
                let fs = f.effectiveProgramDateTime, let ls = l.effectiveProgramDateTime
            else { return nil }
            return (fs, ls.adding(seconds: l.duration))
        }
        guard let wa = window(a), let wb = window(b) else { return nil }
        let start = max(wa.0, wb.0).adding(seconds: margin)
        let end = min(wa.1, wb.1).adding(seconds: -margin)
        return start < end ? (start, end) : nil
    }
}
