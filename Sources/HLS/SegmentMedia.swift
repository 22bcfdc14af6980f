/// What one segment's media says beside what its playlist says of it, and the rules that hold between neighbours: the same
/// for `inspect --media` and for a live session (docs/VALIDATION.md).
public struct SegmentMedia: Sendable, Equatable {
    public var msn: Int
    /// EXTINF.
    public var duration: Double
    /// An EXT-X-DISCONTINUITY before it.
    public var discontinuity: Bool
    /// The first timestamps of its video and of its audio, seconds (nil: no such stream, or not read).
    public var videoStart: Double?
    public var audioStart: Double?
    /// Its first video frame decodes on its own (an IDR or IRAP picture, a sync sample); nil: not known.
    public var independent: Bool?
    /// How long its video lasts, measured from its frames (read whole only: `inspect --media`); nil: not measured.
    public var videoDuration: Double?
    /// Its bytes × 8 over its EXTINF (`inspect --media`); nil: not measured.
    public var bitRate: Double?
    /// Its video carries closed captions (A/53 `cc_data`: CEA-608 or 708; `inspect --media`); nil: not read.
    public var captions: Bool?

    public init(
        msn: Int, duration: Double, discontinuity: Bool, videoStart: Double? = nil, audioStart: Double? = nil, independent: Bool? = nil
    ) {
        (self.msn, self.duration, self.discontinuity) = (msn, duration, discontinuity)
        (self.videoStart, self.audioStart, self.independent) = (videoStart, audioStart, independent)
    }

    /// The segment's first timestamp: its video's, else its audio's.
    public var start: Double? { videoStart ?? audioStart }

    /// Seconds audio starts after video (negative: before); nil without both.
    public var avOffset: Double? { audioStart.flatMap { a in videoStart.map { a - $0 } } }
}

public enum SegmentMediaRules {
    /// A timestamp jump this far (seconds) from EXTINF, or a tenth of the EXTINF when more, is a jump.
    public static let jumpTolerance = 0.25
    /// An A/V start offset that moves by more than this (seconds) between segments is said.
    public static let offsetTolerance = 0.1
    /// MPEG-TS timestamps wrap at 2^33 ticks of 90 kHz (ISO/IEC 13818-1 §2.4.3.7).
    static let wrap = 8_589_934_592.0 / 90_000

    /// Seconds from `a`'s start to `b`'s when they are neighbours with no EXT-X-DISCONTINUITY between them and that is not
    /// `a`'s EXTINF (RFC 8216bis §4.4.4.3: a timestamp jump needs the tag); nil when the rule holds or cannot be told.
    public static func jump(from a: SegmentMedia, to b: SegmentMedia) -> Double? {
        guard b.msn == a.msn + 1, !b.discontinuity, let s0 = a.start, let s1 = b.start else { return nil }
        var gap = s1 - s0
        if gap < -wrap / 2 { gap += wrap }
        return abs(gap - a.duration) > max(jumpTolerance, a.duration / 10) ? gap : nil
    }

    /// Where audio starts against video in `a` and in `b`, neighbours, when it moved by more than `offsetTolerance`; a
    /// segment that opens without an independent frame starts its video late, which is no offset.
    public static func offsetMove(from a: SegmentMedia, to b: SegmentMedia) -> (from: Double, to: Double)? {
        guard b.msn == a.msn + 1, a.independent != false, b.independent != false, let o0 = a.avOffset, let o1 = b.avOffset,
            abs(o1 - o0) > offsetTolerance
        else { return nil }
        return (o0, o1)
    }

    public static func jumpText(msn: Int, gap: Double, extinf: Double) -> String {
        "msn \(msn) starts \(fixed(gap, 3)) s after msn \(msn - 1), whose EXTINF is \(fixed(extinf, 3)) s, with no EXT-X-DISCONTINUITY between them (a timestamp jump, or a wrong EXTINF)"
    }

    public static func offsetText(msn: Int, discontinuity: Bool, from o0: Double, to o1: Double) -> String {
        "at msn \(msn)\(discontinuity ? " (after a discontinuity)" : "") audio starts \(audio(o1)), in msn \(msn - 1) \(audio(o0)): \(Int((abs(o1 - o0) * 1000).rounded())) ms out of step"
    }

    /// Where audio starts against video: "236 ms after video", "53 ms before video", "with video".
    public static func audio(_ offset: Double) -> String {
        let n = Int((offset * 1000).rounded())
        return n > 0 ? "\(n) ms after video" : n < 0 ? "\(-n) ms before video" : "with video"
    }
}
