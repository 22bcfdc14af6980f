import Foundation
import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// Captions in the video as pure functions of the session: chosen as subtitles are, the player told to show them, and what it
/// shows read into the cue line (docs/SUBTITLES.md, "Closed captions").
@Suite("Closed captions: the choice, the player told, the caption shown")
struct ClosedCaptionTests {
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="subs-en/index.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English CC",LANGUAGE="en",AUTOSELECT=YES,INSTREAM-ID="CC1"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="Español CC",LANGUAGE="es",INSTREAM-ID="CC3"
        #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=256x144,CODECS="avc1.4d401e,mp4a.40.2",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        v144/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",SUBTITLES="subs",CLOSED-CAPTIONS=NONE
        v360/index.m3u8

        """

    static func session(subs: String? = nil) -> SessionState {
        Fixture.started(multivariant, media: AudioTests.media(live: false), subs: subs)
    }

    /// One look of the watcher at raw time `time` with the player showing `captions`.
    static func watch(_ s: inout SessionState, _ time: Double, captions: String?, at t: Double) -> PanePlan {
        s.reduce(.watch(PlayerLook(time: time, captions: captions)), at: t)
    }

    static func shown(_ plan: PanePlan) -> [SubtitleShown] {
        plan.facts.compactMap { if case .subtitle(let c) = $0 { c } else { nil } }
    }

    @Test("the choices are the SUBTITLES group, then the variant's CLOSED-CAPTIONS group; NONE has none")
    func group() {
        let s = Self.session()
        #expect(s.subtitleGroup(rung: 0).map(\.name) == ["English", "English CC", "Español CC"])
        #expect(s.subtitleGroup(rung: 1).map(\.name) == ["English"], "CLOSED-CAPTIONS=NONE: no captions")
    }

    @Test("--subs names a CC1 rendition: the player is told once, and what it shows becomes the cue line")
    func shownFromThePlayer() throws {
        var s = Self.session(subs: "English CC")
        #expect(s.subtitles?.rendition.instreamID == "CC1")
        let first = Self.watch(&s, 10.0, captions: nil, at: 1.0)
        #expect(first.effects.contains(.closedCaptions(true)))
        #expect(Self.shown(first).isEmpty, "the captions track not there yet: nothing shown")
        #expect(!Self.watch(&s, 10.1, captions: "", at: 1.1).effects.contains(.closedCaptions(true)), "told once")
        let appear = try #require(Self.shown(Self.watch(&s, 10.5, captions: "  CC1 segment 0 \n", at: 1.5)).first)
        #expect(appear.lines == ["CC1 segment 0"])
        #expect(appear.at == 10.5)
        #expect(appear.start == nil && appear.end == nil, "the player gives no cue times for captions")
        #expect(Self.shown(Self.watch(&s, 10.6, captions: "CC1 segment 0", at: 1.6)).isEmpty, "the same caption: no new fact")
        let gone = try #require(Self.shown(Self.watch(&s, 11.5, captions: "", at: 2.5)).first)
        #expect(gone.lines.isEmpty)
    }

    @Test("S moves from the WebVTT rendition to the captions and on to off: the player is told to stop")
    func cycle() {
        var s = Self.session(subs: "English")
        _ = Self.watch(&s, 10.0, captions: nil, at: 1.0)
        _ = s.reduce(.action(.subtitles(.next), PlayerLook(time: 10.0)), at: 1.1)
        #expect(s.subtitles?.rendition.name == "English CC")
        #expect(Self.watch(&s, 10.2, captions: nil, at: 1.2).effects.contains(.closedCaptions(true)))
        _ = s.reduce(.action(.subtitles(.next), PlayerLook(time: 10.2)), at: 1.3)
        #expect(s.subtitles?.rendition.name == "Español CC")
        #expect(Self.watch(&s, 10.4, captions: "CC1 words", at: 1.4).effects.contains(.closedCaptions(false)), "CC3 is not decoded")
        #expect(s.log.contains { $0.text.contains("Español CC") && $0.text.contains("CC1 only") })
        _ = s.reduce(.action(.subtitles(.next), PlayerLook(time: 10.4)), at: 1.5)
        #expect(s.subtitles == nil)
    }

    @Test("a CC3 rendition is listed and chosen, but never shows the player's CC1 words under its name")
    func otherChannel() {
        var s = Self.session(subs: "Español CC")
        #expect(s.subtitles?.rendition.instreamID == "CC3")
        let plan = Self.watch(&s, 10.0, captions: "CC1 segment 0", at: 1.0)
        #expect(!plan.effects.contains(.closedCaptions(true)))
        #expect(Self.shown(plan).isEmpty)
    }

    /// The player's sample with `captions` decoded from the video at raw time `time`.
    static func sample(_ s: inout SessionState, _ time: Double, captions: String?, at t: Double) -> [SessionFact] {
        var p = PlayerSample()
        p.timePos = time
        p.captions = captions
        return s.reduce(.event(.sample(p)), at: t).facts
    }

    @Test("captions the playlist does not declare: offered as CC1 once the player has shown some, said once")
    func undeclared() {
        let plain = Self.multivariant.replacingOccurrences(of: ",CLOSED-CAPTIONS=\"cc\"", with: "")
        var s = Fixture.started(plain, media: AudioTests.media(live: false))
        #expect(s.subtitleGroup(rung: 0).map(\.name) == ["English"])
        _ = Self.sample(&s, 10.0, captions: "", at: 1.0)
        #expect(s.subtitleGroup(rung: 0).map(\.name) == ["English"], "nothing shown yet: nothing found")
        _ = Self.sample(&s, 10.5, captions: "CC1 segment 0", at: 1.5)
        #expect(s.subtitleGroup(rung: 0).map(\.name) == ["English", "CC1 (undeclared)"])
        #expect(s.log.filter { $0.text.contains("does not declare") }.count == 1)
        _ = s.reduce(.action(.subtitles(.named("CC1 (undeclared)")), PlayerLook(time: 10.6)), at: 1.6)
        #expect(Self.watch(&s, 10.7, captions: "CC1 segment 0", at: 1.7).effects.contains(.closedCaptions(true)))
    }

    @Test("CLOSED-CAPTIONS=NONE while the video carries captions: captions-none, once; declared captions break no rule")
    func declaredNone() {
        var s = Self.session()
        #expect(Self.sample(&s, 10.5, captions: "CC1 segment 0", at: 1.5).isEmpty, "rung 0 declares its captions")
        let none = Self.multivariant.replacingOccurrences(of: "CLOSED-CAPTIONS=\"cc\"", with: "CLOSED-CAPTIONS=NONE")
        var n = Fixture.started(none, media: AudioTests.media(live: false))
        let first = Self.sample(&n, 10.5, captions: "CC1 segment 0", at: 1.5)
        let rules = first.compactMap { if case .violation(_, _, let f) = $0 { f.rule.rawValue } else { nil } }
        #expect(rules == ["captions-none"])
        #expect(Self.sample(&n, 12.5, captions: "CC1 segment 1", at: 3.5).isEmpty, "said once")
    }
}
