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

@Suite("The Loader as an LL-HLS client of the origin's ll-ts and ll-fmp4 streams")
struct LowLatencyLoaderTests {
    static let origin = TestOrigins.start()

    /// A Loader that gives the player whole segments (`--no-parts`): the tests of its reloads take the last segment listed
    /// and reload, as FFmpeg does.
    static func wholeSegments() throws -> LoaderServer {
        var o = LoaderOptions()
        o.parts = false
        return try LoaderServer.start(options: o)
    }

    /// The player's media playlist URL for `url` and the segment URLs it lists, with their MSNs.
    func media(_ c: UpstreamClient, _ playerURL: String) async throws -> (url: String, segments: [(msn: Int, url: String)]) {
        let text = String(decoding: try await c.get(playerURL).body, as: UTF8.self)
        let url = text.split(separator: "\n").first { $0.hasPrefix("http") && $0.contains("/media/") }.map(String.init) ?? playerURL
        let body = url == playerURL ? text : String(decoding: try await c.get(url).body, as: UTF8.self)
        let m = try #require(PlaylistParser.parseLenient(body).playlist.media)
        return (url, m.segments.map { ($0.mediaSequence, $0.uri) })
    }

    @Test("once the player has the last segment, the reload blocks until the next one exists and lists it")
    func blocks() async throws {
        let loader = try Self.wholeSegments()
        defer { loader.stop() }
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let mark = Self.origin.router.state.log().count
        let playerURL = try await loader.open("\(Self.origin.httpBase)/ll-ts/v240/index.m3u8")
        let (url, segments) = try await media(c, playerURL)
        let last = try #require(segments.last)
        #expect(try await c.get(last.url).head.status == 200)
        let again = try #require(PlaylistParser.parseLenient(String(decoding: try await c.get(url).body, as: UTF8.self)).playlist.media)
        // Not answered before the segment was published, and then listed (a loaded machine may ask late: more may be listed).
        let model = LowLatencyModel(scenario: Scenario.named("ll-ts")!, rendition: TestOrigins.media.lowLatency("v240", .ts)!)
        #expect(Date().timeIntervalSince1970 >= model.published(msn: last.msn + 1, part: nil, overrides: LiveOverrides()) - 0.01)
        #expect((again.segments.last?.mediaSequence ?? 0) >= last.msn + 1, "\(again.segments.map(\.mediaSequence))")
        // (The other tests' origin requests carry their fault in their query, or are of another rung.)
        let asked = Self.origin.router.state.log(since: mark).map(\.path).filter {
            $0.hasPrefix("/ll-ts/v240/") && $0.contains("_HLS_msn=\(last.msn + 1)") && !$0.contains("llfault")
        }
        #expect(asked.count == 1, "\(Self.origin.router.state.log(since: mark).map { "\($0.path) \($0.time)" })")
    }

    @Test("a server that answers a blocking reload before the segment exists is named once (RFC 8216bis §6.2.5.2)")
    func earlyAnswer() async throws {
        let loader = try Self.wholeSegments()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let playerURL = try await loader.open("\(Self.origin.httpBase)/ll-ts/v240/index.m3u8?llfault=early")
        // Each round: the player takes the last segment, then reloads. The fault answers at once, so a round that straddles
        // the next segment's publication gets it after all: a round starts only with two seconds or more before that.
        let model = LowLatencyModel(scenario: Scenario.named("ll-ts")!, rendition: TestOrigins.media.lowLatency("v240", .ts)!)
        for _ in 0..<3 {
            var (url, segments) = try await media(c, playerURL)
            let next = model.published(msn: try #require(segments.last).msn + 1, part: nil, overrides: LiveOverrides())
            if next - Date().timeIntervalSince1970 < 2 {
                try await Task.sleep(for: .seconds(max(0, next - Date().timeIntervalSince1970) + 0.2))
                (url, segments) = try await media(c, playerURL)
            }
            _ = try await c.get(try #require(segments.last).url)
            _ = try await c.get(url)
            if log.diagnostics.contains(where: { $0.contains("blocking reload") }) { break }
        }
        let lines = log.diagnostics.filter { $0.contains("blocking reload") }
        #expect(lines.count == 1, "\(log.diagnostics)")
        #expect(lines.first?.contains("was answered without it") == true && lines.first?.contains("§6.2.5.2") == true)
    }

    @Test("a server that holds a blocking reload past the read timeout: one line, the playlist polled for instead, no retry wait")
    func slowHold() async throws {
        let loader = try Self.wholeSegments()
        defer { loader.stop() }
        let log = EventLog(loader)
        // The player waits longer than the Loader's read timeout, as mpv does (60 s).
        let c = try ClientOrigins.client { $0.readTimeout = 60 }
        defer { c.shutdown() }
        let mark = Self.origin.router.state.log().count
        let playerURL = try await loader.open("\(Self.origin.httpBase)/ll-ts/v240/index.m3u8?llfault=slowhold")
        let (url, segments) = try await media(c, playerURL)
        let last = try #require(segments.last)
        _ = try await c.get(last.url)
        let start = Date()
        let again = try await c.get(url)
        let waited = Date().timeIntervalSince(start)
        // The player got its playlist after one read timeout (10 s), not after retries of it.
        #expect(again.head.status == 200 && waited < 15, "\(again.head.status) after \(waited) s")
        let lines = log.diagnostics.filter { $0.contains("blocking reload") }
        #expect(lines.count == 1 && lines[0].contains("was not answered within 10 s") && lines[0].contains("polled"), "\(log.diagnostics)")
        // From then on no blocking reload is asked for.
        _ = try await c.get(url)
        let asked = Self.origin.router.state.log(since: mark).map(\.path).filter { $0.contains("slowhold") && $0.contains("index.m3u8") }
        // (The origin logs an answer when it sends it: the held one is not there yet. The Loader's request log has it.)
        let held = log.requests.filter { $0.url.contains("_HLS_msn") }
        #expect(held.count == 1 && held[0].status == 504 && held[0].failure?.contains("read timeout") == true, "\(held)")
        #expect(!asked.isEmpty && asked.allSatisfy { !$0.contains("_HLS_msn") }, "\(asked)")
    }

    @Test("a server that holds a blocking reload longer than three target durations, and answers: one line, the playlist as usual")
    func longHold() async throws {
        // A Loader that waits longer than the hold (14 s: 3.5 target durations of 4 s), as one given a longer read timeout.
        var options = LoaderOptions()
        options.parts = false
        options.upstream.readTimeout = 20
        let loader = try LoaderServer.start(options: options)
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client { $0.readTimeout = 60 }
        defer { c.shutdown() }
        let playerURL = try await loader.open("\(Self.origin.httpBase)/ll-ts/v240/index.m3u8?llfault=slowhold")
        let (url, segments) = try await media(c, playerURL)
        let last = try #require(segments.last)
        _ = try await c.get(last.url)
        let again = try await c.get(url)
        let m = try #require(PlaylistParser.parseLenient(String(decoding: again.body, as: UTF8.self)).playlist.media)
        #expect(again.head.status == 200 && (m.segments.last?.mediaSequence ?? 0) >= last.msn + 1, "the held answer, whole")
        let lines = log.diagnostics.filter { $0.contains("blocking reload") }
        #expect(lines.count == 1, "\(log.diagnostics)")
        // Held until the segment is published, then 3.5 target durations more: 14 s at least.
        let held = lines.first.flatMap { $0.range(of: "was held ") }.flatMap { r in Double(lines[0][r.upperBound...].prefix { $0 != " " }) }
        #expect((held ?? 0) >= 14 && lines.first?.contains("more than three target durations (12 s)") == true, "\(lines)")
        #expect(lines.first?.contains("§6.2.5.2") == true && !(lines.first?.contains("polled") ?? true))
    }

    @Test("a preload hint naming a part never published: named once when the playlist moves past it (RFC 8216bis §4.4.5.3)")
    func falseHint() async throws {
        let loader = try Self.wholeSegments()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let playerURL = try await loader.open("\(Self.origin.httpBase)/ll-ts/v240/index.m3u8?llfault=nohint")
        // The player takes the last segment and reloads twice: the blocking reloads wait for the next segments, which list
        // parts the hint never named.
        for _ in 0..<2 {
            let (url, segments) = try await media(c, playerURL)
            _ = try await c.get(try #require(segments.last).url)
            _ = try await c.get(url)
        }
        let lines = log.diagnostics.filter { $0.contains("preload hint") }
        #expect(lines.count == 1, "\(log.diagnostics)")
        #expect(lines.first?.contains(".never") == true && lines.first?.contains("never appeared") == true)
        #expect(lines.first?.contains("§4.4.5.3") == true)
        // The origin answers the hinted URI 404.
        let hinted = try #require(
            lines.first.flatMap { $0.range(of: "preload hint ") }.map { r in lines[0][r.upperBound...].prefix { $0 != " " } })
        let base = "\(Self.origin.httpBase)/ll-ts/v240/"
        #expect(try await c.get(base + hinted).head.status == 404)
    }

    @Test("the hints of a good server come true: nothing said")
    func trueHints() async throws {
        let loader = try Self.wholeSegments()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let playerURL = try await loader.open("\(Self.origin.httpBase)/ll-ts/v360/index.m3u8")
        for _ in 0..<2 {
            let (url, segments) = try await media(c, playerURL)
            _ = try await c.get(try #require(segments.last).url)
            _ = try await c.get(url)
        }
        #expect(!log.diagnostics.contains { $0.contains("preload hint") }, "\(log.diagnostics)")
    }

    @Test(
        "the segment in progress reaches the player as its parts are published, byte for byte the segment, paced",
        arguments: [Container.ts, .fmp4])
    func growingSegment(container: Container) async throws {
        // Its point is keeping up with the origin's real-time LL clock: it runs with no player beside it (`alone`,
        // docs/TESTING.md); beside the tier's players at their busiest it missed the origin's moments.
        try await PlayerSlots.alone("LL growing segment \(container)") { try await growingSegmentRun(container: container) }
    }

    func growingSegmentRun(container: Container) async throws {
        let scenario = container == .ts ? "ll-ts" : "ll-fmp4"
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        // v144: the other tests count the origin's requests for v240 and v360.
        let model = LowLatencyModel(scenario: Scenario.named(scenario)!, rendition: TestOrigins.media.lowLatency("v144", container)!)
        // Asked for once its first part is out (an fMP4 segment in progress is listed from then on: its first part says whether
        // a discontinuity opens it) and while at least 1.5 s of it is still to be published; a machine so loaded that it got
        // there later tries the next one.
        let o = LiveOverrides()
        // This test's requests only, told from the other tests' on v144 by `?client=` (kept on every reload, part and hint).
        let client = "growing\(UUID().uuidString.prefix(8))"
        var chosen: (msn: Int, url: String, complete: Double, player: String)?
        for _ in 0..<4 where chosen == nil {
            // The segment to ask for: the one in progress, or the next when less than 1.5 s of it is left; in fMP4 not one
            // that opens the origin's loop (a discontinuity: listed before its first part — a loaded machine that read the
            // playlist as the one before it completed — it reaches the player empty, `breakBeforeFirstPart`). Waited for
            // until its first part is out (1.1 s in).
            let now = Date().timeIntervalSince1970
            var target = model.lastCompleteMSN(at: now, overrides: o) + 1
            if model.published(msn: target, part: nil, overrides: o) - now < 1.5 { target += 1 }
            while container == .fmp4 && model.model.truth(target, overrides: o).discontinuity { target += 1 }
            let due = model.published(msn: target, part: nil, overrides: o) - 2.9
            if due > now { try await Task.sleep(for: .seconds(due - now)) }
            // Opened at the segment in progress, as the session starts a low-latency pane: an fMP4 player's playlist ends before
            // a discontinuity (the session reloads after it), and the origin's loop puts one in every window.
            let progress = model.lastCompleteMSN(at: Date().timeIntervalSince1970, overrides: o) + 1
            let playerURL = try await loader.openStream(
                "\(Self.origin.httpBase)/\(scenario)/v144/index.m3u8?client=\(client)", startMSN: progress
            ).playerURL
            let (_, segments) = try await media(c, playerURL)
            let last = try #require(segments.last)
            // Not yet complete: the player's playlist ends with the segment in progress.
            let complete = model.published(msn: last.msn, part: nil, overrides: o)
            let opensLoop = container == .fmp4 && model.model.truth(last.msn, overrides: o).discontinuity
            if complete - Date().timeIntervalSince1970 >= 1.5, !opensLoop { chosen = (last.msn, last.url, complete, playerURL) }
        }
        let growing = try #require(chosen, "never got to ask for a segment while it was in progress")
        let complete = growing.complete
        let first = NIOLockedValueBox<(wall: Double, loader: Double)?>(nil)
        let asked = (wall: Date().timeIntervalSince1970, loader: loader.now)
        let r = try await c.get(
            growing.url,
            onBody: { _ in first.withLockedValue { $0 = $0 ?? (Date().timeIntervalSince1970, loader.now) } })
        let ended = Date().timeIntervalSince1970
        #expect(r.head.status == 200)
        // Its first bytes came before the segment was complete (the parts published by then at once, or the first as it was
        // published), its end not before.
        let firstByte = try #require(first.withLockedValue { $0 })
        // What the Loader did for it, on its clock from the ask: each part's request, its first byte and its end.
        let partsRead = log.requests.filter { $0.msn == growing.msn }.map { q in
            "\(q.kind.rawValue) +\(fixed(q.start - asked.loader, 3)) s ttfb \(q.ttfbMs.map { fixed($0, 0) } ?? "-") ms"
                + " \(fixed(q.durationMs, 0)) ms\(q.prefetch ? " prefetch" : "") \(q.url.split(separator: "/").last ?? "")"
        }
        // On the Loader's clock, which the ask ties to the wall clock: the request can reach the Loader more than a second after
        // it was sent on a loaded machine (measured: 1.25 s in a CI run), so what is held to is the Loader's doing from there —
        // the segment read part by part from before it was complete, and its first bytes given before it was.
        let completeOnLoader = asked.loader + (complete - asked.wall)
        let partReads = log.requests.filter { $0.msn == growing.msn && $0.kind == .part }
        #expect(
            partReads.contains { $0.start < completeOnLoader } && firstByte.wall < complete,
            """
            first byte \(complete - firstByte.wall) s before the segment was complete; asked \(complete - asked.wall) s before it, \
            first byte \(fixed(firstByte.loader - asked.loader, 3)) s after the ask (Loader's clock); \(partsRead)
            """)
        #expect(ended >= complete - 0.05, "ended \(complete - ended) s before the segment was complete")
        // The same bytes as the segment the origin lists once complete (RFC 8216bis §3.2: parts hold the segment's samples).
        let whole = try await c.get("\(Self.origin.httpBase)/\(scenario)/v144/s\(growing.msn).\(container.segmentExtension)")
        // Each part followed by filler the demuxer skips (`PartFiller`): without it, the segment's bytes.
        let fmp4 = container == .fmp4
        #expect(
            whole.head.status == 200 && PartFiller.strip(r.body, fragmentedMP4: fmp4) == whole.body,
            "\(r.body.count) bytes against \(whole.body.count)")
        #expect(r.body.count - whole.body.count == 4 * PartFiller.bytes(fragmentedMP4: fmp4).count, "a filler after each of four parts")
        // The player, at the edge, reloads: the next segment is listed for it at once, in progress — an fMP4 one before its
        // first part too (its body checks that part before it writes a byte) — unless that part is out and says the origin's
        // loop opens the segment with a discontinuity, before which an fMP4 player's playlist ends (the session reloads after
        // it; DECISIONS.md, LL-HLS). Judged by when the read reached the origin, not when the test began it.
        let mark = Self.origin.router.state.log().count
        let (_, next) = try await media(c, growing.player)
        let breaks = container == .fmp4 && model.model.truth(growing.msn + 1, overrides: o).discontinuity
        let seen = Self.origin.router.state.log(since: mark).filter { $0.path.contains(client) }
        let plain = seen.first { $0.path.hasPrefix("/\(scenario)/v144/index.m3u8") && !$0.path.contains("_HLS_msn") }
        let firstPart = model.published(msn: growing.msn + 1, part: 0, overrides: o)
        let listedNext = next.last?.msn == growing.msn + 1
        if !breaks || (plain.map { $0.wall < firstPart - 0.05 } ?? false) {
            #expect(listedNext, "\(next.map(\.msn)); \(growing.msn + 1) opens a loop: \(breaks)")
        } else if let plain, plain.wall > firstPart + 0.05 {
            #expect(next.last?.msn == growing.msn, "\(next.map(\.msn)): \(growing.msn + 1) opens a loop, its first part was out")
        }
        // Answered at once: no blocking reload for the next segment's first part.
        let waited = seen.map(\.path).filter { $0.contains("_HLS_msn=\(growing.msn + 1)&_HLS_part=0") }
        #expect(waited.isEmpty, "\(seen.map(\.path))")
        // Each part is a request of its own; the segment's own record is paced (no throughput read from it).
        try await Task.sleep(for: .milliseconds(100))
        let parts = log.requests.filter { $0.kind == .part && $0.msn == growing.msn }
        #expect(parts.count == 4 && parts.allSatisfy { $0.status == 200 }, "\(parts.map(\.url))")
        let segment = log.requests.filter { $0.kind == .segment && $0.msn == growing.msn }
        #expect(segment.count == 1 && segment.first?.paced == true && segment.first?.bytes == whole.body.count, "\(segment)")
        #expect(log.diagnostics.isEmpty, "\(log.diagnostics)")
    }

    @Test(
        "fMP4: a segment listed before its first part that opens with a discontinuity reaches the player empty, and its next playlist ends before it"
    )
    func breakBeforeFirstPart() async throws {
        // Its point is keeping up with the origin's real-time LL clock: it runs with no player beside it (`alone`,
        // docs/TESTING.md); beside the tier's players at their busiest it missed the origin's moments.
        try await PlayerSlots.alone("LL break before first part") { try await breakBeforeFirstPartRun() }
    }

    func breakBeforeFirstPartRun() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let model = LowLatencyModel(scenario: Scenario.named("ll-fmp4")!, rendition: TestOrigins.media.lowLatency("v240", .fmp4)!)
        let o = LiveOverrides()
        // The origin's loop: the next segment that opens with a discontinuity, once the one before it is complete and at least
        // half a second before its own first part is out (a machine so loaded that it got there later tries the next loop).
        var chosen: (msn: Int, player: String, url: String)?
        for _ in 0..<2 where chosen == nil {
            let now = Date().timeIntervalSince1970
            var n = model.lastCompleteMSN(at: now, overrides: o) + 1
            while !model.model.truth(n, overrides: o).discontinuity || model.published(msn: n - 1, part: nil, overrides: o) < now {
                n += 1
            }
            let complete = model.published(msn: n - 1, part: nil, overrides: o)
            try await Task.sleep(for: .seconds(max(0, complete - Date().timeIntervalSince1970 + 0.05)))
            guard model.published(msn: n, part: 0, overrides: o) - Date().timeIntervalSince1970 > 0.5 else { continue }
            let opened = try await loader.openStream("\(Self.origin.httpBase)/ll-fmp4/v240/index.m3u8", startMSN: n - 1)
            let (url, segments) = try await media(c, opened.playerURL)
            // Listed at once, before its first part.
            if let last = segments.last, last.msn == n, segments.dropLast().last?.msn == n - 1 { chosen = (n, url, last.url) }
        }
        let loop = try #require(chosen, "never got to the segment before a loop point in time")
        // The segment before it is the player's; then it asks for this one: an empty body, once its first part is listed.
        _ = try await c.get(try #require(try await media(c, loop.player).segments.first { $0.msn == loop.msn - 1 }).url)
        let r = try await c.get(loop.url)
        #expect(r.head.status == 200 && r.body.isEmpty, "\(r.head.status), \(r.body.count) bytes")
        #expect(
            Date().timeIntervalSince1970 >= model.published(msn: loop.msn, part: 0, overrides: o) - 0.05, "answered before its first part")
        // Its next playlist ends before it: the player reaches the end there and the session reloads after it.
        let text = String(decoding: try await c.get(loop.player).body, as: UTF8.self)
        let after = try #require(PlaylistParser.parseLenient(text).playlist.media)
        #expect(after.endList && after.segments.last?.mediaSequence == loop.msn - 1, "\(text)")
        let record = log.requests.filter { $0.kind == .segment && $0.msn == loop.msn }
        #expect(record.count == 1 && record.first?.bytes == 0 && record.first?.status == 200, "\(record)")
        #expect(log.diagnostics.isEmpty, "\(log.diagnostics)")
    }

    @Test(
        "a player that starts inside the segment in progress: its listed parts are read with the init section, together, before it asks; the body is the segment's bytes"
    )
    func startInsideSegment() async throws {
        // Its point is keeping up with the origin's real-time LL clock: it runs with no player beside it (`alone`,
        // docs/TESTING.md); beside the tier's players at their busiest it missed the origin's moments.
        try await PlayerSlots.alone("LL start inside segment") { try await startInsideSegmentRun() }
    }

    func startInsideSegmentRun() async throws {
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let model = LowLatencyModel(scenario: Scenario.named("ll-fmp4")!, rendition: TestOrigins.media.lowLatency("v144", .fmp4)!)
        let o = LiveOverrides()
        // Started once two parts of the segment in progress are out and at least one is still to come (its 4 s: parts 2 and 3).
        // Judged by when the Loader's read of the playlist reached the origin: on a machine so loaded that the segment was
        // complete by then (it reaches the player whole, no part read), or not two parts in, the test tries the next one.
        // This test's requests only, told from the other tests' on v144 by `?client=`.
        let client = "inside\(UUID().uuidString.prefix(8))"
        let url = "\(Self.origin.httpBase)/ll-fmp4/v144/index.m3u8?client=\(client)"
        // Each try with a Loader of its own: a Loader reads ahead at the start of its first stream only.
        var chosen: (progress: Int, msn: Int, url: String, loader: LoaderServer, log: EventLog)?
        defer { chosen?.loader.stop() }
        for _ in 0..<3 where chosen == nil {
            let loader = try LoaderServer.start()
            let log = EventLog(loader)
            var progress = 0
            for _ in 0..<3 {
                let now = Date().timeIntervalSince1970
                progress = model.lastCompleteMSN(at: now, overrides: o) + 1
                let second = model.published(msn: progress, part: 1, overrides: o)
                let complete = model.published(msn: progress, part: nil, overrides: o)
                if now >= second + 0.05 && complete - now > 1 { break }
                try await Task.sleep(for: .seconds(max(0.05, (now < second ? second : complete) - now + 0.1)))
            }
            let mark = Self.origin.router.state.log().count
            let opened = try await loader.openStream(url, startMSN: progress)
            let read = Self.origin.router.state.log(since: mark).first { $0.path.contains(client) && $0.path.contains("index.m3u8") }
            let inProgress = read.map {
                $0.wall >= model.published(msn: progress, part: 1, overrides: o)
                    && $0.wall < model.published(msn: progress, part: nil, overrides: o) - 0.05
            }
            let (_, segments) = try await media(c, opened.playerURL)
            if inProgress == true, let last = segments.last, last.msn == progress {
                chosen = (progress, last.msn, last.url, loader, log)
            } else {
                loader.stop()
            }
        }
        let growing = try #require(chosen, "the segment in progress completed before the stream was open, three times (a loaded machine)")
        let (loader, log) = (growing.loader, growing.log)
        let asked = loader.now
        let r = try await c.get(growing.url)
        #expect(r.head.status == 200)
        let whole = try await c.get("\(Self.origin.httpBase)/ll-fmp4/v144/s\(growing.msn).m4s")
        #expect(PartFiller.strip(r.body, fragmentedMP4: true) == whole.body, "\(r.body.count) bytes against \(whole.body.count)")
        // Each part is logged once its read has ended: waited for, not slept on.
        _ = await eventually { log.requests.filter { $0.kind == .part && $0.msn == growing.msn }.count >= 4 }
        let parts = log.requests.filter { $0.kind == .part && $0.msn == growing.msn }.sorted { $0.url < $1.url }
        #expect(parts.count == 4 && parts.allSatisfy { $0.status == 200 && $0.prefetch }, "\(parts.map(\.url))")
        // The parts listed when the stream was opened: each asked before the player asked for the segment, and every one of
        // them before the first of them was answered — together, not one after another.
        let early = parts.filter { $0.start < asked }
        #expect(early.count >= 2, "\(parts.map { "\($0.url) +\(fixed($0.start - asked, 3)) s" })")
        let firstAnswered = early.map { $0.start + $0.durationMs / 1000 }.min() ?? 0
        #expect(early.allSatisfy { $0.start < firstAnswered }, "\(early.map { "\(fixed($0.start, 3))+\(fixed($0.durationMs, 0)) ms" })")
        #expect(log.diagnostics.isEmpty, "\(log.diagnostics)")
    }

    @Test(
        "a player given the stream again while the one before it read the segment in progress: its first read lists that segment at once, no blocking reload"
    )
    func reloadedPlayer() async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let model = LowLatencyModel(scenario: Scenario.named("ll-ts")!, rendition: TestOrigins.media.lowLatency("v144", .ts)!)
        let o = LiveOverrides()
        // This test's requests only, told from the other tests' on v144 by `?client=`.
        let client = "reloaded\(UUID().uuidString.prefix(8))"
        let url = "\(Self.origin.httpBase)/ll-ts/v144/index.m3u8?client=\(client)"
        // Started while at least 2 s of the segment in progress are still to be published.
        let now = Date().timeIntervalSince1970
        let next = model.published(msn: model.lastCompleteMSN(at: now, overrides: o) + 1, part: nil, overrides: o)
        if next - now < 2.5 { try await Task.sleep(for: .seconds(next - now + 0.2)) }
        let start = model.lastCompleteMSN(at: Date().timeIntervalSince1970, overrides: o) + 1
        let first = try await media(c, try await loader.openStream(url, startMSN: start).playerURL)
        // The segment in progress, listed last (on a machine so loaded that `start` completed meanwhile, the one after it).
        let growing = try #require(first.segments.last)
        let progress = growing.msn
        #expect(progress >= start, "\(first.segments.map(\.msn))")
        // The player reads the segment in progress; then the session gives it the stream again (a reload at a switch's
        // boundary), starting at that segment.
        // Given again once the Loader has taken the first player's read (it answers the head at once, its progress noted):
        // a read that reached it only after (a wait of 300 ms, on a loaded machine) counted as the new player's.
        let headed = AsyncStream.makeStream(of: Void.self)
        let reading = Task {
            _ = try? await c.get(growing.url, onHead: { _ in headed.continuation.yield() })
            headed.continuation.finish()
        }
        defer { reading.cancel() }
        for await _ in headed.stream { break }
        let mark = Self.origin.router.state.log().count
        let again = try await media(c, try await loader.openStream(url, startMSN: progress).playerURL)
        // The new player holds only what comes before where it starts: its first read is not a blocking reload for the segment the one before it was
        // reading (which would keep it waiting until that segment is complete), and lists that segment (or, on a machine so
        // loaded that it completed meanwhile, the one after).
        let blocked = Self.origin.router.state.log(since: mark).map(\.path)
            .filter {
                $0.hasPrefix("/ll-ts/v144/index.m3u8") && $0.contains(client) && $0.contains("_HLS_msn=\(progress)")
                    && !$0.contains("_HLS_part")
            }
        #expect(blocked.isEmpty, "\(blocked)")
        #expect((again.segments.last?.msn ?? 0) >= progress, "\(again.segments.map(\.msn))")
    }

    /// The player's read of `url`: a failure says what the Loader did meanwhile (its lines, and its requests with their
    /// times on its clock) before it is thrown.
    func playerRead(_ c: UpstreamClient, _ url: String, _ loader: LoaderServer, _ log: EventLog) async throws -> UpstreamResponse {
        let asked = loader.now
        do {
            return try await c.get(url)
        } catch {
            let requests = log.requests.filter { $0.start >= asked - 1 }.map {
                "\($0.kind.rawValue) \($0.msn.map(String.init) ?? "-") +\(fixed($0.start - asked, 3)) s \(fixed($0.durationMs, 0)) ms "
                    + "\($0.status) \($0.url.split(separator: "/").last ?? "")"
            }
            Issue.record("\(url) after \(fixed(loader.now - asked, 1)) s: \(error); the Loader said \(log.diagnostics); \(requests)")
            throw error
        }
    }

    /// How the origin spoils the first request of a part.
    enum PartFault: String, CaseIterable, Sendable { case cut, unavailable }

    @Test(
        "a part cut mid-body is resumed, one that answers 503 past the client's retries is asked again: the segment in progress reaches the player whole",
        arguments: PartFault.allCases)
    func partBreaks(fault: PartFault) async throws {
        let loader = try LoaderServer.start()
        defer { loader.stop() }
        let log = EventLog(loader)
        let c = try ClientOrigins.client()
        defer { c.shutdown() }
        let model = LowLatencyModel(scenario: Scenario.named("ll-ts")!, rendition: TestOrigins.media.lowLatency("v144", .ts)!)
        let o = LiveOverrides()
        // Started while at least 2 s of the segment in progress are still to be published: its parts are read as they come.
        let now = Date().timeIntervalSince1970
        let next = model.published(msn: model.lastCompleteMSN(at: now, overrides: o) + 1, part: nil, overrides: o)
        if next - now < 2.5 { try await Task.sleep(for: .seconds(next - now + 0.2)) }
        let progress = model.lastCompleteMSN(at: Date().timeIntervalSince1970, overrides: o) + 1
        // This test's requests only (`?client=` is kept on every part and hint the playlist lists), on the segments after the
        // one in progress: each still to be published when the faults are set, so their parts are read as they come —
        // listed ones read ahead whole, the first from its preload hint streamed to the player — not as whole segments (a
        // segment that completed before it was read, on a loaded machine).
        let client = "partfault\(UUID().uuidString.prefix(8))"
        let t = Date().timeIntervalSince1970
        let uses = fault == .cut ? 1 : 4
        // Faults on the eight segments after it: two must be met while in progress. A player that fell behind (a loaded
        // machine delays the player's and the Loader's reads, never the origin's clock: read in turn, four of four faulted
        // segments were complete when first asked for) goes on at the segment in progress, as a player at the live edge does;
        // a segment that completed before it was asked for is read whole, which is not what this test is about.
        let candidates = (progress + 1)...(progress + 8)
        for msn in candidates {
            var f = Fault(
                id: 0, kind: fault == .cut ? .truncate : .status, target: .segment, status: 503, ms: 0, scenario: "ll-ts",
                rendition: "v144", msn: msn, remaining: uses, since: t, until: t + 40)
            f.client = client
            Self.origin.router.state.add(f)
        }
        let url = "\(Self.origin.httpBase)/ll-ts/v144/index.m3u8?client=\(client)"
        let player = try await loader.openStream(url, startMSN: progress).playerURL
        // The player reads the segment in progress first, as it would.
        let first = try #require(try await media(c, player).segments.first { $0.msn == progress }, "\(progress) not listed")
        _ = try await playerRead(c, first.url, loader, log)
        var inProgress: [Int] = []
        var following = progress + 1
        while inProgress.count < 2 {
            let msn = max(following, model.lastCompleteMSN(at: Date().timeIntervalSince1970, overrides: o) + 1)
            guard candidates.contains(msn) else { break }
            following = msn + 1
            // The player reloads until the Loader lists it, reads it, goes on to the next.
            var listed: (msn: Int, url: String)?
            _ = try await eventually(timeout: 10) {
                listed = try await media(c, player).segments.first { $0.msn == msn }
                return listed != nil
            }
            let segment = try #require(listed, "\(msn) not listed")
            let r = try await playerRead(c, segment.url, loader, log)
            let whole = try await c.get("\(Self.origin.httpBase)/ll-ts/v144/s\(msn).ts")
            #expect(
                r.head.status == 200 && PartFiller.strip(r.body, fragmentedMP4: false) == whole.body,
                "\(msn): \(r.head.status), \(r.body.count) bytes against \(whole.body.count)")
            // In progress when first asked for, by the origin's own clock: its first request for the segment (a part, its hint
            // or the whole) arrived before the segment was complete there.
            let asked = Self.origin.router.state.log().filter { $0.path.contains(client) && $0.msn == msn }.map(\.wall).min()
            guard let asked, asked < model.published(msn: msn, part: nil, overrides: o) else { continue }
            inProgress.append(msn)
            // The faults were met, by this segment's parts.
            let spoiled = Self.origin.router.state.log().filter { $0.path.contains(client) && $0.fault != nil && $0.msn == msn }
            #expect(
                spoiled.count == uses
                    && spoiled.allSatisfy { $0.path.range(of: "/s\(msn)\\.[0-9]+\\.", options: .regularExpression) != nil },
                "\(msn): \(spoiled.map(\.path))")
            _ = await eventually { log.requests.contains { $0.kind == .segment && $0.msn == msn } }
            let parts = log.requests.filter { $0.kind == .part && $0.msn == msn }
            switch fault {
            case .cut:
                #expect(parts.contains { $0.resumed != nil }, "\(msn): \(parts.map { "\($0.url) \($0.status) \($0.resumed ?? "-")" })")
            case .unavailable:
                // Met by the client's retries of one part or spread over parts read at once: a 503 in the log, or retries.
                #expect(
                    parts.contains { $0.status == 503 || $0.retries > 0 }, "\(msn): \(parts.map { "\($0.url) \($0.status) \($0.retries)" })"
                )
            }
            let record = log.requests.filter { $0.kind == .segment && $0.msn == msn }
            #expect(record.count == 1 && record.first?.status == 200 && record.first?.bytes == whole.body.count, "\(record)")
        }
        #expect(inProgress.count == 2, "two of \(candidates) met in progress: \(inProgress)")
        #expect(log.diagnostics.isEmpty, "\(log.diagnostics)")
    }
}
