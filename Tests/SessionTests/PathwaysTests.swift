import HLS
import Session
import Testing

/// The Session's choice of pathway (docs/STEERING.md): the manifest's priority, the penalty box, the pin, and what a steering
/// reload's answer leads to.
@Suite("Pathways: the manifest's priority, the penalty box and switch-back, the pin, the steering reload's answers (pure)")
struct PathwaysTests {
    /// Two pathways, steered to start on the second.
    static let multivariant: MultivariantPlaylist = {
        let text = """
            #EXTM3U
            #EXT-X-CONTENT-STEERING:SERVER-URI="/steer.json",PATHWAY-ID="cdn-b"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,PATHWAY-ID="cdn-a"
            lo.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,PATHWAY-ID="cdn-b"
            https://b.example.com/lo.m3u8

            """
        return PlaylistParser.parseLenient(text).playlist.multivariant!
    }()

    @Test("the playlist's PATHWAY-ID first; the manifest's priority; unlisted pathways are not chosen")
    func priority() {
        var p = Pathways(Self.multivariant)
        #expect(p.known == ["cdn-a", "cdn-b"] && p.current == "cdn-b")
        let change = p.apply(SteeringManifest(ttl: 10, priority: ["cdn-a", "cdn-b"]), at: 0)
        #expect(change == Pathways.Change(from: "cdn-b", to: "cdn-a", cause: .manifest))
        #expect(p.apply(SteeringManifest(ttl: 10, priority: ["cdn-x", "cdn-b"]), at: 1)?.to == "cdn-b")
        // A playlist whose variants name no pathway: one, ".".
        #expect(Pathways(MultivariantPlaylist()).current == PathwayIDs.defaultID)
    }

    @Test("a failed pathway is penalised for the TTL, retested once it ends, and used again when preferred and answering")
    func penaltyAndSwitchBack() {
        var p = Pathways(Self.multivariant)
        _ = p.pin(nil, at: 0)
        _ = p.apply(SteeringManifest(ttl: 10, priority: ["cdn-a", "cdn-b"]), at: 0)
        #expect(p.current == "cdn-a")
        #expect(p.failed("cdn-a", cause: "503", for: 10, at: 1) == Pathways.Change(from: "cdn-a", to: "cdn-b", cause: .failure))
        // No request to the penalised pathway until its penalty ends.
        #expect(p.isPenalised("cdn-a", at: 10.9) && p.retestDue(at: 10.9) == nil && p.best(at: 5) == "cdn-b")
        #expect(p.retestDue(at: 11) == "cdn-a")
        // The retest fails: another full TTL.
        #expect(p.failed("cdn-a", cause: "503", for: 10, at: 11) == nil)
        #expect(p.retestDue(at: 20.9) == nil && p.retestDue(at: 21) == "cdn-a")
        // It answers: traffic goes back.
        #expect(p.answered("cdn-a", at: 21) == Pathways.Change(from: "cdn-b", to: "cdn-a", cause: .recovered))
        #expect(p.penalties.isEmpty)
        // Every pathway failed: the one whose penalty ends first is tried.
        _ = p.failed("cdn-a", cause: "timeout", for: 10, at: 30)
        _ = p.failed("cdn-b", cause: "503", for: 10, at: 31)
        #expect(p.current == "cdn-a")
    }

    @Test("a pin wins while its pathway answers; a failure of the pinned pathway falls back to the priority")
    func pin() {
        var p = Pathways(Self.multivariant)
        _ = p.apply(SteeringManifest(ttl: 10, priority: ["cdn-a", "cdn-b"]), at: 0)
        #expect(p.pin("cdn-b", at: 1) == Pathways.Change(from: "cdn-a", to: "cdn-b", cause: .manual))
        #expect(p.apply(SteeringManifest(ttl: 10, priority: ["cdn-a", "cdn-b"]), at: 2) == nil)
        #expect(p.failed("cdn-b", cause: "404", for: 10, at: 3)?.to == "cdn-a")
        #expect(p.pin(nil, at: 4) == nil)
    }

    @Test("a clone of a known pathway is a pathway; one of an unknown pathway, or under an ID already known, is not")
    func clones() {
        var p = Pathways(Self.multivariant)
        p.add(clones: [
            PathwayClone(baseID: "cdn-a", id: "cdn-c", replacement: URIReplacement()),
            PathwayClone(baseID: "nope", id: "cdn-d", replacement: URIReplacement()),
            PathwayClone(baseID: "cdn-a", id: "cdn-b", replacement: URIReplacement()),
        ])
        #expect(p.known == ["cdn-a", "cdn-b", "cdn-c"])
    }

    @Test("a steering reload's answer: 200 a manifest, 410 stops steering, 429 waits Retry-After, others the TTL")
    func reloadAnswers() {
        #expect(SteeringReload.next(status: 200, retryAfter: nil, ttl: 10) == .manifest)
        #expect(SteeringReload.next(status: 410, retryAfter: nil, ttl: 10) == .stop)
        #expect(SteeringReload.next(status: 429, retryAfter: " 3", ttl: 10) == .retry(after: 3))
        #expect(SteeringReload.next(status: 429, retryAfter: "soon", ttl: 10) == .retry(after: 10))
        #expect(SteeringReload.next(status: 503, retryAfter: "3", ttl: 10) == .retry(after: 10))
    }
}
