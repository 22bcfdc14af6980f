import HLS
import LoaderEvents

/// The timed metadata a stream carries (docs/EVENTS.md): each item as the Loader read it from a segment, said when the
/// playhead reaches its time.
public struct TimedMetadataTrack: Sendable {
    /// The items read, in stream order (by segment, then time; the newest `limit`); the same item read twice (a segment
    /// fetched again) once. A stream whose timestamps start again each loop repeats its times: the segment tells them apart.
    public internal(set) var items: [TimedMetadataEvent] = []
    /// The items the playhead has reached, in all.
    public internal(set) var reached = 0
    /// The playhead at the last look (its raw time and segment), and the session time of that look: an item is reached when a
    /// look finds the playhead past it, moving on from there.
    var lastLook: (time: Double, at: Double, msn: Int?)?

    public static let limit = 500

    mutating func add(_ e: TimedMetadataEvent) {
        guard !items.contains(where: { $0.msn == e.msn && $0.scheme == e.scheme && $0.id == e.id && abs($0.time - e.time) < 0.001 })
        else { return }
        items.append(e)
        items.sort { ($0.msn, $0.time) < ($1.msn, $1.time) }
        if items.count > Self.limit { items.removeFirst(items.count - Self.limit) }
    }

    /// The items the playhead passed between the last look and raw time `time` in segment `msn`, read at session time `t`. A
    /// jump (a seek, a reload, a timestamp reset: the playhead moved half a second more or less than the time between the
    /// looks) says nothing of what lies between: the look starts afresh there, with what lies at most half a second before it
    /// (the first frame of a start or a seek is a look or two earlier than the watcher's). A late look on a loaded machine is
    /// no jump. Only the segments between the looks count: a stream whose timestamps start again each loop has an item of an
    /// earlier loop at the same time.
    mutating func follow(_ time: Double, msn: Int?, at t: Double) -> [TimedMetadataEvent] {
        defer { lastLook = (time, t, msn) }
        let going = lastLook.flatMap { l in time >= l.time && abs((time - l.time) - (t - l.at)) < 0.5 ? l : nil }
        let from = going.map { $0.time + 0.0005 } ?? time - 0.5
        let segments = msn.map { m in (going?.msn.map { min($0, m) } ?? m - 1)...m }
        let passed = items.filter { e in e.time > from && e.time <= time + 0.0005 && segments.map { $0.contains(e.msn) } != false }
        reached += passed.count
        return passed
    }
}

extension SessionState {
    /// Timed metadata the playhead reached at raw time `time` (read just now).
    mutating func followMetadata(time: Double?, at t: Double) -> [SessionFact] {
        guard let time, !playerLoading, !metadata.items.isEmpty else { return [] }
        let msn = playingMedia.flatMap { clock.locate(time, in: $0) }?.msn
        return metadata.follow(time, msn: msn, at: t).map { .metadata($0, at: time) }
    }
}
