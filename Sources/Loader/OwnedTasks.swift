import NIOConcurrencyHelpers

/// The tasks a pane or a Loader starts, all of them: each is remembered until it ends, and `cancelAll` cancels every one still
/// running and refuses new ones, so nothing it started outlives it unnoticed; `drain` also waits for them to end.
public final class OwnedTasks: Sendable {
    private struct Table {
        var next = 0
        var running: [Int: Task<Void, Never>] = [:]
        var closed = false
    }

    private let table = NIOLockedValueBox(Table())

    public init() {}

    /// How many tasks are running.
    public var count: Int { table.withLockedValue { $0.running.count } }

    /// Starts `body` as a task this set owns; nothing when the set was cancelled.
    public func spawn(_ body: @escaping @Sendable () async -> Void) {
        table.withLockedValue { t in
            guard !t.closed else { return }
            let id = t.next
            t.next += 1
            // Created under the lock: its own removal, which takes the lock, cannot come before its insertion.
            t.running[id] = Task { [table] in
                await body()
                _ = table.withLockedValue { $0.running.removeValue(forKey: id) }
            }
        }
    }

    /// Cancels every running task and refuses new ones.
    public func cancelAll() { _ = close() }

    /// Cancels every running task, refuses new ones, and returns once every one has ended.
    public func drain() async {
        for task in close() { await task.value }
    }

    private func close() -> [Task<Void, Never>] {
        let running = table.withLockedValue { t -> [Task<Void, Never>] in
            t.closed = true
            defer { t.running = [:] }
            return Array(t.running.values)
        }
        for task in running { task.cancel() }
        return running
    }
}
