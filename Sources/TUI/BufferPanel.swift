import HLS
import LoaderEvents
import MediaFormats
import Session

// The buffer bar: the playlist window, what the player holds, GAP, discontinuities, breaks, date ranges, timed metadata and the playhead. Built from the session and drawn, both pure.

/// One segment on the timeline.
public struct SegmentMark: Sendable, Equatable {
    public var start: Double
    public var duration: Double
    public var gap: Bool
    public var discontinuity: Bool
    /// A GAP another rung has media for: the Loader serves that rung's segment instead.
    public var filled = false
}

/// The buffer and GAP bar.
public struct TimelineModel: Sendable, Equatable {
    public var length: Double
    public var segments: [SegmentMark]
    public var buffered: [TimeRange]
    public var playhead: Double?
    public var live: Bool
    public var firstMSN: Int
    /// Seconds delivered past the playhead; nil when not known (drawn as a dash).
    public var ahead: Double?
    /// Where the breaks the stream announces start, in the window's seconds (docs/EVENTS.md).
    public var breaks: [Double] = []
    /// Where the playlist's other date ranges (any CLASS) start, and where its timed metadata items (ID3, `emsg`) stand, in
    /// the window's seconds (docs/EVENTS.md).
    public var dateRanges: [Double] = []
    public var metadata: [Double] = []
}

extension DashboardModel {
    static func timeline(_ s: SessionState) -> TimelineModel? {
        guard let m = s.playingMedia, !m.segments.isEmpty else { return nil }
        let starts = Timeline.startTimes(m)
        let segs = m.segments.enumerated().map { i, seg in
            SegmentMark(
                start: starts[i], duration: seg.duration, gap: seg.gap, discontinuity: seg.discontinuity,
                filled: seg.gap && !s.isUnfillableGap(seg.mediaSequence))
        }
        var t = TimelineModel(
            length: m.totalDuration, segments: segs, buffered: s.bufferedRanges, playhead: s.position, live: m.isLive,
            firstMSN: m.mediaSequence, ahead: s.bufferedAhead)
        // A break starts at its first segment (a date range at its START-DATE); one whose start has left the window is not
        // marked. The same break announced both ways is one mark.
        var marks: Set<Int> = []
        for b in s.breaks.breaks.map(\.cue) {
            let at: Double?
            if case .dateRange = b.source, let d = b.startDate {
                at = Timeline.playlistTime(at: d, in: m)
            } else {
                at = starts[safe: b.startMSN - m.mediaSequence]
            }
            if let at, at >= 0, at <= m.totalDuration, marks.insert(Int((at * 1000).rounded())).inserted { t.breaks.append(at) }
        }
        t.breaks.sort()
        // The other date ranges at their START-DATE, resolved against the segments' PDT (RFC 8216bis §4.4.5.1).
        let breakIDs = Set(
            s.breaks.breaks.compactMap { b -> String? in
                if case .dateRange(let id) = b.cue.source { return id }
                return nil
            })
        for r in m.dateRanges where !breakIDs.contains(r.id) {
            guard let d = r.startDate, let at = Timeline.playlistTime(at: d, in: m), at >= 0, at <= m.totalDuration,
                marks.insert(Int((at * 1000).rounded())).inserted
            else { continue }
            t.dateRanges.append(at)
        }
        t.dateRanges.sort()
        // Timed metadata in the segment it came in, as far into it as its time is past the segment's first PTS (a stream whose
        // timestamps start again each loop repeats its times: the segment, not the time, says where an item stands).
        t.metadata = s.metadata.items.compactMap { e in
            guard let start = starts[safe: e.msn - m.mediaSequence] else { return nil }
            let into = s.clock.firstPTS[e.msn].map { e.time - $0 } ?? 0
            return start + min(max(0, into), m.segments[e.msn - m.mediaSequence].duration)
        }
        return t
    }
}

extension Dashboard {
    /// The time covered by each column of a bar `width` wide over `length` seconds.
    static func column(_ t: Double, length: Double, width: Int) -> Int {
        guard length > 0, width > 0 else { return 0 }
        return min(width - 1, max(0, Int(t / length * Double(width))))
    }

    /// The buffer bar's cells: segments, buffered ranges, GAP segments, discontinuities and the playhead.
    public static func bar(_ t: TimelineModel, width: Int) -> [(String, Role)] {
        var cells = Array(repeating: ("░", Role.segment), count: max(0, width))
        guard width > 0, t.length > 0 else { return cells }
        for r in t.buffered {
            let a = column(r.start, length: t.length, width: width)
            let b = column(max(r.start, r.end - 0.001), length: t.length, width: width)
            if a <= b { for i in a...b { cells[i] = ("█", .buffered) } }
        }
        for s in t.segments {
            let a = column(s.start, length: t.length, width: width)
            if s.gap {
                let b = column(max(s.start, s.start + s.duration - 0.001), length: t.length, width: width)
                for i in a...max(a, b) { cells[i] = (s.filled ? "▒" : "╳", .gap) }
            } else if s.discontinuity, a > 0 {
                cells[a] = ("¦", .discontinuity)
            }
        }
        for e in t.metadata { cells[column(e, length: t.length, width: width)] = ("•", .accent) }
        for r in t.dateRanges { cells[column(r, length: t.length, width: width)] = ("◇", .accent) }
        for b in t.breaks { cells[column(b, length: t.length, width: width)] = ("◆", .accent) }
        if let p = t.playhead { cells[column(p, length: t.length, width: width)] = ("┃", .playhead) }
        return cells
    }

    static func timeline(_ t: TimelineModel, into c: inout Canvas, y: inout Int) {
        let gaps = t.segments.filter(\.gap).count
        let filled = t.segments.filter(\.filled).count
        let summary =
            "\(t.segments.count) segments" + (gaps > 0 ? ", \(gaps) GAP" + (filled > 0 ? " (\(filled) filled by another rung)" : "") : "")
            + (t.breaks.isEmpty ? "" : ", \(t.breaks.count) break\(t.breaks.count == 1 ? "" : "s")")
            + (t.live ? ", live window from msn \(t.firstMSN)" : "")
        title("Buffer", into: &c, y: &y, right: summary)
        let w = c.width - 2
        for (i, cell) in bar(t, width: w).enumerated() { c.put(1 + i, y, cell.0, cell.1) }
        y += 1
        let buffered = t.buffered.reduce(0) { $0 + $1.duration }
        let ahead = t.ahead
        let left = t.live ? "msn \(t.firstMSN)" : "00:00.0"
        let right = t.live ? "live edge" : DashboardModel.clockText(t.length)
        let aheadText = ahead.map { ", \(fixed($0, 1))s ahead" } ?? ", - ahead"
        // The legend names the marks the bar holds, as many as fit centred between the ends' labels.
        var legend = [
            gaps > filled ? "╳ GAP" : nil, filled > 0 ? "▒ GAP filled" : nil, t.breaks.isEmpty ? nil : "◆ break",
            t.dateRanges.isEmpty ? nil : "◇ date range", t.metadata.isEmpty ? nil : "• metadata",
        ].compactMap { $0 }
        let room = c.width - 2 * max(displayWidth(left), displayWidth(right)) - 4
        var mid = "buffered \(fixed(buffered, 1))s" + aheadText
        while !legend.isEmpty && displayWidth(mid + legend.map { "  " + $0 }.joined()) > room { legend.removeLast() }
        mid += legend.map { "  " + $0 }.joined()
        c.put(1, y, left, .dim)
        c.put(max(0, (c.width - displayWidth(mid)) / 2), y, mid, .dim)
        c.put(max(0, c.width - displayWidth(right) - 1), y, right, .dim)
        y += 1
    }
}
