import HLS
import Testing

@testable import Session

/// Where the player stands, the audio chosen and the subtitles shown, each through its own transitions.
@Suite struct PlaybackStateTests {
    @Test("a stream given loads from its segment until the player restarts; the first restart is the first frame, once")
    func playback() {
        var p = Playback()
        p.given(start: 7, at: 1)
        p.loading(from: StreamPoint(msn: 6, offset: 1.5))
        #expect(p.loading && p.lastGiven == 1 && p.givenStart == 7 && p.loadingPoint == StreamPoint(msn: 6, offset: 1.5))
        let first = p.restarted(at: 1.4)
        #expect(first && p.started && p.firstFrameAt == 1.4)
        #expect(!p.loading && p.loadingPoint == nil)
        p.given(start: nil, at: 3)
        let again = p.restarted(at: 3.2)
        #expect(!again, "a reload's restart is not a first frame")
        #expect(p.firstFrameAt == 1.4)
        let paused = p.togglePause()
        #expect(paused && p.userPaused)
        let played = p.togglePause()
        #expect(!played && !p.userPaused)
        p.failed("playback failed: HTTP 404")
        p.reachedEnd()
        #expect(p.error == "playback failed: HTTP 404" && p.ended)
    }

    @Test("the session's events move it: the stream given, the restart, the end of file, a failure")
    func throughEvents() {
        var s = SessionState(url: "http://origin.test/index.m3u8")
        s.apply(.streamGiven(startMSN: 3), at: 1)
        #expect(s.playerLoading && s.givenStart == 3 && s.lastGiven == 1)
        let first = s.apply(.playbackStarted, at: 2)
        #expect(first == [.firstFrame(2)] && s.started && !s.playerLoading)
        let again = s.apply(.playbackStarted, at: 3)
        #expect(again.isEmpty)
        let end = s.apply(.fileEnded(reason: .eof, error: nil), at: 9)
        #expect(end == [.ended] && s.ended)
        _ = s.apply(.failed(message: "the player refused the stream", cause: "mpv"), at: 10)
        #expect(s.error == "the player refused the stream")
    }

    @Test("audio: the choice by NAME and LANGUAGE; what plays follows each stream given; a person's switch is carried once")
    func audio() {
        let en = Rendition(type: "AUDIO", groupID: "aac", language: "en", name: "English", isDefault: true, autoselect: true, forced: false)
        let de = Rendition(
            type: "AUDIO", groupID: "aac", language: "de", name: "Deutsch", isDefault: false, autoselect: true, forced: false)
        var a = AudioChoice(query: "de")
        #expect(a.preference?.query == "de" && a.playing == nil)
        let start = a.given(AudioPick(rendition: de, honoured: true))
        #expect(start != nil && start?.before == nil)
        #expect(a.playing == de)
        a.choose(en)
        a.ask(AudioChange(t: 4, to: en, reason: .manual, honoured: true, mechanism: .reloadSeek, atMSN: 2))
        let given = a.given(AudioPick(rendition: en, honoured: true))
        #expect(given?.before == de && given?.asked?.atMSN == 2 && a.playing == en)
        #expect(a.preference == AudioPreference(name: "English", language: "en"))
        let next = a.given(AudioPick(rendition: en, honoured: true))
        #expect(next != nil && next?.asked == nil, "carried once")
        let none = a.given(nil)
        #expect(none == nil && a.playing == nil, "a variant without a group: nothing plays")
    }

    @Test("subtitles: the choice, the track shown afresh, the first stream given once, the captions' switch and find")
    func subtitles() {
        let fr = Rendition(
            type: "SUBTITLES", uri: "subs-fr/index.m3u8", groupID: "subs", language: "fr", name: "Français", isDefault: false,
            autoselect: true,
            forced: false)
        var s = SubtitleShowing(query: "fr")
        let first = s.given(), second = s.given()
        #expect(first && !second, "the first stream given, once")
        s.show(fr)
        #expect(s.track?.rendition == fr)
        var track = s.track!
        track.plannedAt = 3
        s.keep(track)
        #expect(s.track?.plannedAt == 3)
        s.show(fr)
        #expect(s.track?.plannedAt == nil, "shown afresh: read again")
        s.choose(.off)
        s.show(nil)
        #expect(s.track == nil)
        let on = s.captions(true), still = s.captions(true)
        #expect(on && !still && s.captionsOn)
        let off = s.captions(false)
        #expect(off && !s.captionsOn)
        s.foundCaptions()
        #expect(s.captionsFound)
    }
}
