import Foundation
import TestSupport
import Testing
@testable import Loader
@testable import Origin

/// An origin for these tests alone: they switch its faults on and clear them.
enum LifecycleOrigin {
    static let shared = TestOrigins.start()
}

@Suite("The Loader's lifecycle: every task owned, every connection closed, nothing left by a stop", .serialized)
struct LoaderLifecycleTests {
    let origin = LifecycleOrigin.shared

    @Test("shutdown returns with a player request hanging on a stalled origin: no task, no connection left")
    func shutdownUnderLoad() async throws {
        let state = origin.router.state
        defer { state.clearFaults() }
        let loader = try LoaderServer.start()
        let url = try await loader.open("\(origin.httpBase)/vod-ts/master.m3u8", variants: [0])
        let c = try ClientOrigins.client { $0.readTimeout = 60 }
        defer { c.shutdown() }
        let segments = segmentLines(try await firstMedia(c, url).text)
        var f = Fault(
            id: 0, kind: .stall, target: .segment, status: 200, ms: 0, scenario: "vod-ts", rendition: "v144", msn: 1, remaining: nil,
            since: 0)
        f.bytes = 4096
        f.hold = 60
        _ = state.add(f)
        let hanging = Task { try? await c.get(segments[1]) }
        #expect(await eventually { loader.runningTasks > 0 && loader.client.openConnections > 0 })
        let t0 = ContinuousClock.now
        await loader.shutdown()
        #expect(ContinuousClock.now - t0 < .seconds(2), "shutdown waited \(ContinuousClock.now - t0)")
        #expect(loader.runningTasks == 0 && loader.client.openConnections == 0)
        // The player's connection was closed with the Loader: its request ends too.
        _ = await hanging.value
    }

    @Test("fifty Loaders started, used and shut down: the process's threads and descriptors stay where they were")
    func noGrowth() async throws {
        // In a process of its own (`hlstui-loader-bench cycles`): in this one the other suites start and stop origins,
        // players and Loaders at the same time, and move both counts.
        let bench = TestPackage.root.appendingPathComponent(".build/debug/hlstui-loader-bench")
        let r = try await ChildProcess.run(bench, ["cycles", TestPackage.mediaCache.path, "50"])
        let text = r.stdout
        #expect(r.status == 0, "\(r.output)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [Int]], "\(text)")
        let (threads, fds) = (try #require(o["threads"]), try #require(o["descriptors"]))
        #expect(threads[1] <= threads[0] + 2, "threads \(threads[0]) → \(threads[1])")
        #expect(fds[1] <= fds[0] + 4, "descriptors \(fds[0]) → \(fds[1])")
    }
}
