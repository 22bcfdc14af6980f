import Foundation
import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// Sync's clock read from the Session and the player's flags, without a player.
@Suite("The moment at the playhead: its PDT, whether it advances, whether it waits for data")
struct PlayheadMomentTests {
    @Test("playing at raw 15 (1 s into segment 2) is 00:00:05; paused, rebuffering or loading, no reading moves")
    func moment() throws {
        let s = EffectsTests.session(live: true)
        let playing = s.moment(ClockLook(audioPts: 15))
        #expect(playing.pdt == DateTime(iso8601: "2026-01-01T00:00:05.000Z") && playing.playing && !playing.stalled)
        #expect(playing.hasPDT == true && playing.window?.live == true)
        #expect(s.moment(ClockLook(audioPts: nil, timePos: 15)).pdt == playing.pdt, "time-pos when audio-pts is unknown")
        #expect(!s.moment(ClockLook(paused: true, audioPts: 15)).playing)
        let waiting = s.moment(ClockLook(pausedForCache: true, audioPts: 15))
        #expect(!waiting.playing && waiting.stalled, "rebuffering: not a pause of the user's or of sync's")
        #expect(!s.moment(ClockLook(coreIdle: true, audioPts: 15)).playing, "idle before the end: not advancing")
        #expect(s.moment(ClockLook(eofReached: true, coreIdle: true, audioPts: 15)).playing, "idle at the end is the end, not a pause")
        #expect(s.moment(ClockLook(audioPts: 5)).pdt == nil, "before every known segment: no moment")
        var loading = s
        _ = loading.reduce(.event(.streamGiven(startMSN: 2)), at: 1)
        let reloading = loading.moment(ClockLook(audioPts: 15))
        #expect(reloading.pdt == nil && !reloading.playing && !reloading.stalled)
    }

    @Test("a pane started at the low-latency edge may be moved PART-HOLD-BACK near its edge, also once sync has its speed")
    func lowLatencyWindow() throws {
        var s = EffectsTests.session(live: true)
        let plain = try #require(s.moment(ClockLook(audioPts: 15)).window)
        #expect(plain.holdBack == nil && plain.edgeMargin == 2 * plain.targetDuration && plain.publishStep == plain.targetDuration)
        _ = s.apply(.lowLatencyStarted(holdBack: 1.002), at: 1)
        _ = s.apply(.speedGiven, at: 2)
        let ll = try #require(s.moment(ClockLook(audioPts: 15)).window)
        #expect(ll.holdBack == 1.002 && ll.edgeMargin == 1.002, "\(ll)")
        #expect(ll.publishStep == ll.targetDuration, "no PART-TARGET in this playlist: the end moves a segment at a time")
        var parts = ll
        parts.partTarget = 0.334
        #expect(parts.publishStep == 0.334)
    }

    @Test(
        "the live edge is the furthest the pane's playlists reach: another rung read later, a segment after a discontinuity without a PDT")
    func edge() throws {
        var s = EffectsTests.session(live: true)
        let own = try #require(s.moment(ClockLook(audioPts: 15)).window)
        #expect(own.edge == own.end && own.end == DateTime(iso8601: "2026-01-01T00:00:20.000Z"))
        // Rung 1's playlist, read since, lists two segments more: the edge is there; the window (moves) stays the playing rung's.
        let later = Fixture.playlist(
            Fixture.media(live: true, sequence: 2).replacingOccurrences(of: "T00:00:00.000Z", with: "T00:00:04.000Z")
        ).media!
        _ = s.apply(
            .loader(
                .playlist(PlaylistEvent(url: "http://origin.test/v720/index.m3u8", rung: 1, rendition: nil, playlist: later, received: 1))),
            at: 1)
        let w = try #require(s.moment(ClockLook(audioPts: 15)).window)
        #expect(w.end == own.end && w.edge == DateTime(iso8601: "2026-01-01T00:00:24.000Z"), "\(w)")
        // A segment listed after a discontinuity, no PDT: the window ends before it, the edge after it.
        let text = Fixture.media(live: true) + "#EXT-X-DISCONTINUITY\n#EXTINF:2.0,\nnext.ts\n"
        let undated = try #require(SessionState.window(Fixture.playlist(text).media!))
        #expect(undated.end == own.end && undated.edge == own.end.adding(seconds: 2), "\(undated)")
    }
}
