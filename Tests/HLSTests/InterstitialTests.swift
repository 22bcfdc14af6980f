import HLS
import HLSReport
import Testing

/// HLS Interstitials (RFC 8216bis Appendix D): the schedule a playlist announces, its attributes checked.
@Suite("Interstitials: the schedule read from EXT-X-DATERANGE, one per ID, each attribute's values checked")
struct InterstitialTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="pre",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:00.000Z",CUE="PRE",X-ASSET-URI="ad.m3u8",X-RESUME-OFFSET=0
        #EXTINF:2,
        s0.ts
        #EXTINF:2,
        s1.ts
        #EXT-X-DATERANGE:ID="mid",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:04.000Z",PLANNED-DURATION=30,X-ASSET-LIST="list.json",X-PLAYOUT-LIMIT=15,X-RESTRICT="SKIP,JUMP",X-SNAP="OUT,IN",X-TIMELINE-OCCUPIES="RANGE",X-TIMELINE-STYLE="HIGHLIGHT"
        #EXTINF:2,
        s2.ts
        #EXT-X-DATERANGE:ID="mid",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:04.000Z",PLANNED-DURATION=30,X-ASSET-LIST="list.json",X-RESUME-OFFSET=30
        #EXTINF:2,
        s3.ts
        #EXT-X-DATERANGE:ID="chapter",CLASS="com.example.chapter",START-DATE="2026-01-01T00:00:06.000Z"
        #EXT-X-ENDLIST
        """

    @Test("pre-roll, a mid-roll by asset list (its later tag adding X-RESUME-OFFSET), other classes left out; said in one line each")
    func schedule() throws {
        let r = PlaylistParser.parseLenient(Self.playlist)
        #expect(r.diagnostics.filter { $0.severity == .error }.isEmpty, "\(r.diagnostics)")
        let m = try #require(r.playlist.media)
        let s = Interstitial.schedule(m)
        #expect(s.map(\.id) == ["pre", "mid"])
        #expect(s[0].cue == ["PRE"] && s[0].assetURI == "ad.m3u8" && s[0].resumeOffset == 0 && s[0].beforeSegment == 0)
        let mid = s[1]
        #expect(mid.assetList == "list.json" && mid.playoutLimit == 15 && mid.restrict == ["SKIP", "JUMP"] && mid.snap == ["OUT", "IN"])
        #expect(mid.timelineOccupies == "RANGE" && mid.timelineStyle == "HIGHLIGHT" && mid.contentMayVary && mid.duration == 30)
        #expect(mid.resumeOffset == 30 && mid.resumesAfter == 30, "the later tag of the same ID adds X-RESUME-OFFSET")
        #expect(
            mid.summary
                == "mid  at 2026-01-01T00:00:04.000Z, X-ASSET-LIST list.json, resumes 30.000 s after its start, plays at most 15.000 s, restricts JUMP,SKIP, snaps IN,OUT, occupies RANGE, style HIGHLIGHT",
            "\(mid.summary)")
        #expect(s[0].when == "before the primary (CUE=PRE)")
    }

    @Test("values outside Appendix D's, a limit that cannot play, a resumption before the start, both or neither asset source")
    func rules() throws {
        let bad = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="x",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:00.000Z",CUE="MID",X-ASSET-URI="a.m3u8",X-SNAP="LEFT",X-RESTRICT="SEEK",X-TIMELINE-OCCUPIES="AREA",X-TIMELINE-STYLE="BOLD",X-PLAYOUT-LIMIT=0,X-RESUME-OFFSET=-1
            #EXT-X-DATERANGE:ID="y",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:00.000Z",X-ASSET-URI="a.m3u8",X-ASSET-LIST="l.json"
            #EXTINF:2,
            s0.ts
            #EXT-X-ENDLIST
            """
        let said = PlaylistParser.parseLenient(bad).diagnostics.filter { $0.rule == "RFC 8216bis Appendix D" }.map(\.message)
        #expect(
            said.sorted() == [
                "interstitial ID=\"x\" has CUE value MID; the values are PRE, POST and ONCE",
                "interstitial ID=\"x\" has X-PLAYOUT-LIMIT=0.000: a limit MUST be a positive number of seconds",
                "interstitial ID=\"x\" has X-RESTRICT value SEEK; the values are SKIP and JUMP",
                "interstitial ID=\"x\" has X-RESUME-OFFSET=-1.000: the primary cannot resume before the interstitial's start",
                "interstitial ID=\"x\" has X-SNAP value LEFT; the values are OUT and IN",
                "interstitial ID=\"x\" has X-TIMELINE-OCCUPIES=AREA; the values are POINT and RANGE",
                "interstitial ID=\"x\" has X-TIMELINE-STYLE=BOLD; the values are HIGHLIGHT and PRIMARY",
                "interstitial ID=\"y\" has both X-ASSET-URI and X-ASSET-LIST; it MUST have exactly one",
            ], "\(said)")
        #expect(PlaylistParser.parseLenient(Self.playlist).diagnostics.allSatisfy { $0.rule != "RFC 8216bis Appendix D" })
    }

    @Test("inspect's lines: each interstitial, and what its asset list answered — assets, empty, or why it cannot be read")
    func report() throws {
        let m = try #require(PlaylistParser.parseLenient(Self.playlist).playlist.media)
        let two = AssetList(assets: [.init(uri: "https://ads/a.m3u8", duration: 10), .init(uri: "https://ads/b.m3u8", duration: 15)])
        let lines = InterstitialsReport.text(m, lists: ["list.json": .success(two)])
        #expect(lines.first == "interstitials (2):")
        #expect(lines.contains("    asset list: 2 assets, 25 s: https://ads/a.m3u8 10 s, https://ads/b.m3u8 15 s"), "\(lines)")
        #expect(lines.contains("    plays 15 s of 25 s (X-PLAYOUT-LIMIT)"))
        #expect(
            InterstitialsReport.text(m, lists: ["list.json": .success(AssetList(assets: []))]).contains(
                "    asset list: empty (nothing plays; the primary resumes at once)"))
        #expect(
            InterstitialsReport.text(m, lists: ["list.json": .failure(AssetListError("has no ASSETS"))]).contains(
                "    asset list: has no ASSETS"))
    }
}
