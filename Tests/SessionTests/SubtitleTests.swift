import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// The subtitles as pure functions of the session: which rendition shows, what is read of it and when, and the cue at the
/// playhead on the player's clock (docs/SUBTITLES.md).
@Suite("Subtitles: the choice, the reads, the cue at the playhead")
struct SubtitleTests {
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="subs-en/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",DEFAULT=YES,AUTOSELECT=YES,URI="subs-fr/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",SUBTITLES="subs"
        v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",SUBTITLES="subs"
        v360/index.m3u8

        """

    /// A subtitle playlist on the video's cadence: ten 2 s segments from `sequence`, PDT as the video's.
    static func subtitlePlaylist(live: Bool = false, sequence: Int = 0) -> MediaPlaylist {
        var s = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
        if !live { s += "#EXT-X-PLAYLIST-TYPE:VOD\n" }
        s += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for i in 0..<10 { s += "#EXTINF:2.0,\ncue\(sequence + i).vtt\n" }
        if !live { s += "#EXT-X-ENDLIST\n" }
        return Fixture.playlist(s).media!
    }

    /// One cue per segment, local times 2 s apart, mapped so local 0 is media time 10 s (segment 0's first PTS in the fixture).
    static func vtt(_ n: Int, text: String? = nil) -> String {
        func ts(_ s: Int) -> String { "00:00:\(s < 10 ? "0" : "")\(s).000" }
        return "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n\(ts(2 * n)) --> \(ts(2 * n + 2))\n\(text ?? "cue \(n)")\n"
    }

    static func session(subs: String? = nil) -> SessionState {
        Fixture.started(multivariant, media: AudioTests.media(live: false), subs: subs)
    }

    /// A session whose subtitle playlist (VOD) was asked for and read.
    static func reading() -> SessionState {
        var s = session()
        _ = s.subtitleReads(at: 0.3)
        _ = readPlaylist(&s, at: 0.4)
        return s
    }

    /// Answers the playlist read the session asked for, then returns the segment reads that follow.
    static func readPlaylist(_ s: inout SessionState, at t: Double, live: Bool = false) -> [Int] {
        s.apply(
            .subtitleRead(
                .playlist(uri: s.subtitles!.rendition.uri!), url: "http://origin.test/subs-fr/index.m3u8",
                result: .success(.playlist(subtitlePlaylist(live: live)))), at: t)
        return segmentReads(s.subtitleReads(at: t))
    }

    static func segmentReads(_ effects: [PaneEffect]) -> [Int] {
        effects.compactMap { e in
            if case .readSubtitles(.segment(let msn, _, _, _)) = e { return msn }
            return nil
        }
    }

    @discardableResult
    static func answer(_ s: inout SessionState, _ msn: Int, _ text: String? = nil, failure: String? = nil, at t: Double) -> [SessionFact] {
        let read = SubtitleRead.segment(msn: msn, uri: "cue\(msn).vtt", base: "http://origin.test/subs-fr/index.m3u8", range: nil)
        let result: Result<SubtitleAnswer, SubtitleReadFailure> =
            failure.map { .failure(SubtitleReadFailure(cause: $0)) } ?? .success(.text(text ?? vtt(msn)))
        return s.apply(.subtitleRead(read, url: "http://origin.test/subs-fr/cue\(msn).vtt", result: result), at: t)
    }

    @Test("no choice: the group's DEFAULT; --subs picks by NAME or LANGUAGE, off turns them off; nothing matching is said, off")
    func choice() {
        #expect(Self.session().subtitles?.rendition.name == "Français", "DEFAULT=YES, RFC 8216bis §4.4.6.1")
        #expect(Self.session(subs: "en").subtitles?.rendition.name == "English")
        #expect(Self.session(subs: "English").subtitles?.rendition.name == "English")
        #expect(Self.session(subs: "off").subtitles == nil)
        let none = Self.session(subs: "de")
        #expect(none.subtitles == nil)
        #expect(none.log.contains { $0.level == .warn && $0.text.contains("nothing --subs names") })
    }

    @Test("the opening says which rendition shows, once, as a rendition fact")
    func openedFact() {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        let facts = s.apply(.opened(url: s.url, playlist: Fixture.playlist(Self.multivariant), diagnostics: []), at: 0)
        #expect(facts.count == 1)
        guard case .subtitleRendition(let c)? = facts.first else {
            Issue.record("no rendition fact: \(facts)")
            return
        }
        #expect(c.to?.name == "Français" && c.reason == .start && c.honoured)
        #expect(s.apply(.audioGiven(rung: 0), at: 0.1).isEmpty, "the stream given plays the same group: nothing changes")
    }

    @Test("a FORCED=YES rendition is labelled forced")
    func forced() {
        let mv = Self.multivariant.replacing("NAME=\"English\",LANGUAGE=\"en\",", with: "NAME=\"English\",LANGUAGE=\"en\",FORCED=YES,")
        let r = Ladder(Fixture.playlist(mv)).renditions.first { $0.name == "English" }
        #expect(r.map(AudioRenditions.label) == "English [en] forced")
    }

    @Test("S goes through the group and then off; a name picks; off stops reading")
    func select() {
        var s = Self.session(subs: "off")
        #expect(s.subtitles == nil)
        _ = s.planSubtitles(.next, at: 1)
        #expect(s.subtitles?.rendition.name == "English")
        _ = s.planSubtitles(.next, at: 2)
        #expect(s.subtitles?.rendition.name == "Français")
        let off = s.planSubtitles(.next, at: 3)
        #expect(s.subtitles == nil)
        #expect(off.facts.contains { if case .subtitleRendition(let c) = $0 { c.to == nil && c.reason == .manual } else { false } })
        _ = s.planSubtitles(.named("en"), at: 4)
        #expect(s.subtitles?.rendition.name == "English")
        _ = s.planSubtitles(.named("ja"), at: 5)
        #expect(s.subtitles?.rendition.name == "English", "a name in no rendition moves nothing")
        #expect(s.log.last?.text.contains("no rendition named ja") == true)
        _ = s.planSubtitles(.off, at: 6)
        #expect(s.subtitleReads(at: 7).isEmpty)
    }

    @Test("VOD: the playlist first, then the segments from the playhead on, four at a time, each once")
    func reads() {
        // The playlist is asked for as the stream opens, beside the player's first reads.
        var opening = SessionState(url: "http://origin.test/master.m3u8")
        let opened = opening.reduce(
            .event(.opened(url: opening.url, playlist: Fixture.playlist(Self.multivariant), diagnostics: [])), at: 0)
        #expect(opened.effects == [.readSubtitles(.playlist(uri: "subs-fr/index.m3u8"))])
        var s = Self.session()
        #expect(s.subtitleReads(at: 0.6).isEmpty, "one playlist read at a time: the one asked for at the opening")
        #expect(Self.readPlaylist(&s, at: 0.7) == [0, 1, 2, 3], "four at once, from the start")
        #expect(s.subtitleReads(at: 1.0).isEmpty, "all four still in flight")
        Self.answer(&s, 0, at: 1.1)
        Self.answer(&s, 1, at: 1.1)
        #expect(Self.segmentReads(s.subtitleReads(at: 1.2)) == [4, 5])
        #expect(!Self.segmentReads(s.subtitleReads(at: 9)).contains(0), "a segment read is not read again")
        #expect(s.subtitleReads(at: 30).isEmpty, "a VOD playlist is not read again")
    }

    @Test("the cue at the playhead on the player's clock: shown at its start, gone at its end, said once each")
    func cueAtPlayhead() {
        var s = Self.reading()
        Self.answer(&s, 0, at: 0.5)
        #expect(s.followSubtitles(time: 9.9, at: 0.5).isEmpty, "before the cue: nothing to show, nothing changed")
        let shown = s.followSubtitles(time: 10.0, at: 0.6)
        guard case .subtitle(let c)? = shown.first else {
            Issue.record("no cue shown: \(shown)")
            return
        }
        #expect(c.lines == ["cue 0"] && c.start == 10 && c.end == 12 && c.at == 10)
        #expect(s.followSubtitles(time: 11.9, at: 2.5).isEmpty, "the same cue: no new fact")
        guard case .subtitle(let gone)? = s.followSubtitles(time: 12.0, at: 2.6).first else {
            Issue.record("the cue did not end")
            return
        }
        #expect(gone.lines.isEmpty, "segment 1 not read yet: nothing shown")
        Self.answer(&s, 1, at: 2.7)
        #expect(s.followSubtitles(time: 12.1, at: 2.7).count == 1, "segment 1's cue once it is read")
        #expect(s.subtitles?.shown.first?.lines == ["cue 1"])
    }

    @Test("IMSC1: the TTML documents of a segment, timed on the media timeline; a segment without one is said")
    func imsc() {
        var s = Self.reading()
        let read = SubtitleRead.segment(msn: 0, uri: "cue0.m4s", base: "http://origin.test/subs-fr/index.m3u8", range: nil)
        let ttml = #"<tt xmlns="http://www.w3.org/ns/ttml"><body><div><p begin="10s" end="12s">imsc</p></div></body></tt>"#
        s.apply(.subtitleRead(read, url: "http://origin.test/subs-fr/cue0.m4s", result: .success(.documents([ttml]))), at: 0.5)
        _ = s.followSubtitles(time: 10.5, at: 0.6)
        #expect(s.subtitles?.shown.first?.lines == ["imsc"])
        #expect(s.log.allSatisfy { !$0.text.contains("X-TIMESTAMP-MAP") }, "no WebVTT rule for IMSC1")
        let empty = SubtitleRead.segment(msn: 1, uri: "cue1.m4s", base: "http://origin.test/subs-fr/index.m3u8", range: nil)
        s.apply(.subtitleRead(empty, url: "http://origin.test/subs-fr/cue1.m4s", result: .success(.documents([]))), at: 0.7)
        #expect(s.log.last?.text.contains("no TTML document") == true, "\(s.log.last?.text ?? "")")
    }

    @Test("a cue written in two segments (it spans their edge) is shown once")
    func spanningCue() {
        var s = Self.reading()
        let spanning = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n00:00:01.000 --> 00:00:03.000\nacross\n"
        Self.answer(&s, 0, spanning, at: 0.5)
        Self.answer(&s, 1, spanning, at: 0.5)
        _ = s.followSubtitles(time: 11.5, at: 0.6)
        #expect(s.subtitles?.shown.map(\.lines) == [["across"]])
    }

    @Test("a timeline restarted in the window: the cue of the playhead's discontinuity sequence, not the other at the same time")
    func discontinuity() {
        var t = SubtitleTrack(rendition: Self.session().subtitles!.rendition)
        t.add([SubtitleCue(start: 1, end: 3, lines: ["before the reset"], msn: 4, dsn: 0)], msn: 4)
        t.add([SubtitleCue(start: 1, end: 3, lines: ["after the reset"], msn: 14, dsn: 1)], msn: 14)
        #expect(t.active(at: 2, dsn: 1).map(\.lines) == [["after the reset"]])
        #expect(t.active(at: 2, dsn: 0).map(\.lines) == [["before the reset"]])
        #expect(t.active(at: 2, dsn: 7).count == 2, "a sequence the subtitles never name: all that run then")
    }

    @Test("a read that comes back after the choice changed belongs to the rendition before: not shown")
    func staleRead() {
        var s = Self.reading()
        _ = s.planSubtitles(.named("English"), at: 0.5)
        Self.answer(&s, 0, at: 0.6) // read for Français, from its playlist
        _ = s.followSubtitles(time: 10.5, at: 0.7)
        #expect(s.subtitles?.rendition.name == "English" && s.subtitles?.cues.isEmpty == true)
    }

    @Test("a failed segment is said, tried again after a pause, and given up after three failures")
    func failures() {
        var s = Self.reading()
        Self.answer(&s, 0, failure: "HTTP 404", at: 0.5)
        #expect(s.log.last?.text == "subtitles: segment 0 of Français [fr] failed: HTTP 404")
        for msn in 1...3 { Self.answer(&s, msn, at: 0.5) }
        let next = Self.segmentReads(s.subtitleReads(at: 1.0))
        #expect(next == [4, 5, 6, 7], "not again at once: the segments after it meanwhile")
        for msn in next { Self.answer(&s, msn, at: 1.1) }
        #expect(Self.segmentReads(s.subtitleReads(at: 2.6)).contains(0), "again after two seconds")
        Self.answer(&s, 0, failure: "HTTP 404", at: 2.7)
        _ = s.subtitleReads(at: 4.8)
        Self.answer(&s, 0, failure: "HTTP 404", at: 4.9)
        #expect(s.log.last?.text.contains("three times, given up") == true)
        #expect(!Self.segmentReads(s.subtitleReads(at: 20)).contains(0))
    }

    @Test("a segment without X-TIMESTAMP-MAP is said once, and read as cue time 0 = media time 0")
    func noMap() {
        var s = Self.reading()
        Self.answer(&s, 0, "WEBVTT\n\n00:00:10.000 --> 00:00:11.000\nunmapped\n", at: 0.5)
        Self.answer(&s, 1, "WEBVTT\n\n00:00:12.000 --> 00:00:13.000\nunmapped too\n", at: 0.5)
        #expect(s.log.filter { $0.text.contains("no X-TIMESTAMP-MAP") }.count == 1)
        _ = s.followSubtitles(time: 10.5, at: 0.6)
        #expect(s.subtitles?.shown.first?.lines == ["unmapped"])
    }

    @Test("the rules: a segment without WEBVTT, one without X-TIMESTAMP-MAP, each said once as a violation of §3.1.4")
    func rules() {
        var s = Self.reading()
        let rules = { (facts: [SessionFact]) in
            facts.compactMap { f -> String? in if case .violation(_, _, let v) = f { v.rule.rawValue } else { nil } }
        }
        #expect(rules(Self.answer(&s, 0, Self.vtt(0), at: 0.5)).isEmpty, "a clean segment")
        #expect(
            rules(Self.answer(&s, 1, "00:00:02.000 --> 00:00:04.000\nno header\n", at: 0.5)) == ["webvtt-header", "webvtt-timestamp-map"])
        #expect(rules(Self.answer(&s, 2, "WEBVTT\n\n00:00:04.000 --> 00:00:06.000\nno map\n", at: 0.5)).isEmpty, "each rule said once")
        #expect(s.violationCount == 2)
    }

    @Test("cues the map puts away from the media they belong to: webvtt-off-media, once the video there is measured; not when in place")
    func offMedia() {
        var s = Self.reading()
        // Segment 0's media starts at 10 s (its first PTS); segment 1's map says 20 s + its local 2 s: 10 s after the video.
        Self.answer(&s, 0, at: 0.5)
        Self.answer(&s, 1, "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:1800000,LOCAL:00:00:00.000\n\n00:00:02.000 --> 00:00:04.000\nlate\n", at: 0.5)
        let facts = s.checkSubtitleTiming(at: 0.6)
        #expect(facts.count == 1)
        guard case .violation(nil, let rendition, let f)? = facts.first else {
            Issue.record("\(facts)")
            return
        }
        #expect(rendition == "SUBTITLES subs/Français" && f.rule == .webvttOffMedia && f.msn == 1 && f.severity == .error)
        #expect(f.message.contains("10.0 s after"), "\(f.message)")
        // Segment 8's video is not measured yet: the check waits (and is dropped after 30 s).
        Self.answer(&s, 8, "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:00:16.000 --> 00:00:18.000\nwaits\n", at: 0.7)
        #expect(s.checkSubtitleTiming(at: 0.8).isEmpty && s.subtitles?.timingChecks.count == 1)
        #expect(s.checkSubtitleTiming(at: 31).isEmpty && s.subtitles?.timingChecks.isEmpty == true)
    }

    @Test("an MPEG-2 timestamp that wrapped while the player's clock ran on: the cue lands on the turn nearest the playhead")
    func wrap() {
        var s = Self.session()
        var sample = PlayerSample()
        sample.timePos = WebVTT.wrapSeconds + 10
        s.apply(.sample(sample), at: 0.35)
        _ = s.subtitleReads(at: 0.3)
        _ = Self.readPlaylist(&s, at: 0.4)
        Self.answer(&s, 0, at: 0.5)
        let start = s.subtitles?.cues.first?.start ?? 0
        #expect(abs(start - (WebVTT.wrapSeconds + 10)) < 0.001)
    }

    @Test("live: the playlist again every target duration; the segments near the playhead's by MSN or PDT")
    func live() {
        var s = Self.session()
        _ = s.subtitleReads(at: 0.3)
        let reads = Self.readPlaylist(&s, at: 0.4, live: true)
        #expect(reads == [0, 1, 2, 3], "PDT: the subtitle segments from the playhead's moment on")
        #expect(s.subtitleReads(at: 1.0).isEmpty)
        #expect(s.subtitleReads(at: 2.41).contains(.readSubtitles(.playlist(uri: "subs-fr/index.m3u8"))), "a target duration later")
    }
}
