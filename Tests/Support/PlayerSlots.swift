import Foundation

/// How many real players (libmpv decoding real media) the suites run at once. The suites run in parallel and
/// each plays in real time, so without a bound ten or more players share two cores and every timing a test
/// measures is the scheduler's, not hlstui's. A run waits here until its panes fit; `HLSTUI_TEST_PLAYERS` sets
/// the bound (default: three per core; docs/TESTING.md).
///
/// A run that takes every slot (`alone`) waits until no smaller run waits and every slot is free: smaller runs that ask
/// after it go first. First come first served, each such run emptied the machine while it waited for the longest player
/// to end — 457 slot-seconds, a minute and a quarter of the tier's eleven, in seven waits. Deferred, they run back to back
/// at the end, and the machine empties once. A test without a player whose timing is its point (a Loader at the origin's
/// real-time LL clock) takes every slot too (`alone`).
public actor PlayerSlots {
    public static let shared = PlayerSlots(
        capacity: Int(ProcessInfo.processInfo.environment["HLSTUI_TEST_PLAYERS"] ?? "") ?? 3 * ProcessInfo.processInfo.activeProcessorCount)

    public nonisolated let capacity: Int
    private var used = 0
    private var waiting: [(count: Int, label: String, resume: CheckedContinuation<Void, Never>)] = []
    /// `HLSTUI_TEST_SLOTS=FILE`: every grant and release, a line each (seconds since the first, `+`/`-`, players, slots in
    /// use, the run's first URL), to see where the tier's time goes (docs/TESTING.md).
    private let trace = ProcessInfo.processInfo.environment["HLSTUI_TEST_SLOTS"].flatMap { FileHandle(forWritingAtPath: $0) }
    private let born = ContinuousClock.now

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    private func note(_ sign: String, _ n: Int, _ label: String) {
        guard let trace else { return }
        let t = ContinuousClock.now - born
        let seconds = Double(t.components.seconds) + Double(t.components.attoseconds) / 1e18
        trace.write(Data("\((seconds * 10).rounded() / 10) \(sign)\(n) \(used) \(label)\n".utf8))
    }

    /// The players a command line starts: one per stream URL, one for `demo`.
    public static func panes(in args: [String]) -> Int {
        max(1, args.filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") || $0 == "demo" }.count)
    }

    /// Waits, first come first served, until `count` more players fit.
    public func acquire(_ count: Int, _ label: String = "") async {
        let n = min(count, capacity)
        await withCheckedContinuation { k in
            waiting.append((n, label, k))
            grant()
        }
    }

    public func release(_ count: Int, _ label: String = "") {
        used -= min(count, capacity)
        note("-", min(count, capacity), label)
        grant()
    }

    /// Starts every waiting run that fits, first come first served among the smaller ones; a run that takes every slot
    /// only when none of them waits.
    private func grant() {
        while let i = waiting.firstIndex(where: { $0.count < capacity }) ?? waiting.indices.first, used + waiting[i].count <= capacity {
            let next = waiting.remove(at: i)
            used += next.count
            note("+", next.count, next.label)
            next.resume.resume()
        }
    }
}

extension PlayerSlots {
    /// Runs `body` with every slot taken: no player beside it (docs/TESTING.md, `alone`).
    public static func alone<T: Sendable>(_ label: String, _ body: () async throws -> T) async rethrows -> T {
        await shared.acquire(shared.capacity, label)
        do {
            let value = try await body()
            await shared.release(shared.capacity, label)
            return value
        } catch {
            await shared.release(shared.capacity, label)
            throw error
        }
    }
}
