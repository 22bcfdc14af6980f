import HLS
import Testing
@testable import Session

@Suite("LL-HLS playback policy: where the player starts, and keeping it there")
struct LowLatencyPolicyTests {
    func playlist(trailing: Int, holdBack: String = ",PART-HOLD-BACK=3", discontinuity: Bool = false) -> MediaPlaylist {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4", "#EXT-X-PART-INF:PART-TARGET=1",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES\(holdBack)", "#EXT-X-MEDIA-SEQUENCE:100",
            "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
        ]
        for n in 100..<103 { lines += ["#EXTINF:4,", "s\(n).ts"] }
        if discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
        for i in 0..<trailing { lines.append("#EXT-X-PART:DURATION=1,URI=\"s103.\(i).ts\"") }
        return PlaylistParser.parseLenient(lines.joined(separator: "\n") + "\n").playlist.media!
    }

    @Test("PART-HOLD-BACK behind the end of the last part (RFC 8216bis §4.4.3.8), in the segment holding that moment")
    func start() throws {
        // Edge two parts into 103: 3 s back is 3 s into segment 102.
        let a = try #require(SessionState.lowLatencyStart(playlist(trailing: 2)))
        #expect(a.msn == 102 && a.offset == 3 && a.holdBack == 3)
        // Three parts in: the start of the segment in progress itself.
        let b = try #require(SessionState.lowLatencyStart(playlist(trailing: 3)))
        #expect(b.msn == 103 && b.offset == 0)
        // The point 1 s before the end of a segment whose successor restarts the timeline: the start waits 1 s for the
        // segment after the reset.
        let c = try #require(SessionState.lowLatencyStart(playlist(trailing: 2, discontinuity: true)))
        #expect(c.msn == 103 && c.offset == -1)
        // Segment 103 has begun and not yet its parts: 3 s back is 1 s into 102, far enough from its end.
        #expect(SessionState.lowLatencyStart(playlist(trailing: 0))?.offset == 1)
        // No PART-HOLD-BACK: three part targets.
        #expect(SessionState.lowLatencyStart(playlist(trailing: 3, holdBack: ""))?.holdBack == 3)
        var vod = playlist(trailing: 0)
        vod.endList = true
        #expect(SessionState.lowLatencyStart(vod) == nil)
    }

    @Test("catch-up: 5 % faster after two steady seconds behind, back to 1 near the target; a passing misreading does nothing")
    func catchUp() {
        var c = LatencyCatchUp(target: 3)
        #expect(c.step(latency: 3.3, at: 0) == nil)
        #expect(c.step(latency: 5.0, at: 1) == nil)
        // A reading across a timestamp reset: gone again within two seconds.
        #expect(c.step(latency: 3.2, at: 2) == nil)
        #expect(c.step(latency: 3.9, at: 3) == nil)
        #expect(c.step(latency: 3.9, at: 4.9) == nil)
        #expect(c.step(latency: 3.9, at: 5.0) == .speed(LatencyCatchUp.rate))
        #expect(c.step(latency: 3.5, at: 10) == nil)
        #expect(c.step(latency: 3.09, at: 20) == .speed(1))
        #expect(c.step(latency: 3.09, at: 21) == nil)
    }

    @Test("far behind (a start whose seek missed, a long stall): back to the edge after two steady seconds, at most once in ten")
    func backToTheEdge() {
        var c = LatencyCatchUp(target: 3)
        #expect(c.step(latency: 11, at: 0) == nil)
        #expect(c.step(latency: 11, at: 2) == .toEdge)
        // The new start takes a moment; still far behind: not again at once.
        #expect(c.step(latency: 11, at: 3) == nil && c.step(latency: 11, at: 5.5) == nil)
        #expect(c.step(latency: 3.2, at: 6) == nil)
        #expect(c.step(latency: 9, at: 13) == nil && c.step(latency: 9, at: 15) == .toEdge)
        // Speeding when the distance grows past what 5 % can make up: back to 1, then to the edge.
        var d = LatencyCatchUp(target: 3)
        _ = d.step(latency: 4, at: 0)
        #expect(d.step(latency: 4, at: 2) == .speed(LatencyCatchUp.rate))
        #expect(d.step(latency: 6, at: 3) == .speed(1))
        #expect(d.step(latency: 6, at: 4) == nil && d.step(latency: 6, at: 6) == .toEdge)
    }

    @Test("a start again at the edge keeps the ten seconds between two: the session's new catch-up remembers the last")
    func restartRemembered() {
        var s = SessionState(url: "http://origin.test/ll.m3u8")
        s.apply(.lowLatencyStarted(holdBack: 3), at: 0)
        #expect(s.catchUp?.step(latency: 11, at: 0) == nil && s.catchUp?.step(latency: 11, at: 2) == .toEdge)
        s.apply(.lowLatencyStarted(holdBack: 3), at: 3)
        #expect(s.catchUp?.step(latency: 11, at: 4) == nil && s.catchUp?.step(latency: 11, at: 6.5) == nil)
        #expect(s.catchUp?.step(latency: 11, at: 12.5) == .toEdge)
    }

    @Test("a playhead the user moved (a pause, a seek) is left where it is; a catch-up under way stops")
    func leftByUser() {
        var c = LatencyCatchUp(target: 3)
        _ = c.step(latency: 4, at: 0)
        #expect(c.step(latency: 4, at: 2) == .speed(LatencyCatchUp.rate))
        c.userMoved()
        #expect(c.step(latency: 20, at: 3) == .speed(1))
        #expect(c.step(latency: 20, at: 10) == nil && c.step(latency: 20, at: 30) == nil)
    }
}
