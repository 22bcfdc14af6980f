import HLS
import LoaderEvents

/// The timed metadata a stream carries (docs/EVENTS.md): each item as the Loader read it from a segment, said when the
/// playhead reaches its time.
public struct TimedMetadataTrack: Sendable {
    /// The items read, in time order (the newest `limit`); the same item read twice (a segment fetched again) once.
    public internal(set) var items: [TimedMetadataEvent] = []
    /// The items the playhead has reached, in all.
    public internal(set) var reached = 0
    /// The playhead at the last look, and the session time of that look: an item is reached when a look finds the playhead
    /// past it, moving on from there.
    var lastLook: (time: Double, at: Double)?

    public static let limit = 500

    mutating func add(_ e: TimedMetadataEvent) {
        guard !items.contains(where: { $0.scheme == e.scheme && $0.id == e.id && abs($0.time - e.time) < 0.001 }) else { return }
        items.append(e)
        items.sort { $0.time < $1.time }
        if items.count > Self.limit { items.removeFirst(items.count - Self.limit) }
    }

    /// The items the playhead passed between the last look and raw time `time`, read at session time `t`. A jump (a seek, a
    /// reload, a timestamp reset: the playhead moved half a second more or less than the time between the looks) says
    /// nothing of what lies between: the look starts afresh there, with what lies at most half a second before it (the first
    /// frame of a start or a seek is a look or two earlier than the watcher's). A late look on a loaded machine is no jump.
    mutating func follow(_ time: Double, at t: Double) -> [TimedMetadataEvent] {
        defer { lastLook = (time, t) }
        let from = lastLook.flatMap { l in time >= l.time && abs((time - l.time) - (t - l.at)) < 0.5 ? l.time + 0.0005 : nil } ?? time - 0.5
        let passed = items.filter { $0.time > from && $0.time <= time + 0.0005 }
        reached += passed.count
        return passed
    }
}

extension SessionState {
    /// Timed metadata the playhead reached at raw time `time` (read just now).
    mutating func followMetadata(time: Double?, at t: Double) -> [SessionFact] {
        guard let time, !playerLoading, !metadata.items.isEmpty else { return [] }
        return metadata.follow(time, at: t).map { .metadata($0, at: time) }
    }
}
