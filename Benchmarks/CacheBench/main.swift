// Recording and cache benchmark, each side against its baseline in the same run. Prints one JSON object.
// 1. Recording overhead: requests for distinct real-sized bodies through the upstream client with the recording tap (and a
//    request event recorded per request, as a session does) vs without, alternating paced batches; latency per request and the
//    process's CPU seconds per request (the recorder's writes included: each recorded batch ends when its file is closed).
// 2. Cache hits: a 2 MB segment through the Loader from its disk cache vs through the Loader from the origin vs direct.
import Foundation
import Loader
import LoaderCore
import NIOPosix
import Origin
import Recording

let media = try MediaLibrary.load(
    cache: URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ".build/test-media"))
let origin = try OriginServer.start(router: OriginRouter(media: media, state: OriginState(startedAt: Date().timeIntervalSince1970)))
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-cache-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
}

func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

// 1. Recording overhead.
let plain = try UpstreamClient(group: group)
nonisolated(unsafe) var serial = 0
/// One batch of `n` requests, each for a body never asked for before (a new length: a new hash, written once).
func batch(_ n: Int, record: Bool) async throws -> (latencies: [Double], cpu: Double) {
    var recorder: Recorder?
    var client = plain
    if record {
        let r = try Recorder(path: scratch.appendingPathComponent("r\(serial).sqlite").path, meta: [], onFailure: { _ in })
        var o = UpstreamOptions()
        o.tap = r.tap(pane: 0)
        client = try UpstreamClient(group: group, options: o)
        recorder = r
    }
    let cpu0 = cpuSeconds()
    var lat: [Double] = []
    let t0 = Date()
    for _ in 0..<n {
        serial += 1
        // Paced as a session asks (a few requests a second per pane, here one per 10 ms): the recorder writes between requests,
        // as it does in a session, instead of competing with a request loop that keeps both cores busy.
        try await Task.sleep(for: .milliseconds(10))
        let r = try await client.get("\(origin.httpBase)/control/blob.ts?bytes=\(68_000 + serial)", keepBody: 65_536)
        lat.append(r.seconds * 1000)
        recorder?.event(
            t: Date().timeIntervalSince(t0), name: "request", pane: 0,
            json: #"{"event":"request","kind":"segment","bytes":\#(r.bytes),"status":\#(r.head.status)}"#)
    }
    recorder?.close()
    if record { client.shutdown() }
    return (lat, cpuSeconds() - cpu0)
}
for _ in 0..<2 {
    _ = try await batch(50, record: false)
    _ = try await batch(50, record: true)
}
var latPlain: [Double] = [], latRecord: [Double] = [], cpuPlain = 0.0, cpuRecord = 0.0
let perBatch = 100
let batches = 8
for _ in 0..<batches {
    let a = try await batch(perBatch, record: false)
    let b = try await batch(perBatch, record: true)
    latPlain += a.latencies
    latRecord += b.latencies
    cpuPlain += a.cpu
    cpuRecord += b.cpu
}

// 2. Cache hits through the Loader.
func loaderURL(_ loader: LoaderServer, _ playlist: String) async throws -> String {
    let entry = try await loader.open(playlist)
    let text = String(decoding: try await plain.get(entry).body, as: UTF8.self)
    return String(text.split(separator: "\n").first { $0.contains("/segment/") } ?? "")
}
var cached = LoaderOptions()
cached.upstream.cache = try DiskCache(
    CacheOptions(
        directory: scratch.appendingPathComponent("cache").path, limit: 1 << 30, vaultPath: scratch.appendingPathComponent("vault.key").path
    ))
let hitLoader = try LoaderServer.start(options: cached)
let missLoader = try LoaderServer.start()
let playlist = "\(origin.httpBase)/control/bench.m3u8?bytes=2000000"
let hitURL = try await loaderURL(hitLoader, playlist)
let missURL = try await loaderURL(missLoader, playlist)
let direct = "\(origin.httpBase)/control/blob.ts?bytes=2000000"
_ = try await plain.get(hitURL, keepBody: 0)
var mbDirect: [Double] = [], mbMiss: [Double] = [], mbHit: [Double] = []
for _ in 0..<30 {
    let a = try await plain.get(direct, keepBody: 0)
    mbDirect.append(Double(a.bytes) / a.seconds / 1e6)
    let b = try await plain.get(missURL, keepBody: 0)
    mbMiss.append(Double(b.bytes) / b.seconds / 1e6)
    let c = try await plain.get(hitURL, keepBody: 0)
    mbHit.append(Double(c.bytes) / c.seconds / 1e6)
}
hitLoader.stop()
missLoader.stop()

let out: [String: Double] = [
    "requests": Double(perBatch * batches),
    "latPlainP50": percentile(latPlain, 0.5), "latRecordP50": percentile(latRecord, 0.5),
    "latPlainP99": percentile(latPlain, 0.99), "latRecordP99": percentile(latRecord, 0.99),
    "cpuPlainMs": 1000 * cpuPlain / Double(perBatch * batches), "cpuRecordMs": 1000 * cpuRecord / Double(perBatch * batches),
    "hitMBps": percentile(mbHit, 0.5), "missMBps": percentile(mbMiss, 0.5), "directMBps": percentile(mbDirect, 0.5),
]
print(String(decoding: try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]), as: UTF8.self))
plain.shutdown()
origin.stop()
exit(0)
