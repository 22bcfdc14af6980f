import LoaderCore
import LoaderEvents
import Foundation
import HLS
import NIOConcurrencyHelpers
import TestSupport
import Testing
@testable import Loader
@testable import LoaderCore
@testable import Origin

@Suite("A body that breaks is resumed: the policy")
struct BodyResumePolicyTests {
    static func headers(_ pairs: [String: String]) -> (String) -> String? { { pairs[$0.lowercased()] } }

    @Test("the rest is asked for from the byte where the body stopped, under the strong validator")
    func request() {
        let whole = BodyResume.after(
            status: 200, headers: Self.headers(["content-length": "1000", "etag": "\"a\""]), range: nil, since: 0, budget: 30)
        #expect(whole.request(delivered: 300) == ("bytes=300-999", "\"a\""))
        // A sub-range (EXT-X-BYTERANGE) goes on inside its span.
        let sub = BodyResume.after(
            status: 206, headers: Self.headers(["content-range": "bytes 500-899/5000", "last-modified": "Mon, 01 Jan 2024"]),
            range: "bytes=500-899", since: 0, budget: 30)
        #expect(sub.request(delivered: 100) == ("bytes=600-899", "Mon, 01 Jan 2024"))
        // A weak ETag guards no byte range (RFC 9110 §13.1.5): Last-Modified or nothing.
        let weak = BodyResume.after(status: 200, headers: Self.headers(["etag": "W/\"a\""]), range: nil, since: 0, budget: 30)
        #expect(weak.validator == nil)
        #expect(weak.request(delivered: 7) == ("bytes=7-", nil))
    }

    @Test(
        "answers to the resumption: what continues the body, what is another object, what is worth another try",
        arguments: [
            (206, ["content-range": "bytes 300-999/1000", "etag": "\"a\""], BodyResume.Answer.continues(skip: 0)),
            (200, ["content-length": "1000", "etag": "\"a\""], .continues(skip: 300)),
            (200, ["content-length": "1000", "etag": "\"b\""], .changed("the object changed (ETag \"a\" → \"b\")")),
            (206, ["content-range": "bytes 300-899/900", "etag": "\"a\""], .changed("the object is 900 bytes now, shorter than before")),
            (206, ["content-range": "bytes 0-999/1000", "etag": "\"a\""], .unusable("a range from byte 0 where 300 was asked for")),
            (503, [:], .unusable("HTTP 503")),
            (412, [:], .changed("HTTP 412 to the range (the object is not the one begun)")),
        ])
    func judge(status: Int, headers: [String: String], expected: BodyResume.Answer) {
        let plan = BodyResume.after(
            status: 200, headers: Self.headers(["content-length": "1000", "etag": "\"a\""]), range: nil, since: 0, budget: 30)
        #expect(plan.judge(status: status, headers: Self.headers(headers), delivered: 300) == expected)
    }

    @Test("without a validator a whole answer cannot be told from another object: never stitched")
    func noValidator() {
        let plan = BodyResume.after(status: 200, headers: Self.headers(["content-length": "1000"]), range: nil, since: 0, budget: 30)
        guard case .changed = plan.judge(status: 200, headers: Self.headers(["content-length": "1000"]), delivered: 10) else {
            Issue.record("stitched a whole answer with no validator")
            return
        }
        #expect(
            plan.judge(status: 206, headers: Self.headers(["content-range": "bytes 10-999/1000"]), delivered: 10) == .continues(skip: 0))
    }

    @Test("tries back off and stop when the budget is spent; VOD waits its hold, live about a player's buffer")
    func budget() {
        var plan = BodyResume(etag: nil, lastModified: nil, origin: 0, last: nil, since: 10, budget: 3)
        var waits: [Double] = []
        var now = 10.0
        while let w = plan.next(at: now) {
            waits.append(w)
            now += w + 0.1
        }
        #expect(waits == [0, 0.25, 0.5, 1])
        #expect(BodyResume.budget(complete: true, hold: 30, targetDuration: 6) == 30)
        #expect(BodyResume.budget(complete: false, hold: 30, targetDuration: 4) == 6)
    }

    @Test("the URL that broke is asked first; after it failed twice, the copies of the same bytes take turns with it")
    func copies() {
        let (a, b, c) = ("http://a/s3.ts", "http://b/s3.ts", "http://c/s3.ts")
        #expect((1...7).map { BodyResume.source(attempt: $0, broke: a, copies: [b, c, a]) } == [a, a, b, c, a, b, c])
        #expect((1...4).map { BodyResume.source(attempt: $0, broke: a, copies: []) } == [a, a, a, a], "no copy: the same URL")
    }
}

/// An origin for these tests alone: they switch its faults on.
enum ResumeOrigin {
    static let shared = TestOrigins.start()
}

/// How a test's Loader reaches the origin: over real sockets in real time, or in memory in virtual time (the same responder
/// and framing, `InMemoryOrigin`, on a `VirtualClock`: no wait however long the timeouts, the same order under any load).
enum Via: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sockets, memory
    var testDescription: String { rawValue }

    /// The origin's base URL, and the upstream options that reach it this way.
    func upstream(_ origin: OriginServer, _ configure: (inout UpstreamOptions) -> Void = { _ in }) -> (base: String, UpstreamOptions) {
        var o = UpstreamOptions()
        configure(&o)
        guard self == .memory else { return (origin.httpBase, o) }
        let clock = VirtualClock()
        o.clock = clock
        o.transport = InMemoryOrigin(responder: origin.router, clock: clock)
        return (InMemoryOrigin.base, o)
    }
}

@Suite("A body that breaks is resumed: the Loader against the origin, over real sockets and in memory", .serialized)
struct BodyResumeLoaderTests {
    let origin = ResumeOrigin.shared

    /// What a player gets for `scenario`'s segment `msn` of rung 0 through a Loader, with `faults` switched on for it; the
    /// origin's own bytes of it; and the Loader's resume events.
    func fetch(
        _ scenario: String, msn: Int, faults: [(Fault.Kind, Int?, Int?)], readTimeout: Double = 10, via: Via
    ) async throws -> (player: (status: Int, body: [UInt8], cut: Bool), origin: [UInt8], resumes: [ResumeEvent], requests: [RequestEvent]) {
        let state = origin.router.state
        defer { state.clearFaults() }
        var o = LoaderOptions()
        let (base, upstream) = via.upstream(origin) { $0.readTimeout = readTimeout }
        o.upstream = upstream
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(base)/\(scenario)/master.m3u8", variants: [0])
        // The player's side is always a socket to the Loader; the origin's bytes are read the way the Loader reads them.
        let c = try ClientOrigins.client { $0.readTimeout = 60 }
        defer { c.shutdown() }
        let directOptions = via.upstream(origin) { $0.readTimeout = 60 }.1
        let direct = try ClientOrigins.client { $0 = directOptions }
        defer { direct.shutdown() }
        let (mediaURL, text) = try await firstMedia(c, url)
        let media = try #require(PlaylistParser.parseLenient(text, options: ParseOptions(url: mediaURL)).playlist.media)
        let seg = try #require(media.segments.first { $0.mediaSequence == msn })
        let rung = "\(base)/\(scenario)/v144/index.m3u8"
        let listed = try #require(
            PlaylistParser.parseLenient(String(decoding: try await direct.get(rung).body, as: UTF8.self), options: ParseOptions(url: rung))
                .playlist.media?.segments.first { $0.mediaSequence == msn })
        let truth = try await direct.get(VirtualPlaylists.resolve(listed.uri, against: rung))
        for (kind, bytes, count) in faults {
            var f = Fault(
                id: 0, kind: kind, target: .segment, status: 200, ms: 0, scenario: scenario, rendition: "v144", msn: msn,
                remaining: count, since: 0)
            f.bytes = bytes
            f.hold = 30
            _ = state.add(f)
        }
        // What the player got: the whole answer, or what came before the Loader cut it.
        let player: (status: Int, body: [UInt8], cut: Bool)
        do {
            let r = try await c.get(VirtualPlaylists.resolve(seg.uri, against: mediaURL))
            player = (r.head.status, r.body, false)
        } catch {
            player = (error.head?.status ?? 0, error.partial, true)
        }
        _ = await eventually { log.requests.contains { $0.kind == .segment && $0.msn == msn } }
        let resumes = log.all.compactMap { e -> ResumeEvent? in
            if case .resume(let r) = e { return r }
            return nil
        }
        return (player, truth.body, resumes, log.requests)
    }

    @Test(
        "a body cut twice after 30 KB reaches the player whole, byte for byte the origin's; the break and the resumption said",
        arguments: ["vod-ts", "vod-fmp4", "aes-vod"], Via.allCases)
    func cut(scenario: String, via: Via) async throws {
        let f = try await fetch(scenario, msn: 3, faults: [(.truncate, 30_000, 2)], via: via)
        #expect(f.player.status == 200 && !f.player.cut)
        if scenario == "aes-vod" {
            // Served clear: the origin's bytes are the ciphertext, so the length is what can be compared (PKCS#7: 1-16 bytes less).
            #expect(f.player.body.count < f.origin.count && f.player.body.count >= f.origin.count - 16, "\(f.player.body.count)")
            #expect(f.player.body.first == 0x47)
        } else {
            #expect(f.player.body == f.origin, "\(f.player.body.count) bytes of \(f.origin.count)")
        }
        #expect(f.resumes.map(\.phase) == [.broken, .resumed], "\(f.resumes.map(\.text))")
        #expect(f.resumes.first?.byte == 30_000 && f.resumes.first?.msn == 3, "\(f.resumes.map(\.text))")
        let seg = f.requests.filter { $0.kind == .segment && $0.msn == 3 }
        #expect(seg.count == 1 && seg.first?.failure == nil && seg.first?.bytes == f.origin.count, "\(seg)")
    }

    @Test(
        "a body stalled after 8 KB is resumed once the read timeout passes; the line names the stall and where it resumed",
        arguments: Via.allCases)
    func stall(via: Via) async throws {
        let f = try await fetch("vod-ts", msn: 2, faults: [(.stall, 8192, 1)], readTimeout: 1, via: via)
        #expect(f.player.body == f.origin, "\(f.player.body.count) bytes of \(f.origin.count)")
        let broken = try #require(f.resumes.first)
        #expect(broken.phase == .broken && broken.byte == 8192)
        #expect(broken.text == "segment 2: origin body stalled (no byte for the read timeout) after 8 KB; resuming at byte 8192")
        // Counted from the last byte that came: the read timeout (1 s here) is part of the stall.
        let resumed = try #require(f.resumes.last)
        #expect(resumed.phase == .resumed && resumed.seconds >= 0.9 && resumed.seconds < 5, "\(resumed.text)")
    }

    @Test(
        "a live body (3 s to resume in, a 10 s read timeout) stalled after 8 KB: taken as stalled after a third of its budget and resumed whole, not given up at the read timeout",
        arguments: Via.allCases)
    func liveStall(via: Via) async throws {
        let state = origin.router.state
        defer { state.clearFaults() }
        let (base, options) = via.upstream(origin) { $0.readTimeout = 10 }
        let c = try ClientOrigins.client { $0 = options }
        defer { c.shutdown() }
        let url = "\(base)/vod-ts/v144/seg3.ts"
        let answer = try await c.get(url)
        try #require(answer.head.status == 200 && answer.body.count > 16_384, "\(answer.head.status), \(answer.body.count) bytes")
        let whole = answer.body
        var f = Fault(
            id: 0, kind: .stall, target: .segment, status: 200, ms: 0, scenario: "vod-ts", rendition: "v144", msn: 3, remaining: 1, since: 0
        )
        f.bytes = 8192
        f.hold = 30
        _ = state.add(f)
        let breaks = NIOLockedValueBox<[BodyBreak]>([])
        let r = try await c.getResuming(url, budget: 3, onBreak: { b in breaks.withLockedValue { $0.append(b) } })
        #expect(r.body == whole, "\(r.body.count) bytes of \(whole.count)")
        let seen = breaks.withLockedValue { $0 }
        #expect(seen.first == .broken(cause: "stalled (no byte for 1.0 s)", at: 8192), "\(seen)")
        guard case .resumed(_, let at, let after, _, _, _)? = seen.last else {
            Issue.record("not resumed: \(seen)")
            return
        }
        // Counted from the last byte: the stall time (1 s) is part of it, the read timeout (10 s) is not.
        #expect(at == 8192 && after >= 0.9 && after < 3, "\(seen)")
        // A VOD body (30 s to resume in) keeps the read timeout: no stall time of its own.
        #expect(UpstreamClient.stallAfter(budget: 30, readTimeout: 10) == nil && UpstreamClient.stallAfter(budget: 6, readTimeout: 10) == 2)
    }

    @Test("an origin that answers the range with the whole object: the bytes already sent are skipped", arguments: Via.allCases)
    func ignoredRange(via: Via) async throws {
        let f = try await fetch("vod-ts", msn: 4, faults: [(.truncate, 50_000, 1), (.norange, nil, 1)], via: via)
        #expect(f.player.body == f.origin, "\(f.player.body.count) bytes of \(f.origin.count)")
        #expect(f.resumes.map(\.phase) == [.broken, .resumed], "\(f.resumes.map(\.text))")
    }

    @Test("an object that changed under the break is never stitched: the body ends short and the line says why", arguments: Via.allCases)
    func changed(via: Via) async throws {
        let f = try await fetch("vod-ts", msn: 5, faults: [(.truncate, 20_000, 1), (.etag, nil, nil)], via: via)
        #expect(f.player.cut && f.player.body.count == 20_000, "\(f.player.body.count)")
        #expect(f.resumes.map(\.phase) == [.broken, .gaveUp], "\(f.resumes.map(\.text))")
        #expect(f.resumes.last?.cause?.contains("the object changed (ETag") == true, "\(f.resumes.map(\.text))")
    }

    @Test("a body whose host keeps failing goes on from the redundant copy on another host, under the same If-Range")
    func fromTheCopy() async throws {
        let state = origin.router.state
        defer { state.clearFaults() }
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        // The steered scenario: the same rungs on 127.0.0.1 (cdn-a) and 127.0.0.2 (cdn-b), the same paths, the same bytes.
        let top = try await loader.fetchTop("\(origin.httpBase)/steered/master.m3u8")
        let opened = loader.present(top, splice: SpliceRoute(rung: 0, fill: [0]))
        let c = try ClientOrigins.client { $0.readTimeout = 60 }
        defer { c.shutdown() }
        let (_, text) = try await firstMedia(c, opened.playerURL)
        let media = try #require(PlaylistParser.parseLenient(text).playlist.media)
        let seg = try #require(media.segments.dropLast().last)
        let msn = seg.mediaSequence
        // On cdn-a the body is cut after 30 KB, and the next two requests for it are refused: its copy on cdn-b gives the rest.
        for (kind, status, bytes, count) in [(Fault.Kind.truncate, 200, 30_000, 1), (.status, 503, nil, 2)] {
            var f = Fault(
                id: 0, kind: kind, target: .segment, status: status, ms: 0, scenario: "live-ts", rendition: "v144", msn: msn,
                remaining: count, since: 0)
            f.bytes = bytes
            f.host = "127.0.0.1"
            _ = state.add(f)
        }
        let r = try await c.get(seg.uri)
        let copy = try await c.get("http://127.0.0.2:\(origin.httpPort)/live-ts/v144/s\(msn).ts")
        #expect(r.head.status == 200 && r.body == copy.body, "\(r.body.count) bytes of \(copy.body.count)")
        _ = await eventually { log.requests.contains { $0.kind == .segment && $0.msn == msn } }
        let resumes = log.all.compactMap { e -> ResumeEvent? in
            if case .resume(let r) = e { return r }
            return nil
        }
        #expect(resumes.map(\.phase) == [.broken, .resumed], "\(resumes.map(\.text))")
        #expect(resumes.last?.source == "127.0.0.2" && resumes.last?.text.contains("from 127.0.0.2") == true, "\(resumes.map(\.text))")
        // Three requests (two refused by cdn-a, then the copy), and what the one before the last said.
        let last = try #require(resumes.last)
        #expect(last.attempts == 3 && last.failed?.contains("503") == true, "\(last)")
        #expect(last.text.contains("(3 requests; before the last: "), "\(last.text)")
    }
}

@Suite("The init section's tracks, known to the Loader before the player has the init whole")
struct InitTracksTests {
    @Test(
        "as the init section's end goes out, its tracks are known: the player's next request (segment 0, read ahead, answered at once) is timed with them",
        arguments: Via.allCases)
    func knownBeforeTheEnd(via: Via) async throws {
        let (base, upstream) = via.upstream(ResumeOrigin.shared)
        var o = LoaderOptions()
        o.upstream = upstream
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let url = "\(base)/vod-fmp4/v144/init.mp4"
        let known = NIOLockedValueBox<Bool?>(nil)
        await loader.segment(
            Resource(upstream: url, kind: .initSection, rung: 0), range: nil,
            writer: .sink(onEnd: { known.withLockedValue { $0 = loader.initTracks.withLockedValue { $0[url]?.isEmpty == false } } }))
        #expect(known.withLockedValue { $0 } == true, "the init section ended before the Loader knew its tracks")
    }
}
