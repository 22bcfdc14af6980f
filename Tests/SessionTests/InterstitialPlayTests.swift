import HLS
import SessionFixtures
import Testing

@testable import Session

/// Interstitials played in the pane (docs/EVENTS.md, "Interstitials played"): what the Session asks of the player and the
/// Loader at each step, and where the primary resumes.
@Suite struct InterstitialPlayTests {
    /// A VOD rung with a pre-roll (`pre`: an asset list when `preList`), a mid-roll at segment 2 and a post-roll.
    static func media(preList: Bool = false, limit: Double? = nil) -> MediaPlaylist {
        Fixture.playlist(text(preList: preList, limit: limit)).media!
    }

    /// `midAt`: the mid-roll's START-DATE, "04.000" (segment 2's start); `mid`: its attributes after X-ASSET-LIST.
    static func text(
        preList: Bool = false, limit: Double? = nil, once: Bool = false, midAt: String = "04.000",
        mid: String = "X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""
    ) -> String {
        let pre =
            preList
            ? "X-ASSET-LIST=\"/assets.json\"" + (limit.map { ",X-PLAYOUT-LIMIT=\(fixed($0, 1))" } ?? "") : "X-ASSET-URI=\"pre/index.m3u8\""
        var s = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        s += "#EXT-X-DATERANGE:ID=\"pre\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:00.000Z\",CUE=\"PRE\",\(pre)\n"
        s += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
        for i in 0..<6 {
            if i == 2 {
                s += "#EXT-X-DATERANGE:ID=\"mid\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:\(midAt)Z\","
                s += (once ? "CUE=\"ONCE\"," : "") + "X-ASSET-LIST=\"/assets.json\",\(mid)\n"
            }
            s += "#EXTINF:2.0,\nseg\(i).ts\n"
        }
        s += "#EXT-X-DATERANGE:ID=\"post\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:00.000Z\",CUE=\"POST\","
        s += "X-ASSET-URI=\"post/index.m3u8\"\n#EXT-X-ENDLIST\n"
        return s
    }

    static let asset = Fixture.playlist("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na0.ts\n#EXTINF:2,\na1.ts\n#EXT-X-ENDLIST\n")

    /// A pane that opened the ladder and is about to be given its first rung (`media` read).
    static func opening(_ m: MediaPlaylist) -> SessionState {
        var s = SessionState(url: "http://origin.test/master.m3u8")
        _ = s.reduce(.event(.opened(url: s.url, playlist: Fixture.playlist(Fixture.multivariant), diagnostics: [])), at: 0)
        return s
    }

    /// The playhead at raw time `time` at `t`: the player's sample, then the plan of the look after it.
    static func reach(_ s: inout SessionState, _ time: Double, at t: Double) -> PanePlan {
        _ = s.reduce(.event(.sample(sample(time))), at: t)
        return s.reduce(.sampled(PlayerLook(time: time)), at: t)
    }

    static func sample(_ time: Double?, eof: Bool = false) -> PlayerSample {
        var p = PlayerSample()
        p.timePos = time
        p.eof = eof
        return p
    }

    @Test("a pre-roll plays before the primary: its asset opened and given, its end loads the primary as it was to be loaded")
    func preRoll() {
        let m = Self.media()
        var s = Self.opening(m)
        let begin = s.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 1)
        #expect(begin.effects == [.openAsset(uri: "pre/index.m3u8")], "the primary is not loaded first")
        #expect(begin.facts.contains(.interstitial(.began(id: "pre", when: "pre"))))
        #expect(s.interstitials.label == "interstitial pre (asset 1/1)")
        let load = s.reduce(.interstitial(.assetOpened(Self.asset)), at: 1.1)
        #expect(load.effects == [.loadAsset(variant: nil), .letGo(play: true), .after(ms: 10_000, .assetStart(index: 0))])
        let restart = s.reduce(.event(.playbackStarted), at: 1.3)
        #expect(restart.facts.isEmpty && !s.started, "the asset's first frame is not the primary's")
        _ = s.reduce(.event(.sample(Self.sample(2))), at: 3.3)
        #expect(s.sample.timePos == nil, "the asset's playhead is not the primary's")
        let end = s.reduce(.event(.sample(Self.sample(4, eof: true))), at: 5.3)
        #expect(end.facts.first == .interstitial(.assetEnded(id: "pre", index: 0, seconds: 4)))
        #expect(end.facts.contains(.interstitial(.resumed(id: "pre", played: 4, at: "start"))))
        #expect(end.effects.first == .letGo(play: true), "the player paused itself at the asset's end (keep-open)")
        #expect(end.effects.contains(.load(rung: 0, startMSN: nil, prewarmed: true)))
        #expect(end.record?.reason == .start && s.interstitials.run == nil)
        // Played once: the next first load goes straight to the primary.
        let again = s.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 6)
        #expect(again.effects == [.load(rung: 0, startMSN: nil, prewarmed: true)])
    }

    @Test(
        "a mid-roll: the primary held at START-DATE while its list is read, and given again there after the assets (X-RESUME-OFFSET=0: nothing of it skipped)"
    )
    func midRoll() throws {
        // Segments 0–3 read with first PTS 10, 12, 14, 16: START-DATE (4 s) is raw time 14.
        var s = Fixture.started(Fixture.multivariant, media: Self.text())
        _ = s.reduce(.event(.sample(Self.sample(13.9))), at: 4)
        #expect(s.reduce(.sampled(PlayerLook(time: 13.9)), at: 4).facts.isEmpty, "not yet reached")
        _ = s.reduce(.event(.sample(Self.sample(14.05))), at: 4.2)
        let begin = s.reduce(.sampled(PlayerLook(time: 14.05)), at: 4.2)
        #expect(begin.effects == [.holdStill(byHLSTUI: true), .fetchAssetList(id: "mid", uri: "/assets.json", startOffset: nil)])
        #expect(begin.facts == [.interstitial(.began(id: "mid", when: "mid"))])
        let one = AssetList(assets: [.init(uri: "http://origin.test/a.m3u8", duration: 4)])
        _ = s.reduce(.interstitial(.listAnswered(id: "mid", .success(one))), at: 4.3)
        _ = s.reduce(.interstitial(.assetOpened(Self.asset)), at: 4.4)
        _ = s.reduce(.event(.playbackStarted), at: 4.5)
        let held = try #require(s.playheadPDT)
        #expect(s.moment(ClockLook(audioPts: 1)).pdt == nil, "the asset's time is not a moment of the primary")
        let end = s.reduce(.event(.sample(Self.sample(4, eof: true))), at: 8.5)
        #expect(end.facts.contains(.interstitial(.resumed(id: "mid", played: 4, at: "2026-01-01T00:00:04.000Z"))))
        #expect(end.effects.prefix(3) == [.letGo(play: true), .holdStill(byHLSTUI: true), .load(rung: 0, startMSN: 2, prewarmed: false)])
        #expect(end.effects.reloadSeek?.to == .raw(14), "\(end.effects)")
        // Sync reads no moment of the primary while the player holds the asset (the other panes play on).
        #expect(s.moment(ClockLook(audioPts: 3.9)).pdt == nil && !s.moment(ClockLook(audioPts: 3.9)).playing)
        // While the primary is given again, its playhead stays where it left.
        _ = s.reduce(.event(.streamGiven(startMSN: 2)), at: 8.5)
        #expect(s.playheadPDT == held && s.interstitials.run == nil && !s.interstitials.assetInPlayer)
    }

    @Test("a seek past an interstitial that restricts JUMP plays it first, then goes on at the seek's target; one short of it seeks")
    func jump() {
        var s = Fixture.started(Fixture.multivariant, media: Self.text())
        _ = s.reduce(.event(.sample(Self.sample(10.5))), at: 1)
        let short = s.reduce(.action(.seekRelative(3), PlayerLook(time: 10.5)), at: 1.1)
        #expect(!short.facts.contains { if case .interstitial = $0 { true } else { false } } && !short.effects.isEmpty)
        var j = Fixture.started(Fixture.multivariant, media: Self.text())
        _ = j.reduce(.event(.sample(Self.sample(10.5))), at: 1)
        let past = j.reduce(.action(.seekRelative(8), PlayerLook(time: 10.5)), at: 1.1)
        #expect(past.facts == [.interstitial(.began(id: "mid", when: "mid"))], "\(past.facts)")
        #expect(past.said.first?.text.contains("X-RESTRICT JUMP") == true)
        _ = j.reduce(
            .interstitial(.listAnswered(id: "mid", .success(AssetList(assets: [.init(uri: "http://origin.test/a.m3u8", duration: 4)])))),
            at: 1.2)
        _ = j.reduce(.interstitial(.assetOpened(Self.asset)), at: 1.3)
        _ = j.reduce(.event(.playbackStarted), at: 1.4)
        let end = j.reduce(.event(.sample(Self.sample(4, eof: true))), at: 5.4)
        // The target, 8.5 s: segment 4, whose timestamps are not read yet — given from its start.
        #expect(end.facts.contains(.interstitial(.resumed(id: "mid", played: 4, at: "2026-01-01T00:00:08.500Z"))))
        #expect(end.effects == [.letGo(play: true), .load(rung: 0, startMSN: 4)], "\(end.effects)")
    }

    @Test("a seek back before a mid-roll played plays it again when the playhead reaches it; one with CUE=ONCE does not")
    func playedAgain() {
        for once in [false, true] {
            var s = Fixture.started(Fixture.multivariant, media: Self.text(once: once))
            let one = AssetList(assets: [.init(uri: "http://origin.test/a.m3u8", duration: 4)])
            _ = Self.reach(&s, 13.9, at: 4)
            #expect(Self.reach(&s, 14.05, at: 4.2).facts == [.interstitial(.began(id: "mid", when: "mid"))])
            _ = s.reduce(.interstitial(.listAnswered(id: "mid", .success(one))), at: 4.3)
            _ = s.reduce(.interstitial(.assetOpened(Self.asset)), at: 4.4)
            _ = s.reduce(.event(.playbackStarted), at: 4.5)
            _ = s.reduce(.event(.sample(Self.sample(4, eof: true))), at: 8.5)
            _ = s.reduce(.event(.streamGiven(startMSN: 2)), at: 8.5)
            _ = s.reduce(.event(.playbackStarted), at: 8.6)
            _ = Self.reach(&s, 15, at: 9.5)
            _ = s.reduce(.action(.seekRelative(-3), PlayerLook(time: 15)), at: 9.6)
            // A look the seek has not reached yet still shows the playhead past it: not reached, not missed.
            #expect(Self.reach(&s, 15.05, at: 9.62).facts.isEmpty)
            _ = Self.reach(&s, 12.1, at: 9.7)
            let again = Self.reach(&s, 14.05, at: 11.7).facts.contains(.interstitial(.began(id: "mid", when: "mid")))
            #expect(again == !once, "CUE=ONCE: \(once)")
        }
    }

    @Test("a seek forward past a mid-roll that does not restrict JUMP passes it; a seek back before it plays it when reached")
    func passedBySeek() {
        var s = Fixture.started(Fixture.multivariant, media: Self.text(once: true, mid: "X-RESUME-OFFSET=0"))
        _ = Self.reach(&s, 10.5, at: 1)
        let forward = s.reduce(.action(.seekRelative(8), PlayerLook(time: 10.5)), at: 1.1)
        #expect(!forward.effects.isEmpty && forward.facts.isEmpty)
        // A look of the seek not landed yet, then the target: neither plays it.
        #expect(Self.reach(&s, 10.6, at: 1.15).facts.isEmpty && Self.reach(&s, 18.5, at: 1.3).facts.isEmpty)
        _ = s.reduce(.action(.seekRelative(-6), PlayerLook(time: 18.5)), at: 2)
        _ = Self.reach(&s, 12.5, at: 2.2)
        #expect(Self.reach(&s, 14.05, at: 3.8).facts == [.interstitial(.began(id: "mid", when: "mid"))], "never played: CUE=ONCE plays it")
    }

    @Test(
        "X-SNAP: the primary leaves at the segment boundary nearest START-DATE (OUT) and resumes at the one nearest the resumption point (IN)"
    )
    func snap() {
        // START-DATE 4.6 s, inside segment 2 (4–6 s): OUT leaves at 4.0; IN resumes at 4.0 (X-RESUME-OFFSET=0).
        var s = Fixture.started(Fixture.multivariant, media: Self.text(midAt: "04.600", mid: "X-RESUME-OFFSET=0,X-SNAP=\"OUT,IN\""))
        _ = s.reduce(.event(.sample(Self.sample(13.9))), at: 4)
        _ = s.reduce(.sampled(PlayerLook(time: 13.9)), at: 4)
        _ = s.reduce(.event(.sample(Self.sample(14.05))), at: 4.2)
        #expect(s.reduce(.sampled(PlayerLook(time: 14.05)), at: 4.2).facts == [.interstitial(.began(id: "mid", when: "mid"))])
        _ = s.reduce(
            .interstitial(.listAnswered(id: "mid", .success(AssetList(assets: [.init(uri: "http://origin.test/a.m3u8", duration: 4)])))),
            at: 4.3)
        _ = s.reduce(.interstitial(.assetOpened(Self.asset)), at: 4.4)
        _ = s.reduce(.event(.playbackStarted), at: 4.5)
        let end = s.reduce(.event(.sample(Self.sample(4, eof: true))), at: 8.5)
        #expect(end.facts.contains(.interstitial(.resumed(id: "mid", played: 4, at: "2026-01-01T00:00:04.000Z"))), "\(end.facts)")
        #expect(end.effects.reloadSeek?.to == .raw(14))
        // Without X-SNAP the same START-DATE is where it leaves: not at 4.05.
        var plain = Fixture.started(Fixture.multivariant, media: Self.text(midAt: "04.600", mid: "X-RESUME-OFFSET=0"))
        _ = plain.reduce(.event(.sample(Self.sample(13.9))), at: 4)
        _ = plain.reduce(.sampled(PlayerLook(time: 13.9)), at: 4)
        _ = plain.reduce(.event(.sample(Self.sample(14.05))), at: 4.2)
        #expect(plain.reduce(.sampled(PlayerLook(time: 14.05)), at: 4.2).facts.isEmpty)
        _ = plain.reduce(.event(.sample(Self.sample(14.65))), at: 4.8)
        #expect(plain.reduce(.sampled(PlayerLook(time: 14.65)), at: 4.8).facts == [.interstitial(.began(id: "mid", when: "mid"))])
    }

    @Test("an asset list: each asset in turn, a failed one skipped with its cause, an empty or unreadable list plays nothing")
    func assetList() {
        let m = Self.media(preList: true)
        let two = AssetList(assets: [
            .init(uri: "http://origin.test/a.m3u8", duration: 4), .init(uri: "http://origin.test/b.m3u8", duration: 4),
        ])
        var s = Self.opening(m)
        let begin = s.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 1)
        #expect(begin.effects == [.fetchAssetList(id: "pre", uri: "/assets.json", startOffset: nil)])
        #expect(s.interstitials.label == "interstitial pre (reading its asset list)")
        let listed = s.reduce(.interstitial(.listAnswered(id: "pre", .success(two))), at: 1.2)
        #expect(listed.effects == [.openAsset(uri: "http://origin.test/a.m3u8")])
        #expect(listed.facts.first == .interstitial(.listed(id: "pre", assets: 2, seconds: 8)))
        let failed = s.reduce(.interstitial(.assetFailed(uri: "http://origin.test/a.m3u8", why: "HTTP 404")), at: 1.3)
        #expect(failed.effects == [.openAsset(uri: "http://origin.test/b.m3u8")], "the others still play")
        #expect(
            failed.facts.first
                == .interstitial(
                    .assetFailed(id: "pre", index: 0, uri: "http://origin.test/a.m3u8", why: "http://origin.test/a.m3u8: HTTP 404")))
        #expect(s.interstitials.run?.failed.count == 1 && s.interstitials.label == "interstitial pre (asset 2/2)")
        // The asset given shows no frame within its limit: skipped too, and the primary starts.
        _ = s.reduce(.interstitial(.assetOpened(Self.asset)), at: 1.4)
        let silent = s.reduce(.timer(.assetStart(index: 1), SeekLook()), at: 11.4)
        #expect(silent.facts.contains(.interstitial(.resumed(id: "pre", played: 0, at: "start"))))
        #expect(s.log.contains { $0.text.contains("asset 2 skipped: no frame within 10 s") })

        for (answer, line) in [
            (Result<AssetList, AssetListError>.success(AssetList(assets: [])), "its asset list is empty: nothing plays"),
            (.failure(AssetListError("answered HTTP 404")), "its X-ASSET-LIST answered HTTP 404: nothing plays"),
        ] {
            var e = Self.opening(m)
            _ = e.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 1)
            let plan = e.reduce(.interstitial(.listAnswered(id: "pre", answer)), at: 1.2)
            #expect(plan.effects.contains(.load(rung: 0, startMSN: nil, prewarmed: true)), "the primary starts")
            #expect(e.log.contains { $0.text.hasSuffix(line) })
        }
    }

    @Test("X-PLAYOUT-LIMIT: a list cut to the assets that start within it, and the interstitial ended when it is reached")
    func playoutLimit() {
        let assets = [4.0, 4, 4].enumerated().map { AssetList.Asset(uri: "a\($0.offset)", duration: $0.element) }
        #expect(SessionState.withinLimit(assets, limit: 6).map(\.uri) == ["a0", "a1"])
        #expect(SessionState.withinLimit(assets, limit: nil).count == 3)
        let m = Self.media(preList: true, limit: 3)
        var s = Self.opening(m)
        _ = s.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 1)
        _ = s.reduce(.interstitial(.listAnswered(id: "pre", .success(AssetList(assets: assets)))), at: 1.1)
        _ = s.reduce(.interstitial(.assetOpened(Self.asset)), at: 1.2)
        _ = s.reduce(.event(.playbackStarted), at: 1.3)
        _ = s.reduce(.event(.sample(Self.sample(2))), at: 3.3)
        #expect(s.reduce(.watch(PlayerLook(time: 2)), at: 3.3).facts.isEmpty)
        _ = s.reduce(.event(.sample(Self.sample(3.05))), at: 4.35)
        let cut = s.reduce(.watch(PlayerLook(time: 3.05)), at: 4.35)
        #expect(cut.facts.contains(.interstitial(.resumed(id: "pre", played: 3.05, at: "start"))))
        #expect(s.log.contains { $0.text.contains("X-PLAYOUT-LIMIT 3.0 s reached") })
    }

    @Test("while an asset plays, a key other than pause waits for the primary, with X-RESTRICT named")
    func keysWait() {
        let m = Self.media()
        var s = Self.opening(m)
        _ = s.reduce(.firstLoad(media: m, multivariant: true, partsGiven: false), at: 1)
        let seek = s.reduce(.action(.seekRelative(10), PlayerLook(time: 1)), at: 2)
        #expect(seek.effects.isEmpty && seek.said.first?.text.contains("waits until the primary resumes") == true)
        let pause = s.reduce(.action(.togglePause, PlayerLook(time: 1)), at: 2)
        #expect(pause.effects == [.pause(true)])
        #expect(s.reduce(.realign(to: DateTime(seconds: 0), readAt: 2), at: 2).refused)
    }

    @Test("the asset's variant: the highest within the primary rung's BANDWIDTH, else the lowest; none for a media playlist")
    func assetVariant() {
        let ladder = Fixture.ladder
        let rung = ladder.rungs[0] // 800 kb/s
        #expect(SessionState.assetVariant(ladder, like: rung) == 0)
        #expect(SessionState.assetVariant(ladder, like: ladder.rungs[2]) == 2)
        #expect(SessionState.assetVariant(ladder, like: nil) == 1, "no rung yet: the lowest")
        var low = ladder.rungs[1]
        low.variant.bandwidth = 1000
        #expect(SessionState.assetVariant(ladder, like: low) == 1)
        #expect(SessionState.assetVariant(Ladder(Self.asset), like: rung) == nil)
    }
}
