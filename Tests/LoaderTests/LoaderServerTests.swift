import LoaderCore
import LoaderEvents
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import TestSupport
import Testing
@testable import Loader
@testable import LoaderCore
@testable import Origin
import NIOCore
import JSONValue

/// Runs plain mpv (headless) on `url`, decoding `frames` video frames; returns its exit status and output.
func mpv(_ url: String, frames: Int = 45) async throws -> (status: Int32, output: String) {
    try await run(["mpv", "--no-config", "--vo=null", "--ao=null", "--frames=\(frames)", "--msg-level=all=warn,cplayer=info", url])
}

/// Runs a command found on PATH; its status and what it wrote (stdout, then stderr), stopped after 90 s (`ChildProcess`).
func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let r = try await ChildProcess.run(tool: arguments[0], Array(arguments.dropFirst()))
    return (r.status, r.output)
}

/// What a player sees through a Loader: the first media playlist the multivariant at `playerURL` names — its URL and text.
func firstMedia(_ c: UpstreamClient, _ playerURL: String) async throws -> (url: String, text: String) {
    let master = String(decoding: try await c.get(playerURL).body, as: UTF8.self)
    let url = try #require(master.split(separator: "\n").first { $0.hasPrefix("http") && $0.contains("/media/") }.map(String.init))
    return (url, String(decoding: try await c.get(url).body, as: UTF8.self))
}

/// The segment URLs of a media playlist's text.
func segmentLines(_ text: String) -> [String] { text.split(separator: "\n").filter { $0.contains("/segment/") }.map(String.init) }

/// Collects a Loader's events in the background.
final class EventLog: Sendable {
    private let items = NIOLockedValueBox<[LoaderEvent]>([])
    init(_ loader: LoaderServer) {
        Task { [items] in for await e in loader.events { items.withLockedValue { $0.append(e) } } }
    }
    var all: [LoaderEvent] { items.withLockedValue { $0 } }
    var requests: [RequestEvent] {
        all.compactMap {
            if case .request(let r) = $0 { return r }; return nil
        }
    }
    var keys: [KeyEvent] {
        all.compactMap {
            if case .key(let k) = $0 { return k }; return nil
        }
    }
    var diagnostics: [String] {
        all.compactMap {
            if case .diagnostic(let d) = $0 { return d }; return nil
        }
    }
}

/// An origin of its own, so other suites' requests never show in its log.
enum LoaderOrigin {
    static let shared = ClientOrigins.make()
}

@Suite("The Loader between mpv and the origin, over real sockets", .serialized)
struct LoaderServerTests {
    let origin = LoaderOrigin.shared

    /// Origin requests logged since `mark`, with their user agents.
    func originLog(since mark: Int) -> [RequestRecord] { origin.router.state.log(since: mark) }

    @Test("requests without the session token are refused")
    func token() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let url = try await loader.open("\(origin.httpBase)/vod-ts/master.m3u8")
        #expect(url.hasPrefix(loader.base + "/"))
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        #expect(try await c.get(url).head.status == 200)
        let forged = url.replacingOccurrences(of: loader.token, with: String(repeating: "0", count: 32))
        #expect(try await c.get(forged).head.status == 403)
        #expect(try await c.get("http://127.0.0.1:\(loader.port)/").head.status == 403)
    }

    @Test("a segment URL where a playlist was expected is named as a segment: MPEG-TS in one line, fMP4 as a file without moov")
    func segmentGivenForPlaylist() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        do {
            _ = try await loader.fetchTop("\(origin.httpBase)/vod-ts/v144/seg0.ts")
            Issue.record("a TS segment opened as a playlist")
        } catch {
            #expect(
                error.description
                    == "\(origin.httpBase)/vod-ts/v144/seg0.ts: an MPEG-TS segment, not a playlist (give hlstui the playlist that lists it)"
            )
        }
        do {
            _ = try await loader.fetchTop("\(origin.httpBase)/vod-fmp4/v144/seg0.m4s")
            Issue.record("an fMP4 segment opened as a playlist")
        } catch {
            #expect(error.description.hasSuffix("no moov box: no player can play this file"), "\(error.description)")
        }
    }

    @Test("mpv plays the VOD ladder through the Loader; every origin request comes from hlstui, and each segment's first PTS is reported")
    func vod() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let mark = origin.router.state.log().count
        let url = try await loader.open("\(origin.httpBase)/vod-ts/master.m3u8", variants: [1])
        let r = try await mpv(url)
        #expect(
            r.status == 0 && r.output.contains("VO: [null] 426x240"),
            "\(r.output.suffix(500)) \(log.diagnostics) \(log.requests.filter { $0.status >= 400 }.map { "\($0.url) \($0.status) \($0.failure ?? "")" })"
        )
        let served = originLog(since: mark)
        #expect(!served.isEmpty && served.allSatisfy { $0.userAgent == "hlstui/0.1" }, "\(served.map { $0.userAgent ?? "-" })")
        #expect(!served.contains { $0.rendition == "v144" || $0.rendition == "v360" })
        let segs = log.requests.filter { $0.kind == .segment && (200..<300).contains($0.status) && $0.rung == 1 }
        #expect(!segs.isEmpty, "\(log.requests.map { "\($0.kind) \($0.rung.map(String.init) ?? "-") \($0.status) \($0.url)" })")
        for s in segs {
            let truth = served.first { $0.path.hasSuffix("/seg\(s.msn!).ts") && $0.rendition == "v240" }
            #expect(truth?.mediaTime != nil && abs((truth?.mediaTime ?? 0) - (s.firstPTS ?? -1)) < 0.001)
        }
    }

    @Test("DEFINE is resolved by the Loader, so FFmpeg plays what it alone cannot")
    func define() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let url = try await loader.open("\(origin.httpBase)/define/master.m3u8?token=abc", variants: [0])
        let r = try await mpv(url)
        #expect(r.status == 0 && r.output.contains("VO: [null]"), "\(r.output.suffix(500))")
        let page = try await ClientOrigins.client().get(url)
        #expect(!String(decoding: page.body, as: UTF8.self).contains("{$"))
    }

    @Test("GAP segments are never requested from the origin")
    func gap() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let mark = origin.router.state.log().count
        let url = try await loader.open("\(origin.httpBase)/gap-one/master.m3u8", variants: [2])
        let r = try await mpv(url, frames: 300)
        #expect(r.status == 0, "\(r.output.suffix(400))")
        #expect(!originLog(since: mark).contains { $0.gap })
        // Not spliced, so nothing fills v360's GAP: the player's playlist ends before it (FFmpeg never sees the hole).
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let served = try #require(PlaylistParser.parseLenient(try await firstMedia(c, url).text).playlist.media)
        #expect(served.segments.map(\.mediaSequence) == [0, 1, 2, 3] && !served.segments.contains { $0.gap })
        #expect(log.requests.filter { $0.kind == .segment && $0.rung == 2 }.allSatisfy { ($0.msn ?? 9) < 4 })
    }

    @Test("a player behind a live window: what left it stays listed from the segment it asked for last while RFC 8216bis §6.2.2 keeps it")
    func behindTheWindow() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        // Camera A, 2 s segments, a window of three: 6 s listed, so a segment stays available 8 s after it left.
        let opened = try await loader.openStream("\(origin.httpBase)/cam-a/cam-a/index.m3u8?window=3")
        func served() async throws -> (media: MediaPlaylist, uris: [String]) {
            let text = String(decoding: try await c.get(opened.playerURL).body, as: UTF8.self)
            return (try #require(PlaylistParser.parseLenient(text).playlist.media), segmentLines(text))
        }
        let first = try await served()
        let n = first.media.mediaSequence
        #expect(try await c.get(first.uris[0]).head.status == 200)
        // The player reads nothing more for 4.5 s: the origin's window moved past the segment it asked for last (n), which
        // may be the one it plays next (FFmpeg fetches a segment ahead while it reads one).
        try await Task.sleep(for: .milliseconds(4500))
        let later = try await served()
        let listed = try #require(
            log.all.compactMap { e -> Int? in
                if case .playlist(let p) = e { return p.playlist.mediaSequence }; return nil
            }.last)
        #expect(listed >= n + 2, "the origin's window moved on: \(listed) from \(n)")
        #expect(
            later.media.mediaSequence == n,
            "listed from the segment the player asked for last: \(later.media.mediaSequence), origin \(listed)")
        #expect(later.media.segments.last.map { $0.mediaSequence } == listed + 2, "up to the origin's newest")
        let segment = try await c.get(later.uris[0])
        #expect(segment.head.status == 200 && segment.body.count > 1000, "the segment that left is still served")
        // Said once (the log reads the Loader's events on a task of its own).
        #expect(await eventually { log.diagnostics.contains { $0.contains("fell behind the live window") } })
        #expect(log.diagnostics.filter { $0.contains("fell behind the live window") }.count == 1)
        // A new load starts afresh: the origin's window, as it lists it.
        let again = loader.present(opened)
        let text = String(decoding: try await c.get(again.playerURL).body, as: UTF8.self)
        #expect(try #require(PlaylistParser.parseLenient(text).playlist.media).mediaSequence >= listed)
    }

    /// A Loader that reaches this suite's origin `via` sockets or memory, the origin's base URL that way, and a client of the
    /// origin's own bytes the same way.
    func loader(via: Via) throws -> (LoaderServer, base: String, direct: UpstreamClient) {
        var o = LoaderOptions()
        let (base, upstream) = via.upstream(origin)
        o.upstream = upstream
        let direct = try ClientOrigins.client { $0 = via.upstream(origin).1 }
        return (try LoaderServer.start(options: o), base, direct)
    }

    @Test(
        "splice: one playlist URL, each segment from the routed rung; a GAP filled by the best allowed rung with media",
        arguments: Via.allCases)
    func splice(via: Via) async throws {
        let (loader, base, direct) = try loader(via: via)
        defer { loader.stop() }
        defer { direct.shutdown() }
        let log = EventLog(loader)
        let mark = origin.router.state.log().count
        let top = try await loader.fetchTop("\(base)/gap-one/master.m3u8")
        let opened = loader.present(top, splice: SpliceRoute(rung: 2, fill: [2, 1, 0]))
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let master = try #require(String(decoding: try await c.get(opened.playerURL).body, as: UTF8.self).parsedMultivariant)
        #expect(master.variants.count == 1)
        let mediaText = String(decoding: try await c.get(master.variants[0].uri).body, as: UTF8.self)
        let media = try #require(PlaylistParser.parseLenient(mediaText).playlist.media)
        // v360's GAP at 4-5 is filled from v240, so the player sees every segment and no GAP.
        #expect(media.segments.count == 10 && !media.segments.contains { $0.gap })
        func bytes(_ msn: Int) async throws -> [UInt8] { try await c.get(media.segments[msn].uri).body }
        func originBytes(_ path: String) async throws -> [UInt8] { try await direct.get("\(base)/gap-one/\(path)").body }
        #expect(try await bytes(1) == originBytes("v360/seg1.ts"))
        #expect(try await bytes(4) == originBytes("v240/seg4.ts"))
        // Events reach the log from the Loader's stream, on a task of their own.
        #expect(
            await eventually {
                log.all.contains {
                    if case .gapFilled(4, 2, 1) = $0 { return true }; return false
                }
            })
        // The route moves: the same URL now serves v144.
        #expect(loader.route(SpliceRoute(rung: 0, fill: [2, 1, 0])) == 5)
        #expect(try await bytes(6) == originBytes("v144/seg6.ts"))
        #expect(!originLog(since: mark).contains { $0.gap })
        // The request is reported once its body has gone out, after the player may have read all of it.
        #expect(await eventually { log.requests.contains { $0.kind == .segment && $0.msn == 6 && $0.rung == 0 } })
    }

    @Test(
        "a splice to another pathway's rung: the player's rendition playlists (same URLs) are read from that pathway's copy, with its segments; back again, from the first"
    )
    func renditionsFollowThePathway() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let top = try await loader.fetchTop("\(origin.httpBase)/steered/master.m3u8")
        let m = try #require(top.playlist.multivariant)
        let (a, b) = (0, try #require(PathwayIDs.equivalent(of: 0, on: "cdn-b", in: m)))
        #expect(m.variants[a].pathwayID == "cdn-a" && m.variants[b].pathwayID == "cdn-b" && m.variants[a].audio != m.variants[b].audio)
        let opened = loader.present(top, splice: SpliceRoute(rung: a, fill: [a]))
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let master = try #require(String(decoding: try await c.get(opened.playerURL).body, as: UTF8.self).parsedMultivariant)
        let audio = try #require(master.renditions.first { $0.type == "AUDIO" && $0.uri != nil }?.uri)
        func read() async throws -> (playlistHost: String?, segmentHost: String?) {
            let mark = log.requests.count
            let text = String(decoding: try await c.get(audio).body, as: UTF8.self)
            let seg = try #require(segmentLines(text).last)
            #expect(try await c.get(seg).head.status == 200)
            // Both reads reported (other reads the Loader makes on its own may come between them).
            let mine = { (k: ResourceKind) in log.requests.dropFirst(mark).first { $0.kind == k && $0.rung == nil } }
            _ = await eventually { mine(.media) != nil && mine(.segment) != nil }
            let host = { (k: ResourceKind) in mine(k).flatMap { URL(string: $0.url)?.host } }
            return (host(.media), host(.segment))
        }
        let before = try await read()
        #expect(before.playlistHost == "127.0.0.1" && before.segmentHost == "127.0.0.1", "\(before)")
        loader.route(SpliceRoute(rung: b, fill: [b]))
        let moved = try await read()
        #expect(moved.playlistHost == "127.0.0.2" && moved.segmentHost == "127.0.0.2", "the same rendition on cdn-b: \(moved)")
        loader.route(SpliceRoute(rung: a, fill: [a]))
        let back = try await read()
        #expect(back.playlistHost == "127.0.0.1" && back.segmentHost == "127.0.0.1", "\(back)")
    }

    @Test(
        "EXT-X-BYTERANGE: the Loader fetches each sub-range and serves it as a resource of its own — right MSN and first PTS per segment, splices across rungs' files, player ranges within it"
    )
    func byteRanges() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let top = try await loader.fetchTop("\(origin.httpBase)/byterange-ts/master.m3u8")
        let opened = loader.present(top, splice: SpliceRoute(rung: 2, fill: [2, 1, 0]))
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let master = try #require(String(decoding: try await c.get(opened.playerURL).body, as: UTF8.self).parsedMultivariant)
        let mediaText = String(decoding: try await c.get(master.variants[0].uri).body, as: UTF8.self)
        #expect(!mediaText.contains("BYTERANGE"), "the player's playlist names no sub-ranges")
        let media = try #require(PlaylistParser.parseLenient(mediaText).playlist.media)
        #expect(media.segments.count == 10 && Set(media.segments.map(\.uri)).count == 10)
        func clear(_ path: String) -> [UInt8] { RealMedia.get("/vod-ts/\(path)").body }
        for msn in [0, 3, 9] {
            let r = try await c.get(media.segments[msn].uri)
            #expect(r.head.status == 200 && r.head.header("Content-Range") == nil && r.body == clear("v360/seg\(msn).ts"), "msn \(msn)")
        }
        // The player's own Range is within the sub-range.
        let part = try await c.get(media.segments[3].uri, range: "bytes=188-375")
        #expect(part.head.status == 206 && part.body == Array(clear("v360/seg3.ts")[188..<376]))
        #expect(part.head.header("Content-Range") == "bytes 188-375/\(clear("v360/seg3.ts").count)")
        #expect(try await c.get(media.segments[3].uri, range: "bytes=999999-").head.status == 416)
        // A splice to v144 takes v144's sub-ranges of v144's file.
        #expect(loader.route(SpliceRoute(rung: 0, fill: [2, 1, 0])) != nil)
        #expect(try await c.get(media.segments[6].uri).body == clear("v144/seg6.ts"))
        #expect(await eventually { log.requests.contains { $0.kind == .segment && $0.msn == 6 && $0.rung == 0 } })
        let truth = (0..<10).map { TransportStream.probe(clear("v360/seg\($0).ts")).firstPTS.map { Double($0) / 90_000 } }
        for msn in [0, 3, 9] {
            #expect(
                log.requests.contains { $0.kind == .segment && $0.msn == msn && $0.rung == 2 && $0.firstPTS == truth[msn] }, "msn \(msn)")
        }
        #expect(log.requests.contains { $0.kind == .segment && $0.msn == 6 && $0.rung == 0 })
    }

    @Test(
        "AES-128 fMP4: the init section declared under a key is decrypted too, so segments decode and carry their first PTS; a wrong key names the init section"
    )
    func aesInit() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(origin.httpBase)/aes-fmp4/master.m3u8", variants: [0])
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let media = try #require(PlaylistParser.parseLenient(try await firstMedia(c, url).text).playlist.media)
        #expect(media.segments.allSatisfy { $0.keys.isEmpty && $0.map?.keys.isEmpty == true }, "the player sees clear media and no keys")
        let initURL = try #require(media.segments[0].map?.uri)
        #expect(try await c.get(initURL).body == RealMedia.get("/vod-fmp4/v144/init.mp4").body)
        #expect(try await c.get(media.segments[4].uri).body == RealMedia.get("/vod-fmp4/v144/seg4.m4s").body)
        #expect(
            await eventually { log.requests.contains { $0.kind == .segment && $0.msn == 4 && $0.firstPTS != nil } },
            "the decrypted init section's tracks time the segments")
        let r = try await mpv(url, frames: 60)
        #expect(r.status == 0 && r.output.contains("VO: [null]"), "\(r.output.suffix(300))")
        // The init section's key overridden with a wrong one: one line naming the init section.
        var o = LoaderOptions()
        let bad = [UInt8](repeating: 9, count: 16)
        o.keyOverrides = ["\(origin.httpBase)/keys/aes-fmp4/k0.key": bad]
        let wrong = try LoaderServer.start(options: o)
        defer { wrong.stop() }
        let wrongLog = EventLog(wrong)
        let u2 = try await wrong.open("\(origin.httpBase)/aes-fmp4/master.m3u8", variants: [0])
        let media2 = try #require(PlaylistParser.parseLenient(try await firstMedia(c, u2).text).playlist.media)
        #expect(try await c.get(media2.segments[0].map!.uri).head.status == 502)
        #expect(
            await eventually {
                wrongLog.diagnostics.contains { $0.hasPrefix("the init section: key \(KeyMaterial.fingerprint(bad))… does not decrypt it") }
            }, "\(wrongLog.diagnostics)")
    }

    @Test("AES-128: keys prefetched once per URI before their segments, segments decrypted and checked; mpv plays clear TS")
    func aes() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let mark = origin.router.state.log().count
        let url = try await loader.open("\(origin.httpBase)/aes-vod/master.m3u8", variants: [0])
        let r = try await mpv(url, frames: 200)
        #expect(r.status == 0 && r.output.contains("VO: [null]"), "\(r.output.suffix(500))")
        let counts = await loader.keyFetchCounts()
        #expect(counts.count == 4 && counts.values.allSatisfy { $0 == 1 })
        let keyRequests = originLog(since: mark).filter { $0.kind == "key" }
        #expect(Set(keyRequests.map(\.path)).count == keyRequests.count)
        #expect(log.keys.allSatisfy { $0.prefetch && $0.error == nil && $0.fingerprint?.count == 8 })
        // Prefetch: the key for segments 3-5 was asked for before segment 3 was.
        let firstSeg3 = originLog(since: mark).firstIndex { $0.path.hasSuffix("/v144/seg3.ts") }
        let key1 = originLog(since: mark).firstIndex { $0.path.hasSuffix("/k1.key") }
        #expect(key1 != nil && firstSeg3 != nil && key1! < firstSeg3!)
        #expect(log.requests.contains { $0.kind == .segment && $0.status == 200 && $0.firstPTS != nil })
    }

    @Test(
        "segments held back for a seek: their head goes out at once, their body only once released (or the hold runs out); earlier segments and a new presentation are not held"
    )
    func heldSegments() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let url = try await loader.open("\(origin.httpBase)/vod-ts/master.m3u8", variants: [1])
        let segments = segmentLines(try await firstMedia(c, url).text)
        loader.holdSegments(from: 3, seconds: 5)
        #expect(try await c.get(segments[2]).body == RealMedia.get("/vod-ts/v240/seg2.ts").body, "before the held segment: served")
        let received = NIOLockedValueBox<(status: Int, bytes: Int)>((0, 0))
        let fetch = Task {
            try await c.get(
                segments[3], onHead: { h in received.withLockedValue { $0.status = h.status } },
                onBody: { b in received.withLockedValue { $0.bytes += b.readableBytes } })
        }
        // FFmpeg opens the next segment while it reads one and waits for its head: the head is not held.
        #expect(await eventually { received.withLockedValue { $0.status } == 200 })
        try await Task.sleep(for: .milliseconds(400))
        #expect(received.withLockedValue { $0.bytes } == 0, "no body while held")
        loader.releaseSegments()
        let whole = try await fetch.value
        #expect(whole.body == RealMedia.get("/vod-ts/v240/seg3.ts").body, "released: the segment, whole")
        // The hold runs out by itself.
        loader.holdSegments(from: 4, seconds: 0.5)
        let t0 = Date()
        #expect(try await c.get(segments[4]).body == RealMedia.get("/vod-ts/v240/seg4.ts").body)
        #expect(Date().timeIntervalSince(t0) >= 0.4)
        // A new presentation starts unheld.
        loader.holdSegments(from: 0, seconds: 30)
        let again = loader.present(try await loader.openStream("\(origin.httpBase)/vod-ts/master.m3u8"), variants: [1])
        let first = segmentLines(try await firstMedia(c, again.playerURL).text)
        let t1 = Date()
        #expect(try await c.get(first[5]).head.status == 200)
        #expect(Date().timeIntervalSince(t1) < 2, "not held")
    }

    @Test(
        "AES-128 segments stream: clear TS reaches the player while the origin is still sending, and a stalled body is resumed")
    func aesStreams() async throws {
        let state = origin.router.state
        var o = LoaderOptions()
        o.upstream.readTimeout = 2
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(origin.httpBase)/aes-vod/master.m3u8", variants: [1])
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let segments = segmentLines(try await firstMedia(c, url).text)
        // The origin sends a quarter of segment 2, then nothing: the player must already have clear bytes.
        state.add(
            Fault(
                id: 0, kind: .stall, target: .segment, status: 0, ms: 0, scenario: "aes-vod", rendition: "v240", msn: 2, remaining: 1,
                since: 0))
        defer { state.clearFaults() }
        let received = NIOLockedValueBox<(status: Int, chunked: Bool, bytes: [UInt8])>((0, false, []))
        let fetch = Task {
            try await c.get(
                segments[2],
                onHead: { h in
                    received.withLockedValue {
                        $0.status = h.status; $0.chunked = h.header("Transfer-Encoding") == "chunked"
                    }
                },
                onBody: { b in received.withLockedValue { $0.bytes += Array(b.readableBytesView) } })
        }
        _ = await eventually { received.withLockedValue { $0.bytes.count } >= 4_096 }
        let early = received.withLockedValue { $0 }
        #expect(early.status == 200 && early.chunked)
        #expect(early.bytes.count >= 4_096, "nothing streamed while the origin stalled")
        let clear = RealMedia.get("/vod-ts/v240/seg2.ts").body
        #expect(Array(clear.prefix(early.bytes.count)) == early.bytes)
        // The stall ends in the read timeout and the body is resumed from where it stopped: the player gets the whole clear
        // segment, late, and the request says why it was.
        let whole = try await fetch.value
        #expect(whole.body == clear, "\(whole.body.count) bytes of \(clear.count)")
        #expect(
            await eventually {
                log.requests.contains {
                    $0.kind == .segment && $0.msn == 2 && $0.status == 200 && $0.failure == nil
                        && ($0.resumed ?? "").contains("stalled (no byte for the read timeout)")
                }
            }, "\(log.requests.filter { $0.msn == 2 })")
        // Whole segments are byte for byte the clear ones.
        #expect(try await c.get(segments[3]).body == RealMedia.get("/vod-ts/v240/seg3.ts").body)
    }

    @Test(
        "SAMPLE-AES passes through: keys served by the Loader (prefetched, once each), samples untouched; FFmpeg decodes the clear stream's pictures and sound"
    )
    func sampleAES() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let mark = origin.router.state.log().count
        let url = try await loader.open("\(origin.httpBase)/sample-aes-vod/master.m3u8", variants: [0])
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let (mediaURL, media) = try await firstMedia(c, url)
        // The key tag stays SAMPLE-AES, its URI now the Loader's; the segments are the origin's bytes.
        let keyLine = try #require(media.split(separator: "\n").first { $0.hasPrefix("#EXT-X-KEY") })
        #expect(keyLine.contains("METHOD=SAMPLE-AES") && keyLine.contains(loader.base) && keyLine.contains("IV=0x"))
        let seg = try #require(media.split(separator: "\n").first { $0.contains("/segment/") })
        #expect(try await c.get(String(seg)).body == RealMedia.get("/sample-aes-vod/v144/seg0.ts").body)
        // mpv plays it through the Loader.
        let r = try await mpv(url, frames: 120)
        #expect(r.status == 0 && r.output.contains("VO: [null]") && !r.output.contains("Error decoding"), "\(r.output.suffix(500))")
        let counts = await loader.keyFetchCounts()
        #expect(counts.count == 4 && counts.values.allSatisfy { $0 == 1 })
        #expect(
            Set(originLog(since: mark).filter { $0.kind == "key" }.map(\.path)).count
                == originLog(since: mark).filter { $0.kind == "key" }.count)
        #expect(log.keys.allSatisfy { $0.method == .sampleAES && $0.prefetch && $0.error == nil })
        // Stream types 0xDB/0xCF are read as H.264/AAC, so each segment's first PTS still maps player time to PDT.
        #expect(log.requests.contains { $0.kind == .segment && $0.firstPTS != nil })
        // Decoded through the Loader, the first 4 s equal the clear stream's frame for frame (video and audio).
        func frames(_ u: String) async throws -> [String] {
            let out = try await run(["ffmpeg", "-v", "error", "-i", u, "-t", "4", "-f", "framemd5", "-"]).output
            var kept: [String] = []
            for line in out.split(separator: "\n") where !line.hasPrefix("#") {
                let f: [String] = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard f.count == 6, let pts = Double(f[2]) else { continue }
                let limit: Double = f[0] == "0" ? 3.5 * 30 : 3.5 * 48_000 // timebases 1/30 and 1/48000
                if pts < limit { kept.append("\(f[0]) \(f[2]) \(f[5])") }
            }
            return kept
        }
        let loaderFrames = try await frames(mediaURL)
        let clearFrames = try await frames("\(origin.httpBase)/vod-ts/v144/index.m3u8")
        #expect(loaderFrames.count > 150 && loaderFrames == clearFrames, "\(loaderFrames.count) vs \(clearFrames.count)")
    }

    @Test("a wrong --key override becomes a one-line diagnosis, not garbage")
    func wrongKey() async throws {
        var o = LoaderOptions()
        o.keyOverrides = ["\(origin.httpBase)/keys/aes-vod/k0.key": Array(repeating: 7, count: 16)]
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(origin.httpBase)/aes-vod/master.m3u8", variants: [0])
        _ = try await mpv(url, frames: 10)
        #expect(
            log.diagnostics.contains {
                $0.hasPrefix("segment 0: key \(KeyMaterial.fingerprint(Array(repeating: 7, count: 16)))… does not decrypt it")
            },
            "\(log.diagnostics)")
        #expect(log.keys.contains { $0.source == "--key" })
    }

    @Test("--key-command supplies keys (hex text repaired and named)")
    func keyCommand() async throws {
        var o = LoaderOptions()
        let key0 = OriginKeys.key(scenario: "aes-vod", id: 0).map { String(format: "%02x", $0) }.joined()
        o.keyCommand = "printf '%s\\n' \(key0) #"
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(origin.httpBase)/aes-vod/master.m3u8", variants: [0])
        _ = try await mpv(url, frames: 20)
        let k0 = log.keys.first { $0.uri.hasSuffix("/k0.key") }
        #expect(
            k0?.source == "--key-command" && k0?.repair == KeyRepair.hexText.rawValue
                && k0?.fingerprint == KeyMaterial.fingerprint(OriginKeys.key(scenario: "aes-vod", id: 0)))
        #expect(log.requests.contains { $0.kind == .segment && $0.msn == 0 && $0.status == 200 })
    }

    @Test("upstream 404 and 500 reach the player as 502 with the cause, and the event names it", arguments: Via.allCases)
    func upstreamFailures(via: Via) async throws {
        let state = origin.router.state
        defer { state.clearFaults() }
        let (loader, base, direct) = try loader(via: via)
        defer { loader.stop() }
        defer { direct.shutdown() }
        let log = EventLog(loader)
        let url = try await loader.open("\(base)/vod-ts/master.m3u8", variants: [0])
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let mediaText = try await firstMedia(c, url).text
        let seg = try #require(mediaText.split(separator: "\n").first { $0.contains("/segment/") })
        state.add(
            Fault(
                id: 0, kind: .status, target: .segment, status: 404, ms: 0, scenario: "vod-ts", rendition: "v144", msn: nil, remaining: 1,
                since: 0))
        let r = try await c.get(String(seg))
        #expect(r.head.status == 404)
        #expect(await eventually { log.requests.contains { $0.kind == .segment && $0.status == 404 && $0.failure == "HTTP 404" } })
    }
}

/// An origin for the repair tests alone: they change how it writes keys.
enum RepairOrigin {
    static let shared = ClientOrigins.make()
}

extension LoaderServerTests {
    // Key repairs through the Loader, with keys as broken servers send them; in the same serialized suite so mpv runs never overlap.
    @Test(
        "key repairs: a 17-byte key with a newline and a hex-text key are repaired, named, and the stream plays",
        arguments: [
            ("newline", KeyRepair.trailingWhitespace), ("hex", KeyRepair.hexText),
        ])
    func repairs(_ format: String, _ repair: KeyRepair) async throws {
        let origin = RepairOrigin.shared
        origin.router.state.keyFormat = format
        defer { origin.router.state.keyFormat = "binary" }
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(origin.httpBase)/aes-vod/master.m3u8", variants: [0])
        let r = try await mpv(url, frames: 30)
        #expect(
            r.status == 0 && r.output.contains("VO: [null]"),
            "\(r.output.suffix(300)) \(log.diagnostics) \(log.requests.filter { $0.status >= 400 }.map { "\($0.url) \($0.status) \($0.failure ?? "")" })"
        )
        #expect(!log.keys.isEmpty && log.keys.allSatisfy { $0.repair == repair.rawValue && $0.error == nil })
        #expect(log.diagnostics.contains { $0.contains(repair.rawValue) && $0.contains("fingerprint") })
        // The bytes of the key never reach an event.
        let key0 = OriginKeys.key(scenario: "aes-vod", id: 0).map { String(format: "%02x", $0) }.joined()
        #expect(!log.all.map { "\($0.json.text)" }.joined().contains(key0))
    }
}

extension String {
    /// The multivariant playlist this text parses to, if it is one.
    var parsedMultivariant: MultivariantPlaylist? { PlaylistParser.parseLenient(self).playlist.multivariant }
}
