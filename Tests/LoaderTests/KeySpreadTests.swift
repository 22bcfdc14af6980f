import LoaderCore
import LoaderEvents
import Foundation
import HLS
import TestSupport
import Testing
@testable import Loader
@testable import LoaderCore
import Origin

@Suite("Key-request spreading")
struct KeySpreadTests {
    static let origin = ClientOrigins.make()

    static func live() -> MediaPlaylist {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n"
        for i in 100..<108 { t += "#EXTINF:2.0,\ns\(i).ts\n" }
        return PlaylistParser.parseLenient(t).playlist.media!
    }

    @Test("the lead is the media between the player's latest segment and the key's first; the delay stays inside the window and the lead")
    func pure() {
        let m = Self.live()
        #expect(KeySpread.lead(to: 106, lastRequested: 101, in: m) == 8)
        #expect(KeySpread.lead(to: 102, lastRequested: 101, in: m) == 0)
        #expect(KeySpread.lead(to: 106, lastRequested: nil, in: m) == nil, "before the first segment: no spreading (startup prefetch)")
        #expect(KeySpread.delay(lead: 8, window: 4, random: 0.5) == 2)
        #expect(KeySpread.delay(lead: 2, window: 4, random: 0.999) < 1.5, "never later than the lead minus the margin")
        #expect(KeySpread.delay(lead: 0.3, window: 4, random: 0.9) == 0)
        #expect(KeySpread.delay(lead: 8, window: 0, random: 0.9) == 0, "--key-spread 0 fetches at once")
        #expect(KeySpread.delay(lead: nil, window: 4, random: 0.9) == 0)
    }

    @Test("a rotated live key is fetched after a random delay within the window, ahead of its first segment, once")
    func live() async throws {
        var o = LoaderOptions()
        o.keySpread = 3
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        // Act as a player that lags: read the playlist, ask for the oldest segment only, then keep reloading.
        // An origin of its own: other suites count requests on the shared one.
        let top = try await loader.open("\(Self.origin.httpBase)/aes-live/master.m3u8", variants: [0])
        let media = try await firstMedia(c, top).url
        func segments() async throws -> [String] { segmentLines(String(decoding: try await c.get(media).body, as: UTF8.self)) }
        let first = try await segments()
        #expect(try await c.get(first[0]).head.status == 200)
        let startupKeys = Set(log.keys.map(\.uri))
        // The player's reloads, twice a second, until a rotated key was fetched spread.
        func spread() -> KeyEvent? { log.keys.first { !startupKeys.contains($0.uri) && $0.spreadMs != nil } }
        _ = try await eventually(timeout: 20, every: 0.5) {
            _ = try await segments()
            return spread() != nil
        }
        let k = try #require(spread(), "no rotated key was spread: \(log.keys.map { ($0.uri, $0.spreadMs as Any) })")
        #expect(k.prefetch && k.error == nil)
        #expect((k.spreadMs ?? 0) > 0 && (k.spreadMs ?? 9999) <= 3000)
        #expect(await loader.keyFetchCounts()[k.uri] == 1)
        #expect(log.keys.allSatisfy { $0.prefetch }, "no key was fetched on demand")
    }

    @Test("a VOD's rotated keys beyond the horizon wait, and are fetched spread as the player's requests get near them, once each")
    func vodHorizon() async throws {
        var o = LoaderOptions()
        o.keyHorizon = 5
        o.keySpread = 2
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let top = try await loader.open("\(Self.origin.httpBase)/aes-vod/master.m3u8", variants: [0])
        let segments = segmentLines(try await firstMedia(c, top).text)
        #expect(segments.count == 10)
        func fetched() async -> Set<String> { Set(await loader.keyFetchCounts().keys.map { String($0.split(separator: "/").last ?? "") }) }
        try await Task.sleep(for: .milliseconds(300))
        // Keys rotate every 3 segments of 2 s: k1 starts 6 s in, beyond the 5 s horizon.
        #expect(await fetched() == ["k0.key"])
        // The player asks for segment 0: k1 (4 s of media ahead) is due soon and is fetched within the 2 s window; k2 still waits.
        #expect(try await c.get(segments[0]).head.status == 200)
        _ = await eventually(timeout: 10) { log.keys.contains { $0.uri.hasSuffix("/k1.key") } }
        #expect(await fetched() == ["k0.key", "k1.key"])
        let k1 = try #require(log.keys.first { $0.uri.hasSuffix("/k1.key") })
        #expect(k1.prefetch && k1.error == nil && (k1.spreadMs ?? 0) > 0 && (k1.spreadMs ?? 9999) <= 2000)
        // Segment 3 (k1's first) brings k2 within reach; every key is fetched once, none on demand.
        #expect(try await c.get(segments[3]).head.status == 200)
        _ = await eventually(timeout: 10) { log.keys.contains { $0.uri.hasSuffix("/k2.key") } }
        #expect(await fetched() == ["k0.key", "k1.key", "k2.key"])
        #expect(await loader.keyFetchCounts().values.allSatisfy { $0 == 1 })
        #expect(log.keys.allSatisfy { $0.prefetch })
    }
}
