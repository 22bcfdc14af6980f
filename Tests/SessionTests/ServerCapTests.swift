import CMCD
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// `--cmsd-cap`: the server's maximum suggested bitrate (CMSD `mb`, CTA-5006) as a cap the session follows (docs/CMCD.md).
@Suite("The server's CMSD cap: followed when asked, lifted when the server stops saying it")
struct ServerCapTests {
    /// `--cmsd-cap`.
    static let followingCMSD = {
        var settings = SessionSettings()
        settings.followsCMSD = true
        return settings
    }()

    static func answer(_ msn: Int, mb: Int?, at t: Double, hops: Bool = true) -> SessionEvent {
        var r = Fixture.request(msn, pts: 10 + Double(msn) * 2, start: t)
        if hops { r.cmsd = CMSD(hops: [CMSD.Hop(name: "edge-1", values: mb.map { ["mb": .integer($0)] } ?? ["etp": .integer(9000)])]) }
        return .loader(.request(r))
    }

    @Test("not asked: a suggestion changes nothing")
    func notFollowed() {
        var s = Fixture.session()
        s.apply(Self.answer(4, mb: 500, at: 1), at: 1)
        #expect(s.caps.serverMaxBitrate == nil)
        #expect(s.planServerCap(mode: .smooth, look: PlayerLook(time: 14.5), at: 1).record == nil)
    }

    @Test("asked: 500 kbps caps the ladder and switches under it, said with reason cmsd; the same again moves nothing")
    func followed() throws {
        var s = Fixture.session()
        s.selection = RungSelection(Self.followingCMSD)
        s.apply(Self.answer(4, mb: 500, at: 1), at: 1)
        #expect(s.caps.serverMaxBitrate == 500_000 && s.caps.allowed(s.ladder) == [1])
        #expect(s.log.last?.text == "CMSD: edge-1 suggests at most 500kbps: the ladder is capped there")
        let plan = s.planServerCap(mode: .smooth, look: PlayerLook(time: 14.5), at: 1)
        let sw = try #require(plan.record)
        #expect(sw.reason == .cmsd && sw.to == 1 && sw.detail == "CMSD mb 500kbps")
        s.apply(Self.answer(5, mb: 500, at: 2), at: 2)
        #expect(s.planServerCap(mode: .smooth, look: PlayerLook(time: 15), at: 2).effects.isEmpty, "nothing moved")
        #expect(s.caps.description.contains("CMSD≤500kbps"))
    }

    @Test("lifted: by an answer whose CMSD has no mb at once; by answers without CMSD only after 10 s without one")
    func lifted() {
        var s = Fixture.session()
        s.selection = RungSelection(Self.followingCMSD)
        s.apply(Self.answer(4, mb: 500, at: 1), at: 1)
        _ = s.planServerCap(mode: .smooth, look: PlayerLook(time: 14.5), at: 1)
        s.apply(Self.answer(5, mb: nil, at: 6, hops: false), at: 6)
        #expect(s.caps.serverMaxBitrate == 500_000, "5 s without CMSD: still capped")
        s.apply(Self.answer(6, mb: nil, at: 11.5, hops: false), at: 11.5)
        #expect(s.caps.serverMaxBitrate == nil && s.log.last?.text.hasPrefix("CMSD: no answer has suggested") == true)
        var t = Fixture.session()
        t.selection = RungSelection(Self.followingCMSD)
        t.apply(Self.answer(4, mb: 500, at: 1), at: 1)
        t.apply(Self.answer(5, mb: nil, at: 2), at: 2)
        #expect(t.caps.serverMaxBitrate == nil && t.log.last?.text == "CMSD: no maximum bitrate suggested any more: the cap is lifted")
        // Several servers on the way: the lowest suggestion caps.
        var u = Fixture.session()
        u.selection = RungSelection(Self.followingCMSD)
        var r = Fixture.request(4, start: 1)
        r.cmsd = CMSD(hops: [
            CMSD.Hop(name: "origin", values: ["mb": .integer(2000)]), CMSD.Hop(name: "edge", values: ["mb": .integer(900)]),
        ])
        u.apply(.loader(.request(r)), at: 1)
        #expect(u.caps.serverMaxBitrate == 900_000)
    }
}

/// The first frame as the player's own event.
@Suite("The first frame: one fact, at the player's first playback restart")
struct FirstFrameTests {
    @Test("the first playback restart is the first frame, once; a restart after a reload is not")
    func once() {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        #expect(s.apply(.playbackStarted, at: 0.42) == [.firstFrame(0.42)] && s.firstFrameAt == 0.42)
        s.apply(.streamGiven(startMSN: 3), at: 5)
        #expect(s.apply(.playbackStarted, at: 5.3).isEmpty && s.firstFrameAt == 0.42)
    }
}
