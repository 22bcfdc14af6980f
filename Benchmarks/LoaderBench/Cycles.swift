import Foundation
import Loader
import Origin
import NIOPosix

/// `hlstui-loader-bench cycles MEDIA N`: Loaders started, used (a playlist and a segment through each) and shut down, `N` of
/// them after five to warm up, in a process of their own, so nothing else moves its threads and descriptors. Prints
/// `{"threads":[before,after],"descriptors":[before,after]}` (the lifecycle test reads it; DECISIONS.md, one event-loop group).
enum Cycles {
    static var threads: Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
        return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? -1
    }
    static var descriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

    static func run(media: String, count: Int) async throws {
        let library = try MediaLibrary.load(cache: URL(fileURLWithPath: media))
        let origin = try OriginServer.start(
            router: OriginRouter(media: library, state: OriginState(startedAt: Date().timeIntervalSince1970)))
        func cycle() async throws {
            let loader = try LoaderServer.start()
            let c = try UpstreamClient(group: .singletonMultiThreadedEventLoopGroup)
            let entry = try await loader.open("\(origin.httpBase)/vod-ts/master.m3u8", variants: [0])
            let master = String(decoding: try await c.get(entry).body, as: UTF8.self)
            let media = master.split(separator: "\n").first { $0.hasPrefix("http") && $0.contains("/media/") }.map(String.init) ?? entry
            let text = String(decoding: try await c.get(media).body, as: UTF8.self)
            if let segment = text.split(separator: "\n").first(where: { $0.contains("/segment/") }) { _ = try await c.get(String(segment)) }
            c.shutdown()
            await c.closed()
            await loader.shutdown()
        }
        for _ in 0..<5 { try await cycle() }
        let before = (threads, descriptors)
        for _ in 0..<count { try await cycle() }
        print("{\"threads\":[\(before.0),\(threads)],\"descriptors\":[\(before.1),\(descriptors)]}")
        origin.stop()
    }
}
