import Foundation
import TestSupport
import Testing
@testable import Loader
@testable import Origin

/// What this process holds now: threads, open descriptors.
enum ProcessFloor {
    static var threads: Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
        return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? -1
    }
    static var descriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
}

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
        func cycle() async throws {
            let loader = try LoaderServer.start()
            let url = try await loader.open("\(origin.httpBase)/vod-ts/master.m3u8", variants: [0])
            let c = try ClientOrigins.client()
            let segments = segmentLines(try await firstMedia(c, url).text)
            _ = try await c.get(segments[0])
            c.shutdown()
            await c.closed()
            await loader.shutdown()
        }
        for _ in 0..<5 { try await cycle() }
        let (threads, fds) = (ProcessFloor.threads, ProcessFloor.descriptors)
        for _ in 0..<50 { try await cycle() }
        #expect(ProcessFloor.threads <= threads + 2, "threads \(threads) → \(ProcessFloor.threads)")
        #expect(ProcessFloor.descriptors <= fds + 4, "descriptors \(fds) → \(ProcessFloor.descriptors)")
    }
}
