import HLS
import LoaderEvents
@testable import Session
import Testing

@testable import TUI
import Foundation

@Suite("Pathways on the dashboard: the pathway line, the status, request lines, the p key (pure)")
struct PathwayTUITests {
    /// Two pathways of two rungs, steered; rung 2 (cdn-b's 144p) loaded.
    func steeredSession() -> SessionState {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        s.apply(.opened(url: s.url, playlist: PlaylistParser.parseLenient(Self.mv).playlist, diagnostics: []), at: 0)
        s.apply(.switched(VariantSwitch(t: 0.1, from: nil, to: 2, reason: .start, mechanism: .load)), at: 0.1)
        return s
    }

    static let mv = """
        #EXTM3U
        #EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="cdn-b"
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-a",STABLE-VARIANT-ID="lo"
        http://a.test/v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-a",STABLE-VARIANT-ID="hi"
        http://a.test/v360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-b",STABLE-VARIANT-ID="lo"
        http://b.test/v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-b",STABLE-VARIANT-ID="hi"
        http://b.test/v360/index.m3u8

        """

    func segment(rung: Int, msn: Int, status: Int = 200, failure: String? = nil, at t: Double) -> LoaderEvent {
        .request(
            RequestEvent(
                kind: .segment, url: "http://x.test/s\(msn).ts", rung: rung, msn: msn, start: t, ttfbMs: 5, durationMs: 100,
                bytes: failure == nil ? 100_000 : 0, status: status, local: false, prefetch: false, retries: 0,
                outcome: failure.map { .failed($0) } ?? .ok, firstPTS: nil))
    }

    @Test("automatic choice stays on the pathway in use; a failed rung's pathway is out for the TTL, and the line says so")
    func failure() {
        var s = steeredSession()
        #expect(s.pathways?.current == "cdn-b" && s.abrCandidates == [2, 3])
        #expect(s.steeringReloadDue(at: 0.2)?.pathway == "cdn-b")
        s.apply(.steered(.manifest(SteeringManifest(ttl: 10, priority: ["cdn-b", "cdn-a"]))), at: 0.3)
        s.apply(.loader(segment(rung: 2, msn: 1, at: 1)), at: 1.1)
        s.apply(.loader(segment(rung: 2, msn: 2, status: 503, failure: "HTTP 503 Service Unavailable", at: 2)), at: 2.1)
        #expect(s.pathways?.current == "cdn-a" && s.pathwayTarget == 0, "the same rung on cdn-a")
        let m = DashboardModel(s, ui: UIState())
        let line = m.pathways ?? ""
        #expect(line.hasPrefix("pathways  cdn-b out 10s (HTTP 503 Service Unavailable) 8Mbps 2 req  ▶cdn-a ok 0 req"), "\(line)")
        #expect(m.status.pathway == "path cdn-a  cdn-b out 10s", "\(m.status.pathway ?? "nil")")
        let text = Dashboard.render(m, width: 80, height: 24).text
        #expect(text.contains("pathways  cdn-b out 10s"), "\(text)")
        #expect(m.logLines.first?.text.contains("s2.ts @cdn-b") == true, "\(m.logLines.first?.text ?? "")")
        // The retest once the penalty ends: one, and not again while it is out.
        #expect(s.pathwayRetest(at: 11.9) == nil)
        #expect(s.pathwayRetest(at: 12.2) == 2 && s.pathwayRetest(at: 12.3) == nil)
        s.apply(.pathwayAnswered(rung: 2), at: 12.5)
        #expect(s.pathways?.current == "cdn-b" && s.pathways?.penalties.isEmpty == true)
    }

    @Test("p pins each pathway in turn, then returns to steering's choice; a script names one; an unknown name is refused")
    func pin() {
        var s = steeredSession()
        _ = s.choosePathway(.nextPathway, at: 1)
        #expect(s.pathways?.pinned == "cdn-a" && s.pathways?.current == "cdn-a")
        _ = s.choosePathway(.nextPathway, at: 2)
        #expect(s.pathways?.pinned == "cdn-b")
        _ = s.choosePathway(.nextPathway, at: 3)
        #expect(s.pathways?.pinned == nil && s.pathways?.current == "cdn-b")
        #expect(Action.parse(["pathway", "cdn-a"]) == .pinPathway("cdn-a") && Action.parse(["pathway", "auto"]) == .pinPathway(nil))
        #expect(s.choosePathway(.pinPathway("cdn-x"), at: 4).isEmpty && s.pathways?.pinned == nil)
        #expect(Keymap.command(for: .char("p")) == .session(.nextPathway))
        // A rung pinned by hand follows the move to the same rung on the new pathway.
        _ = s.select(.pin(3))
        _ = s.choosePathway(.pinPathway("cdn-a"), at: 5)
        #expect(s.takePathwayMove() == 0 && s.mode == .pinned(1))
    }

    @Test("a manifest's clone is a pathway once its variants are in the ladder: preferred, it is moved to; one of no known base is named")
    func clone() throws {
        var s = steeredSession()
        guard case .multivariant(let m) = PlaylistParser.parseLenient(Self.mv).playlist.body else {
            Issue.record("not a multivariant playlist")
            return
        }
        var grown = m
        for v in m.variants where v.pathwayID == "cdn-a" {
            var c = v
            c.pathwayID = "cdn-c"
            c.uri = v.uri.replacingOccurrences(of: "a.test", with: "c.test")
            grown.variants.append(c)
        }
        s.apply(.ladderGrown(grown), at: 0.2)
        #expect(s.ladder.rungs.map(\.index) == [0, 1, 2, 3, 4, 5] && s.ladder.rungs[4].variant.pathwayID == "cdn-c")
        let clones = [
            PathwayClone(baseID: "cdn-a", id: "cdn-c", replacement: URIReplacement(host: "c.test")),
            PathwayClone(baseID: "cdn-x", id: "cdn-d", replacement: URIReplacement(host: "d.test")),
        ]
        let facts = s.apply(.steered(.manifest(SteeringManifest(ttl: 10, priority: ["cdn-d", "cdn-c", "cdn-b"], clones: clones))), at: 0.3)
        #expect(s.pathways?.known == ["cdn-a", "cdn-b", "cdn-c"] && s.pathways?.current == "cdn-c")
        #expect(s.pathwayTarget == 4, "the same rung (lo) on the clone")
        let outcome = try #require(
            facts.compactMap { f -> String? in if case .steering(let o, _, _) = f { o } else { nil } }.first)
        #expect(outcome.contains("clones cdn-c (of cdn-a)") && outcome.contains("cdn-d (no pathway cdn-x)"), "\(outcome)")
        #expect(s.abrCandidates == [4, 5], "automatic choice among the clone's rungs")
    }
}
