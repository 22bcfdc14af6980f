import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// The switch watcher's rules as a pure function: planned boundary reloads, fMP4 discontinuities and GAP runs, each once.
@Suite("The switch watcher decides from the state, the time and the player's end flag")
struct WatcherTests {
    /// An fMP4 rung whose timestamps restart at msn 3 (the player has fetched 0–2, first PTS 10, 12, 14).
    static func fmp4() -> SessionState {
        var s = Fixture.session()
        var t = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MAP:URI=\"init.mp4\"\n"
        for i in 0..<6 { t += (i == 3 ? "#EXT-X-DISCONTINUITY\n" : "") + "#EXTINF:2.0,\ns\(i).m4s\n" }
        t += "#EXT-X-ENDLIST\n"
        let m = Fixture.playlist(t).media!
        s.apply(
            .loader(.playlist(PlaylistEvent(url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil, playlist: m, received: 1))),
            at: 1)
        return s
    }

    @Test("a planned switch reloads at the end of the playhead's segment, from the next one, once")
    func plannedReload() {
        var s = Fixture.session()
        s.apply(.reloadPlanned(rung: 1), at: 1)
        #expect(s.watch(at: 11.0, atEnd: false) == nil, "mid-segment: it waits")
        #expect(s.watch(at: 11.97, atEnd: false) == .reloadForSwitch(rung: 1, msn: 1), "within reach of the boundary")
        #expect(s.plannedReload == nil && s.watch(at: 11.99, atEnd: false) == nil, "carried out once")
        // Cancelled before the boundary: nothing happens there.
        s.apply(.reloadPlanned(rung: 2), at: 2)
        s.apply(.reloadPlanned(rung: nil), at: 2.1)
        #expect(s.watch(at: 13.98, atEnd: false) == nil)
    }

    @Test("a look that comes late switches at the playhead at once, VOD or live; a boundary not known, at the next boundary")
    func lateLook() {
        // VOD: the boundary of msn 1 passed unseen (the playhead is 0.4 s into msn 1): reloaded there, sought to the playhead.
        var vod = Fixture.session()
        vod.apply(.reloadPlanned(rung: 3, boundary: 1), at: 1)
        #expect(vod.watch(at: 11.5, atEnd: false) == nil, "before the boundary: it waits")
        #expect(vod.watch(at: 12.4, atEnd: false) == .reloadForSwitchInPlace(rung: 3, msn: 1, boundary: 1))
        #expect(vod.plannedReload == nil && vod.watch(at: 13.99, atEnd: false) == nil, "carried out once")
        // Two boundaries missed: still at the playhead.
        var later = Fixture.session()
        later.apply(.reloadPlanned(rung: 3, boundary: 1), at: 1)
        #expect(later.watch(at: 14.1, atEnd: false) == .reloadForSwitchInPlace(rung: 3, msn: 2, boundary: 1))
        // Live the same (the seek is in mpv's fresh cache): not a segment later, where a loaded machine can miss it again.
        var live = Fixture.session(live: true)
        live.apply(.reloadPlanned(rung: 3, boundary: 1), at: 1)
        #expect(live.watch(at: 11.5, atEnd: false) == nil, "before the boundary: it waits")
        #expect(live.watch(at: 12.4, atEnd: false) == .reloadForSwitchInPlace(rung: 3, msn: 1, boundary: 1))
        // The boundary not known (the playhead was not when the switch was planned): the next boundary, never skipping the
        // playhead's segment.
        var unknown = Fixture.session()
        unknown.apply(.reloadPlanned(rung: 3), at: 1)
        #expect(unknown.watch(at: 12.4, atEnd: false) == nil)
        #expect(unknown.watch(at: 13.99, atEnd: false) == .reloadForSwitch(rung: 3, msn: 2))
    }

    @Test("a GAP run no rung fills is crossed at its boundary, or at once when the player stopped before it; once")
    func gap() {
        var s = Fixture.session()
        #expect(s.isUnfillableGap(4) && s.isUnfillableGap(5) && !s.isUnfillableGap(6))
        #expect(s.watch(at: 17.0, atEnd: false) == nil, "a second before the run")
        guard case .crossGap(let g) = s.watch(at: 17.97, atEnd: false) else {
            Issue.record("no crossing at the boundary")
            return
        }
        #expect(g.first == 4 && g.after == 6 && g.duration == 4)
        #expect(s.watch(at: 17.99, atEnd: true) == nil, "crossed once")
        var early = Fixture.session()
        guard case .crossGap(let e) = early.watch(at: 17.0, atEnd: true) else {
            Issue.record("a player stopped before the run is not moved past it")
            return
        }
        #expect(e.after == 6)
    }

    @Test(
        "fMP4: where timestamps restart the rung is reloaded from that segment, at the boundary or when the player stopped; TS is left alone"
    )
    func discontinuity() {
        var s = Self.fmp4()
        #expect(s.watch(at: 14.5, atEnd: false) == nil)
        #expect(s.watch(at: 15.98, atEnd: false) == .crossDiscontinuity(msn: 3))
        #expect(s.watch(at: 15.99, atEnd: true) == nil, "once")
        var stopped = Self.fmp4()
        #expect(stopped.watch(at: 15.2, atEnd: true) == .crossDiscontinuity(msn: 3))
        // The same discontinuity in a TS rung: FFmpeg plays through it, so nothing is decided.
        var ts = Fixture.session()
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for i in 0..<6 { t += (i == 3 ? "#EXT-X-DISCONTINUITY\n" : "") + "#EXTINF:2.0,\nseg\(i).ts\n" }
        ts.apply(
            .loader(
                .playlist(
                    PlaylistEvent(
                        url: "http://origin.test/v360/index.m3u8", rung: 0, rendition: nil,
                        playlist: Fixture.playlist(t + "#EXT-X-ENDLIST\n").media!, received: 1))), at: 1)
        #expect(ts.watch(at: 15.98, atEnd: false) == nil)
    }
}
