// Loader benchmark: added latency per request and throughput through the Loader vs direct to the origin,
// and startup of mpv with a 300 ms key server vs the same stream without keys, all in one run. Prints one JSON object.
import LoaderCore
import LoaderEvents
import Foundation
import Loader
import NIOPosix
import Origin

if CommandLine.arguments.count > 3, CommandLine.arguments[1] == "cycles" {
    try await Cycles.run(media: CommandLine.arguments[2], count: Int(CommandLine.arguments[3]) ?? 50)
    exit(0)
}

let cache = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ".build/test-media")
let media = try MediaLibrary.load(cache: cache)
let state = OriginState(startedAt: Date().timeIntervalSince1970)
let origin = try OriginServer.start(router: OriginRouter(media: media, state: state))
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let client = try UpstreamClient(group: group)

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
}

/// The Loader URL of the first segment of `playlist` (opened through `loader`).
func segmentURL(_ loader: LoaderServer, _ playlist: String) async throws -> String {
    let entry = try await loader.open(playlist)
    let text = String(decoding: try await client.get(entry).body, as: UTF8.self)
    return String(text.split(separator: "\n").first { $0.contains("/segment/") } ?? "")
}

// 1. Per-request latency on a real segment, alternating direct and through the Loader.
let loader = try LoaderServer.start()
let direct = "\(origin.httpBase)/vod-ts/v144/seg3.ts"
let proxied = try await segmentURL(loader, "\(origin.httpBase)/vod-ts/v144/index.m3u8")
for _ in 0..<50 { _ = try await client.get(direct); _ = try await client.get(proxied) }
var d: [Double] = [], l: [Double] = []
for _ in 0..<400 {
    d.append(try await client.get(direct).seconds * 1000)
    l.append(try await client.get(proxied).seconds * 1000)
}

// 2. Throughput of a 2 MB segment, alternating direct and through the Loader: median MB/s of each.
func throughput(_ query: String, runs: Int) async throws -> (direct: Double, loader: Double) {
    let direct = "\(origin.httpBase)/control/blob.ts?\(query)"
    let proxied = try await segmentURL(loader, "\(origin.httpBase)/control/bench.m3u8?\(query)")
    var a: [Double] = [], b: [Double] = []
    for _ in 0..<runs {
        let x = try await client.get(direct, keepBody: 0)
        a.append(Double(x.bytes) / x.seconds / 1e6)
        let y = try await client.get(proxied, keepBody: 0)
        b.append(Double(y.bytes) / y.seconds / 1e6)
    }
    return (percentile(a, 0.5), percentile(b, 0.5))
}
let unpaced = try await throughput("bytes=2000000", runs: 40)
// 2b. The same over a paced origin link: what a player sees when the origin, not the CPU, sets the pace.
var paced: [String: Double] = [:]
for mbit in [1000, 4000] {
    let r = try await throughput("bytes=2000000&mbit=\(mbit)", runs: 20)
    paced["pacedDirect\(mbit)"] = r.direct
    paced["pacedLoader\(mbit)"] = r.loader
}
loader.stop()
if CommandLine.arguments.count > 2, CommandLine.arguments[2] == "throughput" {
    print("direct \(unpaced.direct) loader \(unpaced.loader) ratio \(unpaced.loader / unpaced.direct) \(paced)")
    exit(0)
}

// 3. Startup: open + mpv to its first decoded frame and exit, through the Loader; AES with 300 ms keys vs clear.
func mpvSeconds(_ url: String) throws -> Double {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["mpv", "--no-config", "--vo=null", "--ao=null", "--frames=1", "--really-quiet", url]
    let t = Date()
    try p.run()
    p.waitUntilExit()
    return Date().timeIntervalSince(t)
}

/// Seconds (from open) at which the first key was ready and the first segment was asked for, in the last keyed run.
nonisolated(unsafe) var keyTimeline: (key: Double, segment: Double) = (0, 0)

func startup(_ path: String, prefetch: Bool = true) async throws -> Double {
    var o = LoaderOptions()
    o.prefetchKeys = prefetch
    let l = try LoaderServer.start(options: o)
    defer { l.stop() }
    let events = Task { () -> [LoaderEvent] in
        var all: [LoaderEvent] = []; for await e in l.events { all.append(e) }; return all
    }
    let t = Date()
    let opened = l.now
    let url = try await l.open("\(origin.httpBase)\(path)", variants: [0])
    _ = try mpvSeconds(url)
    let total = Date().timeIntervalSince(t)
    l.stop()
    let all = await events.value
    let key = all.compactMap { e -> Double? in
        if case .key(let k) = e { return k.requested + k.latencyMs / 1000 }; return nil
    }.min()
    let seg = all.compactMap { e -> Double? in
        if case .request(let r) = e, r.kind == .segment { return r.start }; return nil
    }.min()
    if prefetch, let key, let seg { keyTimeline = (key - opened, seg - opened) }
    return total
}

state.keyLatencyMs = 300
var clear: [Double] = [], keyed: [Double] = [], onDemand: [Double] = [], directKeyed: [Double] = []
for _ in 0..<7 {
    clear.append(try await startup("/vod-ts/master.m3u8"))
    keyed.append(try await startup("/aes-vod/master.m3u8"))
    onDemand.append(try await startup("/aes-vod/master.m3u8", prefetch: false))
    directKeyed.append(try mpvSeconds("\(origin.httpBase)/aes-vod/master.m3u8"))
}

let out: [String: Double] = [
    "directP50": percentile(d, 0.5), "directP99": percentile(d, 0.99), "loaderP50": percentile(l, 0.5), "loaderP99": percentile(l, 0.99),
    "segmentBytes": Double(media.rendition("v144", .ts)!.segments[3].bytes.count),
    "directMBps": unpaced.direct, "loaderMBps": unpaced.loader,
    "keyReadyAfterOpen": keyTimeline.key, "firstSegmentAfterOpen": keyTimeline.segment,
    "startupClear": percentile(clear, 0.5), "startupKeyed": percentile(keyed, 0.5), "startupDirectKeyed": percentile(directKeyed, 0.5),
    "startupOnDemand": percentile(onDemand, 0.5),
].merging(paced) { a, _ in a }
let json = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
client.shutdown()
origin.stop()
exit(0)
