// Times hlstui's playlist parser on FILE: median of N runs, and memory. Prints one JSON line.
import Foundation
import HLS

let args = CommandLine.arguments
guard args.count == 3, let runs = Int(args[2]), let data = FileManager.default.contents(atPath: args[1]) else {
    FileHandle.standardError.write(Data("usage: hlstui-parse-bench FILE RUNS\n".utf8))
    exit(2)
}
let text = String(decoding: data, as: UTF8.self)

func maxRSSKB() -> Int {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return u.ru_maxrss
}

let before = maxRSSKB()
var times: [Double] = []
var count = 0
let clock = ContinuousClock()
for _ in 0..<runs {
    let start = clock.now
    let r = PlaylistParser.parseLenient(text)
    let elapsed = clock.now - start
    times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    count = (r.playlist.media?.segments.count ?? 0) + (r.playlist.multivariant?.variants.count ?? 0)
}
let after = maxRSSKB()
times.sort()
let median = times[times.count / 2]
print("{\"medianMs\": \(median), \"minMs\": \(times[0]), \"peakRssKB\": \(after), \"growthKB\": \(after - before), \"items\": \(count)}")
