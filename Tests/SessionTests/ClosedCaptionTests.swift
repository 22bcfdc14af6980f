import Foundation
import HLS
import LoaderEvents
import MediaFormats
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
        #expect(Self.watch(&s, 10.4, captions: "CC1 words", at: 1.4).effects.contains(.closedCaptions(false)), "CC3 is hlstui's")
        #expect(s.log.contains { $0.text.contains("Español CC") && $0.text.contains("decoded by hlstui") })
        _ = s.reduce(.action(.subtitles(.next), PlayerLook(time: 10.4)), at: 1.5)
        #expect(s.subtitles == nil)
    }

    /// Segment `msn`'s caption data (its pictures from raw time `start`, 30 a second): `channel`'s pop-on caption `text` shown
    /// at `shown` (seconds into the segment) and cleared at `cleared`, field 1 carrying CC1's `other` on the same pictures.
    static func captionData(
        msn: Int, start: Double, channel: Int, text: String, shown: Double, cleared: Double, other: String = "CC1 words"
    ) -> CaptionDataEvent {
        var frames: [Int: [CCTriplet]] = [:]
        func put(_ ts: [CCTriplet], endingAt frame: Int) {
            for (k, t) in ts.enumerated() { frames[frame - ts.count + 1 + k, default: []].append(t) }
        }
        put(CEA608.triplets(popOn: text, channel: channel), endingAt: Int(shown * 30) + 1)
        put(CEA608.triplets(clear: channel), endingAt: Int(cleared * 30) + 1)
        if channel != 1 { put(CEA608.triplets(popOn: other, channel: 1), endingAt: Int(shown * 30) + 1) }
        let samples = frames.keys.sorted().map { CaptionSample(time: start + Double($0) / 30, triplets: frames[$0]!) }
        return CaptionDataEvent(rung: 0, msn: msn, samples: samples)
    }

    @Test("a CC3 rendition is decoded by hlstui from the segments' caption data: shown with its picture, never CC1's words")
    func otherChannel() throws {
        var s = Self.session(subs: "Español CC")
        #expect(s.subtitles?.rendition.instreamID == "CC3")
        // Segments 0 and 1 start at raw times 10 and 12 (the fixture's first PTS).
        s.apply(
            .loader(.captionData(Self.captionData(msn: 0, start: 10, channel: 3, text: "CC3 segment 0", shown: 0.5, cleared: 1.5))), at: 0.4
        )
        s.apply(
            .loader(.captionData(Self.captionData(msn: 1, start: 12, channel: 3, text: "CC3 segment 1", shown: 0.5, cleared: 1.5))), at: 0.4
        )
        let plan = Self.watch(&s, 10.0, captions: "CC1 segment 0", at: 1.0)
        #expect(!plan.effects.contains(.closedCaptions(true)), "the player is not asked to show CC1")
        #expect(Self.shown(plan).isEmpty, "nothing before its picture")
        #expect(Self.shown(Self.watch(&s, 10.49, captions: nil, at: 1.49)).isEmpty)
        let appear = try #require(Self.shown(Self.watch(&s, 10.52, captions: "CC1 words", at: 1.52)).first)
        #expect(appear.lines == ["CC3 segment 0"])
        #expect(
            appear.start.map { abs($0 - 10.5) < 0.001 } == true,
            "the time of the picture that showed it: \(String(describing: appear.start))")
        #expect(appear.at == 10.52)
        #expect(Self.shown(Self.watch(&s, 11.0, captions: nil, at: 2.0)).isEmpty, "the same caption: no new fact")
        let gone = try #require(Self.shown(Self.watch(&s, 11.52, captions: nil, at: 2.52)).first)
        #expect(gone.lines.isEmpty)
        // Across the segment boundary, in one look after another.
        let next = try #require(Self.shown(Self.watch(&s, 12.6, captions: nil, at: 3.6)).first)
        #expect(next.lines == ["CC3 segment 1"])
        // A seek back into segment 0's caption: fed again from before it, so the pop-on loaded before its picture shows.
        let back = try #require(Self.shown(Self.watch(&s, 11.0, captions: nil, at: 4.0)).first)
        #expect(back.lines == ["CC3 segment 0"])
    }

    @Test(
        "channels the playlist does not declare, found in the caption data: offered, said once, shown when chosen; NONE over them is captions-none"
    )
    func undeclaredOwn() throws {
        let plain = Self.multivariant.replacingOccurrences(of: ",CLOSED-CAPTIONS=\"cc\"", with: "")
        var s = Fixture.started(plain, media: AudioTests.media(live: false))
        let data = Self.captionData(msn: 0, start: 10, channel: 3, text: "CC3 words", shown: 0.5, cleared: 1.5)
        s.apply(.loader(.captionData(data)), at: 0.4)
        s.apply(.loader(.captionData(data)), at: 0.5)
        #expect(s.subtitleGroup(rung: 0).map(\.name) == ["English", "CC3 (undeclared)"], "CC1 is offered once the player shows some")
        #expect(s.log.filter { $0.text.contains("CC3 captions the playlist does not declare") }.count == 1)
        _ = s.reduce(.action(.subtitles(.named("CC3 (undeclared)")), PlayerLook(time: 10.1)), at: 1.0)
        #expect(s.subtitles?.rendition.instreamID == "CC3")
        let shown = try #require(Self.shown(Self.watch(&s, 10.6, captions: nil, at: 1.6)).first)
        #expect(shown.lines == ["CC3 words"])

        let none = Self.multivariant.replacingOccurrences(of: "CLOSED-CAPTIONS=\"cc\"", with: "CLOSED-CAPTIONS=NONE")
        var n = Fixture.started(none, media: AudioTests.media(live: false))
        let facts = n.reduce(.event(.loader(.captionData(data))), at: 0.4).facts
        let findings = facts.compactMap { if case .violation(_, _, let f) = $0 { f } else { nil } }
        #expect(findings.map(\.rule.rawValue) == ["captions-none"] && findings.first?.message.contains("CC1, CC3") == true, "\(findings)")
        #expect(
            n.reduce(
                .event(.loader(.captionData(Self.captionData(msn: 1, start: 12, channel: 3, text: "x", shown: 0.5, cleared: 1.5)))), at: 2
            ).facts.isEmpty, "said once")
        #expect(Self.sample(&n, 10.5, captions: "CC1 words", at: 2.5).isEmpty, "nor again by the player's CC1")
    }

    @Test("caption data that arrives after the playhead passed into its segment is read again from before it")
    func lateData() throws {
        var s = Self.session(subs: "Español CC")
        #expect(Self.shown(Self.watch(&s, 10.6, captions: nil, at: 1.0)).isEmpty, "no data yet")
        s.apply(
            .loader(.captionData(Self.captionData(msn: 0, start: 10, channel: 3, text: "CC3 late", shown: 0.5, cleared: 1.5))), at: 1.05)
        let late = try #require(Self.shown(Self.watch(&s, 10.7, captions: nil, at: 1.1)).first)
        #expect(late.lines == ["CC3 late"])
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
