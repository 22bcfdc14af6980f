/// The ids in the Loader's URLs: each upstream resource gets one, the same every time it is named. A live playlist's segments
/// are forgotten once the playlists served list nothing near them, so a session of days keeps a table of a few windows, not
/// of every segment it ever saw (DECISIONS.md, bounded memory). Pure: the server holds it under its lock.
public struct ResourceIDs<Group: Hashable & Sendable, Value: Sendable>: Sendable {
    private var values: [Int: Value] = [:]
    private var ids: [String: Int] = [:]
    /// The name of each id that may be forgotten.
    private var names: [Int: String] = [:]
    /// Each playlist's segment ids, by MSN.
    private var segments: [Group: [Int: [Int]]] = [:]
    private var last = 0

    public init() {}

    /// The id of the resource named `name` (its value replaced by `value`); a segment of `playlist` at `msn` may be forgotten
    /// later (`forget`).
    public mutating func id(_ name: String, _ value: Value, segmentOf playlist: Group? = nil, msn: Int? = nil) -> Int {
        if let id = ids[name] {
            values[id] = value
            return id
        }
        last += 1
        ids[name] = last
        values[last] = value
        if let playlist, let msn {
            names[last] = name
            segments[playlist, default: [:]][msn, default: []].append(last)
        }
        return last
    }

    public subscript(id: Int) -> Value? { values[id] }

    /// Forgets `playlist`'s segments before `msn`: asked for again, their ids are unknown.
    public mutating func forget(_ playlist: Group, before msn: Int) {
        guard var bySegment = segments[playlist] else { return }
        for (n, list) in bySegment where n < msn {
            for id in list {
                values[id] = nil
                if let name = names.removeValue(forKey: id) { ids[name] = nil }
            }
            bySegment[n] = nil
        }
        segments[playlist] = bySegment
    }

    /// Resources known now.
    public var count: Int { values.count }
}
