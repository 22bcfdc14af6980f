import HLS
import Testing

@testable import Session

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
}
