import Foundation
import HLS
import LoaderEvents
import Testing
@testable import Session
import SessionFixtures

@Suite("The opening: the first load, a start at the live edge, and what a sample says while the player loads or is held")
struct OpeningTests {
    /// A live LL-HLS playlist whose edge is two parts into segment 103: PART-HOLD-BACK (3 s) back is 3 s into segment 102.
    static let lowLatency = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-TARGETDURATION:4
        #EXT-X-PART-INF:PART-TARGET=1
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3
        #EXT-X-MEDIA-SEQUENCE:100
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXTINF:4,
        s100.ts
        #EXTINF:4,
        s101.ts
        #EXTINF:4,
        s102.ts
        #EXT-X-PART:DURATION=1,URI="s103.0.ts"
        #EXT-X-PART:DURATION=1,URI="s103.1.ts"

        """

    static func opened(_ text: String) -> SessionState {
        var s = SessionState(url: "http://origin.test/x/index.m3u8")
        s.apply(.opened(url: s.url, playlist: Fixture.playlist(text), diagnostics: []), at: 0)
        return s
    }

    @Test("an MPEG-TS ladder is spliced and given from its playlist just read; the start is recorded with its mechanism")
    func firstLoadSpliced() throws {
        var s = Self.opened(Fixture.multivariant)
        let target = try #require(s.targetRung)
        let media = try #require(Fixture.playlist(Fixture.media()).media)
        let plan = s.reduce(.firstLoad(media: media, multivariant: true, partsGiven: false), at: 0.2)
        #expect(plan.effects == [.load(rung: target, startMSN: nil, prewarmed: true)])
        #expect(s.spliced)
        #expect(plan.record?.reason == .start && plan.record?.mechanism == .loadSpliced && plan.record?.to == target)
        #expect(plan.said.isEmpty)
    }

    @Test("a media playlist alone, or fMP4, is loaded, not spliced")
    func firstLoadAlone() throws {
        var single = Self.opened(Fixture.media())
        let plan = single.reduce(
            .firstLoad(media: Fixture.playlist(Fixture.media()).media, multivariant: false, partsGiven: false), at: 0.2)
        #expect(plan.effects == [.load(rung: 0, startMSN: nil, prewarmed: true)] && !single.spliced)
        #expect(plan.record?.mechanism == .load)
        var fmp4 = Self.opened(Fixture.multivariant)
        let withMap = Fixture.media().replacingOccurrences(of: "#EXT-X-PROGRAM", with: "#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-PROGRAM")
        let m = try #require(Fixture.playlist(withMap).media)
        #expect(fmp4.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 0.2).record?.mechanism == .load)
        #expect(!fmp4.spliced)
        // The rung's playlist could not be read: the player is given the stream all the same, and says why it cannot play.
        var unread = Self.opened(Fixture.multivariant)
        #expect(unread.reduce(.firstLoad(media: nil, multivariant: true, partsGiven: false), at: 0.2).effects.count == 1)
    }

    @Test("LL-HLS whose parts reach the player: it starts PART-HOLD-BACK behind the last part (RFC 8216bis §4.4.3.8), and says so")
    func firstLoadAtEdge() throws {
        var s = Self.opened(Self.lowLatency)
        let media = try #require(Fixture.playlist(Self.lowLatency).media)
        let plan = s.reduce(.firstLoad(media: media, multivariant: false, partsGiven: true), at: 1)
        #expect(plan.effects == reloadSteps(rung: 0, msn: 102, to: .position(msn: 102, offset: 3, readAt: 1), at: 1, prewarmed: true))
        #expect(plan.record?.reason == .start)
        #expect(
            plan.said.map(\.text) == [
                "low latency: starting 3.0 s (PART-HOLD-BACK) behind the last part, in msn 102; parts reach the player as they are published"
            ])
        #expect(s.catchUp?.target == 3)
        // The Loader does not give the player parts (`--no-parts`): a player's own start.
        var whole = Self.opened(Self.lowLatency)
        #expect(
            whole.reduce(.firstLoad(media: media, multivariant: false, partsGiven: false), at: 1).effects == [
                .load(rung: 0, startMSN: nil, prewarmed: true)
            ])
        #expect(whole.catchUp == nil)
    }

    @Test("a start again at the edge: from the newest playlist read, no switch recorded; a playlist with no start says so")
    func edgeRead() throws {
        var s = Self.opened(Self.lowLatency)
        let media = try #require(Fixture.playlist(Self.lowLatency).media)
        let plan = s.reduce(.edgeRead(rung: 0, media: media, partsGiven: true), at: 30)
        #expect(
            plan.effects == reloadSteps(rung: 0, msn: 102, to: .position(msn: 102, offset: 3, readAt: 30), at: 30, prewarmed: true)
                && plan.record == nil)
        let none = s.reduce(.edgeRead(rung: 0, media: media, partsGiven: false), at: 40)
        #expect(none.effects.isEmpty && none.said.map(\.text) == ["low latency: the playlist offers no start behind its edge"])
    }

    @Test("while the player loads, restarts or is held, the position read before stands; once it plays, the new one counts")
    func sampleStands() {
        var s = Fixture.session()
        var playing = PlayerSample()
        playing.timePos = 12.5
        playing.audioPts = 12.4
        s.apply(.sample(playing), at: 1)
        #expect(s.sample.timePos == 12.5)
        // Between a loadfile and the restart the reader gives no position.
        var loading = PlayerSample()
        loading.loading = true
        s.apply(.sample(loading), at: 1.1)
        #expect(s.sample.timePos == 12.5 && s.sample.audioPts == 12.4)
        // Held for a seek to land: time-pos may read the key frame before the target.
        var held = PlayerSample()
        held.held = true
        held.paused = true
        held.timePos = 10.7
        s.apply(.sample(held), at: 1.2)
        #expect(s.sample.timePos == 12.5)
        // Restarting (not paused, not waiting, the core idle).
        var restarting = PlayerSample()
        restarting.coreIdle = true
        restarting.timePos = 30
        s.apply(.sample(restarting), at: 1.3)
        #expect(s.sample.timePos == 12.5)
        var again = PlayerSample()
        again.timePos = 13.0
        s.apply(.sample(again), at: 1.4)
        #expect(s.sample.timePos == 13.0)
    }
}

@Suite("A segment served from another rung: the rung on screen changes for it, said as a switch and not recorded")
struct ServedFromTests {
    @Test(
        "a failover served elsewhere and a GAP filled are switches with their reasons; one served from nowhere is not; the loaded rung stays"
    )
    func servedFrom() {
        var s = Fixture.session()
        let failover = s.apply(.loader(.failover(msn: 5, failedRung: 0, by: 1, cause: "HTTP 503")), at: 1)
        #expect(
            failover.contains(
                .servedFrom(VariantSwitch(t: 1, from: 0, to: 1, reason: .failover, mechanism: .splice, atMSN: 5, detail: "HTTP 503"))))
        let nowhere = s.apply(.loader(.failover(msn: 6, failedRung: 0, by: nil, cause: "HTTP 503")), at: 1.5)
        #expect(!nowhere.contains { if case .servedFrom = $0 { true } else { false } })
        let gap = s.apply(.loader(.gapFilled(msn: 4, gapRung: 0, by: 2)), at: 2)
        let shown = VariantSwitch(t: 2, from: 0, to: 2, reason: .gap, mechanism: .splice, atMSN: 4)
        #expect(gap.contains(.servedFrom(shown)))
        // The same GAP again (another read of it): the switch is shown again, the GAP not said again.
        let again = s.apply(.loader(.gapFilled(msn: 4, gapRung: 0, by: 2)), at: 3)
        #expect(again == [.servedFrom(VariantSwitch(t: 3, from: 0, to: 2, reason: .gap, mechanism: .splice, atMSN: 4))])
        #expect(s.loadedRung == 0)
    }
}
