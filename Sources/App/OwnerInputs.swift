import Loader

/// An owner loop's way back to itself (docs/ARCHITECTURE.md, the pane): work it starts runs as tasks of a set the owner's
/// parent cancels and awaits (`OwnedTasks`), and what the work answers, and the timers it sets, come back as inputs, taken in
/// the order they arrive. The owner never waits for its own work.
struct OwnerInputs<Input: Sendable>: Sendable {
    let tasks: OwnedTasks
    let continuation: AsyncStream<Input>.Continuation

    /// Starts `body` as a task the owner's set owns.
    func spawn(_ body: @escaping @Sendable () async -> Void) { tasks.spawn(body) }

    /// Starts `work`; what it answers (nil: nothing) comes back as an input.
    func ask(_ work: @escaping @Sendable () async -> Input?) {
        let continuation = continuation
        spawn { if let input = await work() { continuation.yield(input) } }
    }

    /// Sends `input` back after `ms` milliseconds (nothing once the set is cancelled).
    func after(_ ms: Int, _ input: Input) {
        let continuation = continuation
        spawn {
            try? await Task.sleep(for: .milliseconds(ms))
            if !Task.isCancelled { continuation.yield(input) }
        }
    }

    /// Every `ms` milliseconds sends `make`'s input and waits until the owner has taken it (it resumes the continuation), so
    /// looks never pile up behind a busy owner.
    func every(_ ms: Int, _ make: @escaping @Sendable (CheckedContinuation<Void, Never>) -> Input) {
        let continuation = continuation
        spawn {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(ms))
                await withCheckedContinuation { k in
                    if case .terminated = continuation.yield(make(k)) { k.resume() }
                }
            }
        }
    }
}
