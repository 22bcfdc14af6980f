import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// The audio rendition choice as pure functions: which rendition a choice picks in a group, how a person's switch is carried
/// out, and what each stream given to the player says changed (docs/RENDITIONS.md).
@Suite("Audio renditions: the choice, the switch, what plays")
struct AudioTests {
    /// Rungs 0 and 1 share group "aac" (English in the variant, Deutsch, English audio description); rung 2's group "hi" has
    /// English only.
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de-DE",AUTOSELECT=YES,CHANNELS="6",URI="de/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English AD",LANGUAGE="en",CHANNELS="2",URI="ad/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="hi",NAME="English",LANGUAGE="en",DEFAULT=YES,CHANNELS="2",URI="hi-en/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aac"
        v360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",AUDIO="hi"
        v1080/index.m3u8

        """

    /// Fixture.media without its GAP segments (`liveWithGaps` keeps them).
    static func media(live: Bool) -> String {
        Fixture.media(live: live).split(separator: "\n").filter { $0 != "#EXT-X-GAP" }.joined(separator: "\n") + "\n"
    }

    /// `gaps`: the playlist keeps Fixture.media's GAP segments (4 and 5).
    static func session(live: Bool = false, audio: String? = nil, gaps: Bool = false) -> SessionState {
        Fixture.started(multivariant, media: gaps ? Fixture.media(live: live) : Self.media(live: live), audio: audio)
    }

    static var group: [Rendition] { AudioRenditions.group("aac", in: Ladder(Fixture.playlist(multivariant)).renditions) }

    @Test("a choice picks by NAME, then by LANGUAGE (exact, then the primary subtag); none, or nothing matching: the DEFAULT")
    func pick() {
        let g = Self.group
        func picked(_ q: String?) -> (String?, Bool?) {
            let p = AudioRenditions.pick(q.map { AudioPreference(query: $0) }, in: g)
            return (p?.rendition.name, p?.honoured)
        }
        #expect(picked(nil) == ("English", true))
        #expect(picked("English AD") == ("English AD", true), "by NAME, before the LANGUAGE English AD shares")
        #expect(picked("english ad") == ("English AD", true), "NAMEs compared ignoring case")
        #expect(picked("de-DE") == ("Deutsch", true))
        #expect(picked("de") == ("Deutsch", true), "the primary subtag names de-DE")
        #expect(picked("en") == ("English", true), "the first of the language, in playlist order")
        #expect(picked("fr") == ("English", false), "nothing in French: the DEFAULT, and the choice not honoured")
        #expect(AudioRenditions.pick(nil, in: []) == nil)
    }

    @Test("next goes through the group in playlist order and wraps; a name not in the group moves nothing")
    func next() {
        let g = Self.group
        #expect(AudioRenditions.target(.next, from: g[0], in: g)?.name == "Deutsch")
        #expect(AudioRenditions.target(.next, from: g[2], in: g)?.name == "English", "after the last, the first")
        #expect(AudioRenditions.target(.next, from: nil, in: g)?.name == "English")
        #expect(AudioRenditions.target(.named("Deutsch"), from: g[0], in: g)?.name == "Deutsch")
        #expect(AudioRenditions.target(.named("Klingon"), from: g[0], in: g) == nil)
        #expect(AudioRenditions.label(g[1]) == "Deutsch [de-DE] 6ch")
    }

    @Test("--audio at start: the first stream carries the choice, and says so once")
    func start() {
        var s = Self.session(audio: "de")
        #expect(s.playingAudio?.name == "Deutsch")
        // The same rung given again (a seek by reload): nothing changed, nothing said.
        #expect(s.apply(.audioGiven(rung: 0), at: 2).isEmpty)
        let plain = Self.session()
        #expect(plain.playingAudio?.name == "English")
    }

    @Test("a switch on VOD: reload at the playhead's segment and seek to it; the next stream given is the manual change")
    func vodSwitch() throws {
        var s = Self.session()
        let plan = s.planAudio(.next, look: PlayerLook(time: 12.5), at: 1)
        #expect(plan.effects == reloadSteps(rung: 0, msn: 1, to: .raw(12.5), at: 1))
        #expect(s.audioChoice?.name == "Deutsch" && s.playingAudio?.name == "English", "chosen now, playing once given")
        let facts = s.apply(.audioGiven(rung: 0), at: 1.1)
        guard case .audio(let c)? = facts.first else {
            Issue.record("no audio change: \(facts)")
            return
        }
        #expect(c.from?.name == "English" && c.to.name == "Deutsch" && c.reason == .manual && c.mechanism == .reloadSeek && c.atMSN == 1)
        #expect(s.playingAudio?.name == "Deutsch")
        // The rendition already playing: no reload.
        #expect(s.planAudio(.named("Deutsch"), look: PlayerLook(time: 13), at: 2).effects.isEmpty)
    }

    @Test("a switch live: at the next boundary, by the watcher; a rung switch waiting there keeps its rung")
    func liveSwitch() {
        var s = Self.session(live: true)
        #expect(s.planAudio(.named("de"), look: PlayerLook(time: 12.5), at: 1).effects.isEmpty)
        #expect(s.plannedReload == PlannedReload(rung: 0, boundary: 2))
        #expect(s.watch(at: 13.98, atEnd: false) == .reloadForSwitch(rung: 0, msn: 2))
        // A rung switch already planned: the audio rides on it.
        var r = Self.session(live: true)
        r.apply(.reloadPlanned(rung: 1, boundary: 2), at: 1)
        _ = r.planAudio(.next, look: PlayerLook(time: 12.5), at: 1.1)
        #expect(r.plannedReload == PlannedReload(rung: 1, boundary: 2))
    }

    @Test("a rung switch keeps the choice; a group without it plays its DEFAULT and says so, the choice kept for later")
    func followsRungs() throws {
        var s = Self.session(audio: "Deutsch")
        #expect(s.apply(.audioGiven(rung: 1), at: 2).isEmpty, "rung 1 shares the group: Deutsch still plays")
        let facts = s.apply(.audioGiven(rung: 2), at: 3)
        guard case .audio(let c)? = facts.first else {
            Issue.record("no audio change: \(facts)")
            return
        }
        #expect(c.reason == .variant && !c.honoured && c.to.groupID == "hi" && c.to.name == "English")
        #expect(s.log.last?.text.contains("has no Deutsch") == true, "\(s.log.last?.text ?? "")")
        let back = s.apply(.audioGiven(rung: 0), at: 4)
        #expect(back.count == 1 && s.playingAudio?.name == "Deutsch", "back in a group that has it: Deutsch again")
    }

    @Test("a live stream with GAP segments switches as any other: the rung reloaded from the next boundary with the new audio")
    func liveWithGaps() {
        var s = Self.session(live: true, gaps: true)
        #expect(s.planAudio(.next, look: PlayerLook(time: 12.5), at: 1).effects.isEmpty)
        #expect(s.plannedReload?.rung == 0 && s.plannedReload?.boundary != nil, "\(String(describing: s.plannedReload))")
        #expect(s.audioChoice?.name == "Deutsch")
    }

    @Test("a variant with one rendition, or none: nothing to switch, said once per press")
    func nothingToSwitch() {
        var s = Self.session()
        s.apply(.switched(VariantSwitch(t: 1, from: 0, to: 2, reason: .manual, mechanism: .reloadBoundary)), at: 1)
        s.apply(.audioGiven(rung: 2), at: 1)
        #expect(s.planAudio(.next, look: PlayerLook(time: 12), at: 2).effects.isEmpty)
        #expect(s.log.last?.text == "audio: this variant's group offers one rendition")
        #expect(s.planAudio(.named("Klingon"), look: PlayerLook(time: 12), at: 3).effects.isEmpty)
    }

    @Test("scripts: audio next, audio NAME with spaces, and back to words")
    func script() {
        #expect(Action.parse(["audio", "next"]) == .audio(.next))
        #expect(Action.parse(["audio", "English", "AD"]) == .audio(.named("English AD")))
        #expect(Action.parse(["audio"]) == nil)
        #expect(Action.audio(.named("English AD")).words() == "audio English AD")
        #expect(Action.parse(Action.audio(.next).words().split(separator: " ")) == .audio(.next))
    }
}
