import App
import Foundation
import JSONValue
import Origin
import Player
import Session

// Time to first frame: hlstui (Loader + libmpv, the dashboard's session) vs libmpv alone on the same stream, same options, same run.
// Usage: hlstui-session-bench MEDIA_CACHE [RUNS]; prints one JSON object.

// Or: hlstui-session-bench MEDIA_CACHE restarts N (RestartsBench).

let args = CommandLine.arguments
let cache = URL(fileURLWithPath: args.count > 1 ? args[1] : ".build/test-media")
let runs = args.count > 2 ? Int(args[2]) ?? 9 : 9
let media = try MediaLibrary.load(cache: cache)
let origin = try OriginServer.start(
    router: OriginRouter(media: media, state: OriginState(startedAt: Date().timeIntervalSince1970)), tls: false)
defer { origin.stop() }

let player: PlayerOptions = {
    var p = PlayerOptions()
    p.video = .none
    p.audioOutput = "null"
    return p
}()

if args.count > 3, args[2] == "restarts" {
    print(await RestartsBench.run(base: origin.httpBase, origin: origin.router.state, count: Int(args[3]) ?? 1000, player: player).text)
    exit(0)
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// libmpv alone: load the origin URL, wait for the first playback-restart (first frame decoded and shown).
func plainMPV(_ url: String) async throws -> Double {
    // Both sides pay for creating the player: a user's `mpv URL` does too.
    let t0 = ContinuousClock.now
    let mpv = try MPV(options: player.mpvOptions(audio: player.chooseAudio()))
    defer { mpv.close() }
    try mpv.command(.loadfile(url))
    for await e in mpv.events {
        if case .playbackRestart = e { return seconds(ContinuousClock.now - t0) }
        if case .endFile(.error, _) = e { return .nan }
    }
    return .nan
}

/// hlstui: a Pane (Loader + libmpv) from open to the session seeing playback start.
func hlstui(_ url: String) async throws -> Double {
    let t0 = ContinuousClock.now
    let pane = try Pane(
        index: 0,
        config: {
            var c = PaneConfig(url: url); c.player = player; return c
        }(), started: t0
    ) { _ in }
    Task { await pane.open() }
    var elapsed = Double.nan
    // The pane publishes the start as soon as it sees it.
    while ContinuousClock.now - t0 < .seconds(20) {
        let s = pane.snapshot
        if s.started { elapsed = seconds(ContinuousClock.now - t0) }
        if s.started || s.error != nil { break }
        try await Task.sleep(for: .milliseconds(1))
    }
    await pane.close()
    return elapsed
}

func median(_ xs: [Double]) -> Double {
    let s = xs.filter { !$0.isNaN }.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

var out: [(String, JSONValue)] = []
let streams = [
    ("vod-ts", "\(origin.httpBase)/vod-ts/master.m3u8"), ("vod-fmp4", "\(origin.httpBase)/vod-fmp4/master.m3u8"),
    ("wide-12", "\(origin.httpBase)/vod-ts/wide.m3u8?copies=3"), ("live-ts", "\(origin.httpBase)/live-ts/master.m3u8"),
]
for (name, url) in streams {
    _ = try await plainMPV(url)
    _ = try await hlstui(url)
    var a: [Double] = [], b: [Double] = []
    for _ in 0..<runs {
        a.append(try await plainMPV(url))
        b.append(try await hlstui(url))
    }
    out.append(
        (
            name,
            .object([
                ("mpv", .double(median(a))), ("hlstui", .double(median(b))), ("mpvMin", .double(a.min())), ("hlstuiMin", .double(b.min())),
            ])
        ))
}
print(JSONValue.object(out).text)
exit(0)
