import Foundation
import HLS
import LoaderCore
import TestSupport
import Testing

@testable import Origin

/// The `steered` scenario over real HTTP: its own origin, so its steering settings and faults touch no other suite.
@Suite("The origin's steered scenario: one ladder on two loopback CDNs, a steering server changed at run time", .serialized)
struct SteeredOriginTests {
    static let server = TestOrigins.start()
    var base: String { Self.server.httpBase }
    var port: Int { Self.server.httpPort }
    var state: OriginState { Self.server.router.state }

    @Test("two pathways of the same rungs on 127.0.0.1 and 127.0.0.2, each with its own audio; both hosts serve the media")
    func multivariant() async throws {
        let r = try await get("\(base)/steered/master.m3u8")
        #expect(r.status == 200)
        let parsed = PlaylistParser.parseLenient(r.text)
        #expect(parsed.diagnostics.filter { $0.severity == .error }.isEmpty, "\(parsed.diagnostics)")
        let m = try #require(parsed.playlist.multivariant)
        #expect(m.contentSteering == ContentSteering(serverURI: "steering.json", pathwayID: "cdn-a"))
        #expect(Set(m.variants.map { $0.pathwayID ?? PathwayIDs.defaultID }) == ["cdn-a", "cdn-b"])
        let a = PathwayIDs.variants(of: "cdn-a", in: m)
        let b = PathwayIDs.variants(of: "cdn-b", in: m)
        #expect(a.count == b.count && a.count >= 3)
        for i in a {
            let j = try #require(PathwayIDs.equivalent(of: i, on: "cdn-b", in: m))
            #expect(m.variants[i].stableVariantID == m.variants[j].stableVariantID)
            #expect(m.variants[i].uri.hasPrefix("http://127.0.0.1:\(port)/live-ts/"))
            #expect(m.variants[j].uri == m.variants[i].uri.replacingOccurrences(of: "127.0.0.1", with: "127.0.0.2"))
            #expect(m.variants[j].audio != m.variants[i].audio, "each pathway's own audio group")
            let media = try await get(m.variants[j].uri)
            #expect(media.status == 200 && media.text.contains("#EXTINF"))
        }
        let audio = try #require(m.renditions.first { $0.groupID.hasSuffix("-cdn-b") && $0.uri != nil })
        #expect(audio.uri?.hasPrefix("http://127.0.0.2:\(port)/") == true)
        #expect(try await get(audio.uri!).status == 200)
    }

    @Test("the steering server's manifest follows /control/steering: priority, TTL, a clone on 127.0.0.3, 410, 429")
    func steeringServer() async throws {
        defer { state.steering = SteeringSettings() }
        let url = "\(base)/steered/steering.json?_HLS_pathway=cdn-a&_HLS_throughput=1000000"
        var m = try SteeringManifest.parse(try await get(url).body, from: url).get()
        #expect(m.priority == ["cdn-a", "cdn-b"] && m.ttl == 10 && m.clones.isEmpty)
        #expect(m.reloadURI == "\(base)/steered/steering.json?session=1")
        #expect(try await get("\(base)/control/steering?priority=cdn-b,cdn-a&ttl=4&clone=1").status == 200)
        m = try SteeringManifest.parse(try await get(url).body, from: url).get()
        #expect(m.priority == ["cdn-b", "cdn-a"] && m.ttl == 4)
        let clone = try #require(m.clones.first)
        #expect(clone.baseID == "cdn-a" && clone.id == "cdn-c" && clone.replacement.host == "127.0.0.3:\(port)")
        // The clone's variants answer on the third host.
        let master = try #require(PlaylistParser.parseLenient(try await get("\(base)/steered/master.m3u8").text).playlist.multivariant)
        let cloned = clone.expand(master, base: "\(base)/steered/master.m3u8")
        let v = try #require(cloned.variants.first { $0.pathwayID == "cdn-c" })
        #expect(v.uri.hasPrefix("http://127.0.0.3:\(port)/live-ts/"))
        #expect(try await get(v.uri).status == 200)
        // The request log keeps the directives the client sent.
        #expect(state.log().contains { $0.kind == "steering" && $0.path.contains("steering.json") })

        _ = try await get("\(base)/control/steering?status=429&retryAfter=3")
        let busy = try await get(url)
        #expect(busy.status == 429 && busy.headers["retry-after"] == "3")
        _ = try await get("\(base)/control/steering?status=410")
        #expect(try await get(url).status == 410)
    }

    @Test("a fault with host= is an outage of that CDN only")
    func hostOutage() async throws {
        defer { state.clearFaults() }
        #expect(try await get("\(base)/control/fault?kind=status&status=503&target=any&host=127.0.0.2").status == 200)
        let path = "/live-ts/v144/index.m3u8"
        #expect(try await get("http://127.0.0.2:\(port)\(path)").status == 503)
        #expect(try await get("http://127.0.0.1:\(port)\(path)").status == 200)
        #expect(try await get("http://127.0.0.3:\(port)\(path)").status == 200)
        let records = state.log().filter { $0.path == path }
        #expect(records.map { $0.host ?? "" }.suffix(3) == ["127.0.0.2", "127.0.0.1", "127.0.0.3"])
        #expect(records.suffix(3).map(\.status) == [503, 200, 200])
    }
}
