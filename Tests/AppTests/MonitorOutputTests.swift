import Foundation
import Testing
@testable import App
import JSONValue
import NIOConcurrencyHelpers

/// The monitor's line writer, with real threads: lines written at once from a pane's report and from a tick stay in time order.
@Suite("Monitor lines are stamped in the order they are written")
struct MonitorOutputTests {
    final class Lines: Sendable {
        private let box = NIOLockedValueBox<[String]>([])
        var all: [String] { box.withLockedValue { $0 } }
        func add(_ s: String) { box.withLockedValue { $0.append(s) } }
    }

    @Test("four threads writing 500 lines each: t never goes back, a tick's lines share one t")
    func ordered() async throws {
        let lines = Lines()
        let out = MonitorOutput(started: .now, write: lines.add)
        DispatchQueue.concurrentPerform(iterations: 4) { k in
            for n in 0..<500 {
                if k == 0 {
                    out.emit([("player", [("pane", .int(0))]), ("player", [("pane", .int(1))]), ("sync", [("n", .int(n))])])
                } else {
                    out.emit("request", [("n", .int(n))])
                }
            }
        }
        let objects = try lines.all.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.count == 3000, "500 ticks of three lines and 3 × 500 single lines")
        let t = objects.compactMap { $0["t"] as? Double }
        #expect(t.count == objects.count && zip(t, t.dropFirst()).allSatisfy { $1 >= $0 })
        // Every sync line follows the two player lines of its tick, with their stamp.
        let events = objects.map { $0["event"] as? String ?? "" }
        let syncs = events.indices.filter { events[$0] == "sync" }
        #expect(syncs.count == 500)
        for i in syncs {
            let tick = objects[(i - 2)...i].map { $0["t"] as? Double ?? -1 }
            #expect(Set(tick).count == 1 && events[i - 2] == "player" && events[i - 1] == "player")
        }
    }
}
