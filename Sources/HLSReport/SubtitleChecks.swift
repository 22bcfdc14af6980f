import HLS
import JSONValue

/// One WebVTT segment as `inspect --media` read it: where its playlist puts it, what it holds, and the media's clock at the
/// same place (the first variant's segment there, measured from its bytes).
public struct SubtitleSegmentMeasure: Sendable, Equatable {
    public var msn: Int
    /// Seconds from the start of the subtitle playlist, and the segment's length.
    public var position: Double
    public var duration: Double
    public var hasHeader: Bool
    public var hasMap: Bool
    /// The cues on the media's clock (through the segment's map), seconds.
    public var cues: [ClosedRange<Double>]
    /// The media's clock where the segment starts: the first variant's segment at that position, its first timestamp plus
    /// the distance into it; nil when not measured.
    public var mediaTime: Double?
    /// IMSC1 (TTML in fragmented MP4, §3.1.5) rather than WebVTT: the WebVTT rules do not apply.
    public var imsc = false

    public init(
        msn: Int, position: Double, duration: Double, hasHeader: Bool, hasMap: Bool, cues: [ClosedRange<Double>], mediaTime: Double?
    ) {
        (self.msn, self.position, self.duration, self.hasHeader, self.hasMap) = (msn, position, duration, hasHeader, hasMap)
        (self.cues, self.mediaTime) = (cues, mediaTime)
    }
}

/// What `inspect --media` read of one subtitle rendition (docs/SUBTITLES.md).
public struct SubtitleMeasure: Sendable, Equatable {
    public var name: String
    public var segments: [SubtitleSegmentMeasure]
    public var listed: Int
    /// The subtitle playlist's length and the first variant's, in seconds (VOD: they cover the same media).
    public var duration: Double
    public var mediaDuration: Double?
    public var targetDuration: Int?
    public var live: Bool

    public init(
        name: String, segments: [SubtitleSegmentMeasure], listed: Int, duration: Double, mediaDuration: Double?, targetDuration: Int?,
        live: Bool
    ) {
        (self.name, self.segments, self.listed, self.duration, self.mediaDuration) = (name, segments, listed, duration, mediaDuration)
        (self.targetDuration, self.live) = (targetDuration, live)
    }
}

/// The WebVTT rules of RFC 8216bis §3.1.4 against the segments read, and the rendition's coverage of the media; the same
/// rules the live session applies (docs/SUBTITLES.md), each finding once per rendition with its first segment.
public enum SubtitleChecks {
    public static func findings(_ s: SubtitleMeasure, index: Int) -> [MediaFinding] {
        var out: [MediaFinding] = []
        let section = "RFC 8216bis §3.1.4"
        if let bad = s.segments.first(where: { !$0.hasHeader }) {
            out.append(
                MediaFinding(
                    rule: "webvtt-header", must: true, section: section, variant: index,
                    message: "\(s.name): segment \(bad.msn) does not start with WEBVTT"
                        + count(s.segments.filter { !$0.hasHeader }.count, of: s.segments.count)))
        }
        if let bad = s.segments.first(where: { !$0.hasMap }) {
            out.append(
                MediaFinding(
                    rule: "webvtt-timestamp-map", must: false, section: section, variant: index,
                    message: "\(s.name): segment \(bad.msn) has no X-TIMESTAMP-MAP (cue time 0 taken as media time 0)"
                        + count(s.segments.filter { !$0.hasMap }.count, of: s.segments.count)))
        }
        let off = s.segments.compactMap { seg -> (msn: Int, by: Double)? in
            guard let t = seg.mediaTime, let first = seg.cues.first else { return nil }
            let (from, to) = (t - 0.5, t + seg.duration + 0.5)
            return seg.cues.contains { $0.upperBound > from && $0.lowerBound < to } ? nil : (seg.msn, first.lowerBound - t)
        }
        if let o = off.first {
            let imsc = s.segments.contains(where: \.imsc)
            out.append(
                MediaFinding(
                    rule: imsc ? "imsc-off-media" : "webvtt-off-media", must: true, section: imsc ? "RFC 8216bis §3.1.5" : section,
                    variant: index,
                    message:
                        "\(s.name): segment \(o.msn)'s cues lie \(fixed(abs(o.by), 1)) s \(o.by > 0 ? "after" : "before") the media they belong to (\(imsc ? "its TTML times disagree" : "its X-TIMESTAMP-MAP disagrees") with the media)"
                        + count(off.count, of: s.segments.filter { $0.mediaTime != nil && !$0.cues.isEmpty }.count)))
        }
        if !s.live, let media = s.mediaDuration, abs(media - s.duration) > Double(s.targetDuration ?? 6) {
            out.append(
                MediaFinding(
                    rule: "subtitles-duration", must: false, section: "RFC 8216bis §6.2.4", variant: index,
                    message: "\(s.name): the subtitles cover \(fixed(s.duration, 1)) s of \(fixed(media, 1)) s of media"))
        }
        return out
    }

    static func count(_ n: Int, of total: Int) -> String { n > 1 ? " (\(n) of \(total) segments)" : "" }

    /// The report's lines for the subtitle renditions read.
    public static func text(_ subs: [SubtitleMeasure]) -> [String] {
        subs.map { s in
            "  subtitles \(s.name)  \(s.segments.count) of \(s.listed) segments, \(s.segments.reduce(0) { $0 + $1.cues.count }) cues"
                + (s.segments.contains { $0.mediaTime != nil } ? ", timed against the media" : "")
        }
    }

    public static func json(_ subs: [SubtitleMeasure]) -> JSONValue {
        .array(
            subs.map { s in
                .object([
                    ("name", .string(s.name)), ("measured", .int(s.segments.count)), ("listed", .int(s.listed)),
                    ("cues", .int(s.segments.reduce(0) { $0 + $1.cues.count })), ("duration", .double(s.duration)),
                    ("mediaDuration", .double(s.mediaDuration)),
                ])
            })
    }
}
