import HLS
import LoaderEvents

/// The timed metadata a stream carries (docs/EVENTS.md): each item as the Loader read it from a segment, said when the
/// playhead reaches its time.
public struct TimedMetadataTrack: Sendable {
    /// The items read, in time order (the newest `limit`); the same item read twice (a segment fetched again) once.
    public internal(set) var items: [TimedMetadataEvent] = []
    /// The items the playhead has reached, in all.
    public internal(set) var reached = 0
    /// The playhead at the last look: an item is reached when a look finds the playhead past it, moving on from there.
    var lastLook: Double?

    public static let limit = 500

    mutating func add(_ e: TimedMetadataEvent) {
        guard !items.contains(where: { $0.scheme == e.scheme && $0.id == e.id && abs($0.time - e.time) < 0.001 }) else { return }
        items.append(e)
        items.sort { $0.time < $1.time }
        if items.count > Self.limit { items.removeFirst(items.count - Self.limit) }
    }

    /// The items the playhead passed between the last look and raw time `time`. A jump (a seek, a reload, a timestamp reset:
    /// backwards, or more than a second on) says nothing of what lies between: the look starts afresh there, with what lies
    /// at most half a second before it (the first frame of a start or a seek is a look or two earlier than the watcher's).
    mutating func follow(_ time: Double) -> [TimedMetadataEvent] {
        defer { lastLook = time }
        let from = lastLook.flatMap { time >= $0 && time - $0 < 1 ? $0 + 0.0005 : nil } ?? time - 0.5
        let passed = items.filter { $0.time > from && $0.time <= time + 0.0005 }
        reached += passed.count
        return passed
    }
}

extension SessionState {
    /// Timed metadata the playhead reached at raw time `time` (read just now).
    mutating func followMetadata(time: Double?, at t: Double) -> [SessionFact] {
        guard let time, !playerLoading, !metadata.items.isEmpty else { return [] }
        return metadata.follow(time).map { .metadata($0, at: time) }
    }
}
