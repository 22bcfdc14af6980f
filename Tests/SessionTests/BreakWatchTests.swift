import HLS
import LoaderEvents
@testable import Session
import Testing

/// `BreakWatch`: the breaks a playlist announces, entered and left by the playhead once each (docs/EVENTS.md).
@Suite("Breaks against the playhead: entered and left once, by segment or by PDT, the same break across reloads")
struct BreakWatchTests {
    static func media(_ text: String) throws -> MediaPlaylist {
        try #require(PlaylistParser.parseLenient(text).playlist.media)
    }

    /// A live window from `msn` of 2 s segments (PDT from 00:00:00 at MSN 100): a CUE-OUT break at MSN 102–103 with its
    /// EXT-X-DATERANGE, listed as a packager slides it.
    static func window(from msn: Int, count: Int = 6) throws -> MediaPlaylist {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(msn)\n"
        for m in msn..<(msn + count) {
            let s = (m - 100) * 2
            switch m {
            case 102:
                t += "#EXT-X-CUE-OUT:4\n"
                t += "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:04.000Z\",PLANNED-DURATION=4,SCTE35-OUT=0xFC00\n"
            case 103: t += "#EXT-X-CUE-OUT-CONT:2/4\n"
            case 104:
                t += "#EXT-X-CUE-IN\n"
                t +=
                    "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:04.000Z\",END-DATE=\"2026-01-01T00:00:08.000Z\",SCTE35-IN=0xFC00\n"
            default: break
            }
            t += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:\(s < 10 ? "0" : "")\(s).000Z\n#EXTINF:2,\ns\(m).ts\n"
        }
        return try media(t)
    }

    static func pdt(_ s: Double) -> DateTime { DateTime(iso8601: "2026-01-01T00:00:00.000Z")!.adding(seconds: s) }

    @Test("the playhead through a break: enter at its first segment, leave at the CUE-IN's, each once; by PDT for the date range")
    func throughABreak() throws {
        var w = BreakWatch()
        w.update(try Self.window(from: 100))
        #expect(w.tracked.map(\.cue.key) == ["cue-out@102", "ad"])
        #expect(w.step(at: StreamPoint(msn: 101, offset: 1.9), pdt: Self.pdt(3.9), t: 1).isEmpty)
        let enter = w.step(at: StreamPoint(msn: 102, offset: 0.05), pdt: Self.pdt(4.05), t: 2)
        #expect(enter.map(\.key) == ["entered cue-out@102", "entered ad"], "\(enter)")
        #expect(w.step(at: StreamPoint(msn: 103, offset: 1), pdt: Self.pdt(7), t: 5).isEmpty, "inside: nothing new")
        // The window slides past the CUE-OUT: the break it joins at MSN 103 is the one already known, not a new one.
        w.update(try Self.window(from: 103))
        #expect(w.tracked.map(\.cue.key) == ["cue-out@102", "ad"], "\(w.tracked.map(\.cue.key))")
        let leave = w.step(at: StreamPoint(msn: 104, offset: 0.1), pdt: Self.pdt(8.1), t: 6.1)
        #expect(leave.map(\.key) == ["left cue-out@102 after 4.1", "left ad after 4.1"], "\(leave)")
        // Later reloads and samples report neither again.
        w.update(try Self.window(from: 104))
        #expect(w.step(at: StreamPoint(msn: 102, offset: 0.5), pdt: Self.pdt(4.5), t: 7).isEmpty)
        #expect(w.tracked.allSatisfy { $0.done && !$0.missed })
        // A player that starts past a break: it is passed, not played, and never said.
        var late = BreakWatch()
        late.update(try Self.window(from: 100))
        #expect(late.step(at: StreamPoint(msn: 104, offset: 1), pdt: Self.pdt(9), t: 1).isEmpty)
        #expect(late.tracked.allSatisfy { $0.done && $0.missed }, "\(late.tracked)")
    }

    @Test("a seek back before a break entered is not leaving it; a break with no end yet is left only once one is listed")
    func seekBackAndOpenEnd() throws {
        var w = BreakWatch()
        w.update(try Self.window(from: 100, count: 4)) // MSN 100–103: the break's end not listed yet
        #expect(w.tracked.allSatisfy { !$0.cue.closed })
        _ = w.step(at: StreamPoint(msn: 102, offset: 1), pdt: Self.pdt(5), t: 1)
        #expect(w.step(at: StreamPoint(msn: 101, offset: 0), pdt: Self.pdt(2), t: 2).isEmpty, "back before it: not left")
        #expect(w.step(at: StreamPoint(msn: 104, offset: 0), pdt: Self.pdt(8), t: 3).isEmpty, "no end listed: not left")
        w.update(try Self.window(from: 101, count: 5))
        #expect(
            w.step(at: StreamPoint(msn: 104, offset: 0.2), pdt: Self.pdt(8.2), t: 3.2).map(\.key) == [
                "left cue-out@102 after 2.2", "left ad after 2.2",
            ])
    }
}

/// Date ranges that are not breaks (any CLASS): followed as breaks are, apart from them (RFC 8216bis §4.4.5.1).
@Suite("Date ranges of any CLASS against the playhead: chapters entered and left, END-ON-NEXT ended by the next of its CLASS")
struct DateRangeWatchTests {
    /// VOD, 2 s segments, PDT from 00:00:00: chapters at 0 s and 6 s (END-ON-NEXT), an event 2–4 s (DURATION), a SCTE-35 break.
    static let playlist = """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="c1",CLASS="com.example.chapter",START-DATE="2026-01-01T00:00:00.000Z",END-ON-NEXT=YES,X-TITLE="one"
        #EXT-X-DATERANGE:ID="goal",START-DATE="2026-01-01T00:00:02.000Z",DURATION=2
        #EXT-X-DATERANGE:ID="c2",CLASS="com.example.chapter",START-DATE="2026-01-01T00:00:06.000Z",END-ON-NEXT=YES
        #EXT-X-DATERANGE:ID="ad",START-DATE="2026-01-01T00:00:04.000Z",DURATION=2,SCTE35-OUT=0xFC00
        #EXTINF:2,
        s0.ts
        #EXTINF:2,
        s1.ts
        #EXTINF:2,
        s2.ts
        #EXTINF:2,
        s3.ts
        #EXTINF:2,
        s4.ts
        #EXT-X-ENDLIST

        """

    @Test("Cues.dateRanges: every date range without SCTE-35, with its CLASS; END-ON-NEXT ends at the next of its CLASS")
    func ranges() throws {
        let m = try BreakWatchTests.media(Self.playlist)
        let r = Cues.dateRanges(in: m)
        #expect(r.map(\.key) == ["c1", "goal", "c2"])
        #expect(r.allSatisfy { !$0.isBreak } && Cues.breaks(in: m).map(\.key) == ["ad"])
        #expect(r.map(\.classID) == ["com.example.chapter", nil, "com.example.chapter"])
        #expect(r[0].closed && r[0].actual == 6, "c1 ends where c2 starts: \(r[0])")
        #expect(r[1].closed && r[1].actual == 2)
        #expect(!r[2].closed, "the last chapter has no next: open")
    }

    @Test("the playhead through the chapters and the event: each entered and left once, beside the break")
    func watch() throws {
        var w = BreakWatch()
        w.update(try BreakWatchTests.media(Self.playlist))
        #expect(w.breaks.map(\.cue.key) == ["ad"])
        let p = { (s: Double) in StreamPoint(msn: Int(s / 2), offset: s.truncatingRemainder(dividingBy: 2)) }
        var said: [String] = []
        for (i, s) in [0.1, 1, 2.1, 3, 4.1, 5, 6.1, 7, 8.5].enumerated() {
            said += w.step(at: p(s), pdt: BreakWatchTests.pdt(s), t: Double(i)).map(\.key)
        }
        #expect(
            said == [
                "entered c1", "entered goal", "left goal after 2.0", "entered ad", "left ad after 2.0", "left c1 after 6.0", "entered c2",
            ], "\(said)")
    }
}

extension BreakFact {
    /// "entered KEY" or "left KEY after S" (one decimal).
    var key: String {
        switch self {
        case .entered(let b): return "entered \(b.key)"
        case .left(let b, let s): return "left \(b.key) after \((s * 10).rounded() / 10)"
        }
    }
}

/// Interstitials on the primary's timeline (RFC 8216bis Appendix D): points, reached by playback, not ranges entered.
@Suite("Interstitials against the playhead: a point reached once; one behind the start, and a pre-roll, missed; a post-roll at the end")
struct InterstitialWatchTests {
    @Test("a mid-roll is reached (entered and left at once) when the playhead comes to it; a pre-roll is behind it from the start")
    func points() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="pre",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:06.000Z",CUE="PRE",X-ASSET-URI="a.m3u8"
            #EXTINF:2,
            s0.ts
            #EXTINF:2,
            s1.ts
            #EXT-X-DATERANGE:ID="mid",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:04.000Z",PLANNED-DURATION=30,X-ASSET-URI="a.m3u8"
            #EXTINF:2,
            s2.ts
            #EXT-X-DATERANGE:ID="post",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:00.000Z",CUE="POST",X-ASSET-URI="a.m3u8"
            #EXTINF:2,
            s3.ts
            #EXT-X-ENDLIST
            """
        let m = try BreakWatchTests.media(text)
        let ranges = Cues.dateRanges(in: m)
        // PRE at the start, POST at the end (8 s), whatever their START-DATE; each a point (no time of the primary's).
        #expect(ranges.map(\.start) == [0, 4, 8] && ranges.allSatisfy { $0.closed && $0.actual == 0 }, "\(ranges)")
        var w = BreakWatch()
        w.update(m)
        func pdt(_ s: Double) -> DateTime { DateTime(microseconds: 1_767_225_600_000_000 + Int64(s * 1_000_000)) }
        #expect(w.step(at: StreamPoint(msn: 0, offset: 0.1), pdt: pdt(0.1), t: 0).isEmpty, "the pre-roll is behind at the first look")
        #expect(w.step(at: StreamPoint(msn: 1, offset: 1.9), pdt: pdt(3.9), t: 4).isEmpty)
        let reached = w.step(at: StreamPoint(msn: 2, offset: 0.1), pdt: pdt(4.1), t: 4.2)
        #expect(reached == [.entered(ranges[1]), .left(ranges[1], seconds: 0)], "\(reached)")
        #expect(w.step(at: StreamPoint(msn: 2, offset: 1), pdt: pdt(5), t: 5).isEmpty, "once")
        let end = w.step(at: StreamPoint(msn: 3, offset: 2), pdt: pdt(8), t: 8)
        #expect(end.map { if case .entered(let c) = $0 { c.key } else { "" } }.contains("post"))
        #expect(w.tracked.first { $0.cue.key == "pre" }?.missed == true)
    }
}

/// The reload rules as the Session applies them (docs/VALIDATION.md).
@Suite("Reload rules in the session: each playlist read against the last of its rung, said once")
struct ReloadRuleTests {
    static func event(_ url: String, from msn: Int, count: Int = 3, renamed: Bool = false) throws -> SessionEvent {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(msn)\n"
        for m in msn..<(msn + count) { t += "#EXTINF:2,\ns\(m).ts\(renamed ? "?v=2" : "")\n" }
        let m = try #require(PlaylistParser.parseLenient(t).playlist.media)
        return .loader(.playlist(PlaylistEvent(url: url, rung: 0, rendition: nil, playlist: m, received: 0)))
    }

    static func violations(_ f: [SessionFact]) -> [String] {
        f.compactMap { if case .violation(_, _, let v) = $0 { return v.rule.rawValue } else { return nil } }
    }

    @Test("blocking reloads are one playlist whatever their directives; another URL is another server; each finding once")
    func directivesAndPathways() throws {
        var s = SessionState(url: "http://o/live/index.m3u8")
        #expect(Self.violations(s.apply(try Self.event("http://o/live/index.m3u8?_HLS_msn=10&_HLS_part=0", from: 10), at: 1)).isEmpty)
        let renamed = s.apply(try Self.event("http://o/live/index.m3u8?_HLS_msn=11&_HLS_part=1", from: 11, renamed: true), at: 2)
        #expect(Self.violations(renamed) == ["uri-changed"], "\(renamed)")
        #expect(
            s.violationCount == 1 && s.log.last?.text.contains("(uri-changed, RFC 8216bis §6.2.1)") == true, "\(s.log.last?.text ?? "")")
        // The same playlist again: nothing more. Another pathway's copy (another URL) is not compared.
        #expect(Self.violations(s.apply(try Self.event("http://o/live/index.m3u8?_HLS_msn=11", from: 11, renamed: true), at: 3)).isEmpty)
        #expect(Self.violations(s.apply(try Self.event("http://cdn-b/live/index.m3u8", from: 12), at: 4)).isEmpty)
        #expect(Self.violations(s.apply(try Self.event("http://cdn-b/live/index.m3u8", from: 9), at: 5)) == ["msn-backwards"])
    }

    @Test("the player's reloads: segments the media sequence moved past unlisted, a window cut under three target durations")
    func removals() throws {
        var s = SessionState(url: "http://o/live/index.m3u8")
        let url = "http://o/live/index.m3u8"
        #expect(Self.violations(s.apply(try Self.event(url, from: 10), at: 1)).isEmpty)
        // 2 s later msn 13–14 were never listed (10–12 were, 15–17 are): a segment stays while 6 s follow it.
        let skipped = s.apply(try Self.event(url, from: 15), at: 3)
        #expect(Self.violations(skipped) == ["msn-skipped"], "\(skipped)")
        #expect(s.log.last?.text.contains("msn 13–14 (2 segments) were never listed") == true, "\(s.log.last?.text ?? "")")
        // 20 s between two reads (a paused player): the server may have listed them meanwhile.
        #expect(Self.violations(s.apply(try Self.event(url, from: 30), at: 23)).isEmpty)
        let short = s.apply(try Self.event(url, from: 31, count: 2), at: 25)
        #expect(Self.violations(short) == ["window-short"], "\(short)")
        #expect(Self.violations(s.apply(try Self.event(url, from: 32, count: 2), at: 27)).isEmpty, "said once per playlist")
    }

    /// Rung `rung`'s live playlist from `msn`, three 2 s segments, the first dated `pdt` seconds after 10:00:00.
    static func dated(rung: Int, from msn: Int, pdt: Int) throws -> SessionEvent {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(msn)\n"
        t += "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T10:00:\(pdt < 10 ? "0" : "")\(pdt).000Z\n"
        for m in msn..<(msn + 3) { t += "#EXTINF:2,\ns\(m).ts\n" }
        let m = try #require(PlaylistParser.parseLenient(t).playlist.media)
        return .loader(.playlist(PlaylistEvent(url: "http://o/v\(rung)/index.m3u8", rung: rung, rendition: nil, playlist: m, received: 0)))
    }

    @Test("a playlist unchanged past 1.5 target durations since its version first came: playlist-stale, once per version")
    func stale() throws {
        var s = SessionState(url: "http://o/live/index.m3u8")
        let url = "http://o/live/index.m3u8"
        #expect(Self.violations(s.apply(try Self.event(url, from: 10), at: 1)).isEmpty)
        #expect(Self.violations(s.apply(try Self.event(url, from: 10), at: 3.9)).isEmpty, "2.9 s: within 1.5 target durations (3 s)")
        let stale = s.apply(try Self.event(url, from: 10), at: 4.5)
        #expect(Self.violations(stale) == ["playlist-stale"], "\(stale)")
        #expect(s.log.last?.text.contains("(playlist-stale, RFC 8216bis §6.3.4)") == true, "\(s.log.last?.text ?? "")")
        #expect(Self.violations(s.apply(try Self.event(url, from: 10), at: 6)).isEmpty, "once per version")
        #expect(Self.violations(s.apply(try Self.event(url, from: 11), at: 7)).isEmpty)
        // A replay's playlists are the recording's versions, answered when it asks: not judged.
        var settings = SessionSettings()
        settings.judgesVersions = false
        var replay = SessionState(url: url, settings: settings)
        for t in [1.0, 4.5, 9] { #expect(Self.violations(replay.apply(try Self.event(url, from: 10), at: t)).isEmpty) }
    }

    @Test("two variants whose ends lie further apart by PDT than a target duration: variants-drift, once for the pair")
    func drift() throws {
        var s = SessionState(url: "http://o/live/master.m3u8")
        #expect(Self.violations(s.apply(try Self.dated(rung: 0, from: 10, pdt: 10), at: 1)).isEmpty)
        // Rung 1 ends 10 s before rung 0 (10:00:06 against 10:00:16), read at the same moment: more than 2 s + 0.5.
        let apart = s.apply(try Self.dated(rung: 1, from: 5, pdt: 0), at: 1)
        #expect(Self.violations(apart) == ["variants-drift"], "\(apart)")
        #expect(s.violations.last?.finding.message.contains("ends 10 s before") == true, "\(s.violations.last?.finding.message ?? "")")
        #expect(Self.violations(s.apply(try Self.dated(rung: 0, from: 11, pdt: 12), at: 3)).isEmpty, "said once for the pair")
        // Within a target duration: nothing.
        var near = SessionState(url: "http://o/live/master.m3u8")
        _ = near.apply(try Self.dated(rung: 0, from: 10, pdt: 10), at: 1)
        #expect(Self.violations(near.apply(try Self.dated(rung: 1, from: 10, pdt: 9), at: 1)).isEmpty)
    }
}
