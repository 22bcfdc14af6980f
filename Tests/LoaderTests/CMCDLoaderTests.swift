import CMCD
import Foundation
import LoaderCore
import LoaderEvents
import TestSupport
import Testing

@testable import Loader
@testable import Origin

/// An origin of its own: these tests count the CMCD in its log.
enum CMCDLoaderOrigin {
    static let shared = ClientOrigins.make()
}

/// CMCD through the Loader (docs/CMCD.md): hlstui's own on every upstream request, or a proxied player's read, checked,
/// reported and forwarded as it came; over real sockets and in memory.
@Suite("CMCD through the Loader: a player's checked and forwarded as it came, or hlstui's own in its place", .serialized)
struct CMCDLoaderTests {
    let origin = CMCDLoaderOrigin.shared

    /// A player that sends `headers` with its media playlist request and `query` (already encoded) on its first two segments.
    func play(via: Via, own: CMCDSettings?, headers: [(String, String)], query: [String]) async throws -> (
        events: [PlayerCMCDEvent], origin: [RequestRecord], requests: [RequestEvent]
    ) {
        let mark = origin.router.state.log().count
        var o = LoaderOptions()
        let (base, upstream) = via.upstream(origin)
        o.upstream = upstream
        o.cmcd = own
        let loader = try LoaderServer.start(options: o)
        defer { loader.stop() }
        let log = EventLog(loader)
        let url = try await loader.open("\(base)/vod-ts/master.m3u8", variants: [0])
        let plain = try ClientOrigins.client()
        defer { plain.shutdown() }
        let media = try #require(
            String(decoding: try await plain.get(url).body, as: UTF8.self).split(separator: "\n").first {
                $0.hasPrefix("http") && $0.contains("/media/")
            })
        let player = try ClientOrigins.client { $0.headers = headers }
        defer { player.shutdown() }
        let text = String(decoding: try await player.get(String(media)).body, as: UTF8.self)
        for (seg, q) in zip(segmentLines(text), query) { #expect(try await plain.get(seg + "?CMCD=" + q).head.status == 200) }
        #expect(await eventually { log.requests.filter { $0.kind == .segment }.count >= query.count })
        // The origin logs a request once its answer went out: a moment after the Loader had it, over sockets.
        let state = origin.router.state
        #expect(await eventually { state.log(since: mark).filter { $0.kind == "segment" }.count >= query.count })
        let events = log.all.compactMap { e -> PlayerCMCDEvent? in if case .playerCMCD(let c) = e { c } else { nil } }
        return (events, origin.router.state.log(since: mark), log.requests)
    }

    @Test("a player's CMCD: each request checked and told with its session; forwarded to the origin as it came", arguments: Via.allCases)
    func forwarded(via: Via) async throws {
        // 30 s of buffer at the first request: no wait between the two (however loaded the machine) drains it.
        let q1 = CMCD.percentEncode(#"bl=30000,br=277,d=2000,ot=av,sid="p-1""#)
        let q2 = CMCD.percentEncode(#"bl=4123,br=800,bs,d=6000,ot=av,sid="p-1""#)
        let r = try await play(
            via: via, own: nil, headers: [("CMCD-Object", "ot=m"), ("CMCD-Session", #"sf=h,sid="p-1""#), ("CMCD-Request", "su")],
            query: [q1, q2])
        #expect(r.events.map(\.sid) == ["p-1", "p-1", "p-1"] && r.events.allSatisfy(\.forwarded))
        #expect(r.events.map(\.kind) == [.media, .segment, .segment])
        #expect(r.events[0].findings.isEmpty && r.events[1].findings.isEmpty, "\(r.events.map(\.findings))")
        // The third: bl not rounded, a bitrate the ladder does not have, a duration the segment does not have, and a starvation
        // the 30 s of buffer before cannot have had.
        let rules = r.events[2].findings.compactMap { $0.split(separator: "[").last.map { String($0.dropLast()) } }
        #expect(Set(rules) == ["rounding", "bitrate", "duration", "starvation"], "\(r.events[2].findings)")
        #expect(
            r.events[2].summary.hasPrefix("p-1 bl 4.1 s br 800k") && r.events[2].summary.contains("1 stall, 1 switch"),
            "\(r.events[2].summary)")
        // The media playlist was served from the Loader's own read of it at open (one fetch upstream per playlist at start):
        // nothing went to the origin to carry the player's CMCD. The segments' query argument went as it came, to the origin
        // that checks it too.
        #expect(r.requests.contains { $0.kind == .media && $0.local }, "\(r.requests.map { "\($0.kind) \($0.local)" })")
        #expect(!r.origin.contains { $0.kind == "playlist" && $0.cmcd?.contains("p-1") == true })
        let segments = r.origin.filter { $0.kind == "segment" }
        #expect(segments.count == 2 && segments.allSatisfy { $0.path.contains("CMCD=") }, "\(segments.map(\.path))")
        #expect(segments.last?.cmcdFindings.contains { $0.hasSuffix("[starvation]") } == true)
        #expect(r.requests.filter { $0.kind == .segment }.allSatisfy { $0.cmcd?.hasPrefix("player: ") == true })
    }

    @Test("with hlstui's own CMCD the player's is still checked and told, not forwarded: the origin gets hlstui's", arguments: Via.allCases)
    func replaced(via: Via) async throws {
        let q = CMCD.percentEncode(#"bl=2000,ot=av,sid="p-2""#)
        let own = CMCDSettings(mode: .header, sessionID: "hlstui-own")
        let r = try await play(via: via, own: own, headers: [], query: [q])
        #expect(r.events.count == 1 && r.events[0].sid == "p-2" && !r.events[0].forwarded)
        let segment = try #require(r.origin.first { $0.kind == "segment" })
        #expect(
            !segment.path.contains("CMCD=") && segment.cmcd?.contains(#"sid="hlstui-own""#) == true,
            "\(segment.path) \(segment.cmcd ?? "-")")
        #expect(segment.cmcdFindings.isEmpty, "\(segment.cmcdFindings)")
    }
}
