import NIOConcurrencyHelpers

/// The tasks a pane starts, all of them: each is remembered until it ends, and `cancelAll` cancels every one still running
/// and refuses new ones, so nothing a pane started outlives it unnoticed.
final class OwnedTasks: Sendable {
    private struct Table {
        var next = 0
        var running: [Int: Task<Void, Never>] = [:]
        var closed = false
    }

    private let table = NIOLockedValueBox(Table())

    /// Starts `body` as a task this set owns; nothing when the set was cancelled.
    func spawn(_ body: @escaping @Sendable () async -> Void) {
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
    func cancelAll() {
        let running = table.withLockedValue { t -> [Task<Void, Never>] in
            t.closed = true
            defer { t.running = [:] }
            return Array(t.running.values)
        }
        for task in running { task.cancel() }
    }
}
