import HLS
import LoaderCore
import Testing
import Foundation

@Suite("The segment in progress, part by part (RFC 8216bis §4.4.4.9, §4.4.5.3, §6.2.5.2)")
struct PartCursorTests {
    /// A live LL playlist: segments 100…102 (102 with its parts), then `trailing` parts of 103 and, with `hint`, the next.
    func playlist(trailing: Int, hint: Bool = true, byteRange: Bool = false) -> MediaPlaylist {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4", "#EXT-X-PART-INF:PART-TARGET=1",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3", "#EXT-X-MEDIA-SEQUENCE:100",
            "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
        ]
        for n in 100..<103 {
            if n == 102 { for i in 0..<4 { lines.append("#EXT-X-PART:DURATION=1,URI=\"s\(n).\(i).ts\"") } }
            lines += ["#EXTINF:4,", "s\(n).ts"]
        }
        for i in 0..<trailing {
            lines.append(
                byteRange
                    ? "#EXT-X-PART:DURATION=1,URI=\"s103.ts\",BYTERANGE=1000@\(i * 1000)" : "#EXT-X-PART:DURATION=1,URI=\"s103.\(i).ts\"")
        }
        if hint {
            lines.append(
                byteRange
                    ? "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s103.ts\",BYTERANGE-START=\(trailing * 1000)"
                    : "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s103.\(trailing).ts\"")
        }
        return PlaylistParser.parseLenient(lines.joined(separator: "\n") + "\n").playlist.media!
    }

    @Test("listed parts, then the hinted one, then a blocking reload; a complete segment ends; dropped parts are lost")
    func steps() {
        let m = playlist(trailing: 2)
        #expect(PartCursor.next(msn: 103, part: 0, in: m) == .fetch(uri: "s103.0.ts", range: nil, hinted: false))
        #expect(PartCursor.next(msn: 103, part: 2, in: m) == .fetch(uri: "s103.2.ts", range: nil, hinted: true))
        #expect(PartCursor.next(msn: 103, part: 3, in: m) == .wait)
        #expect(PartCursor.next(msn: 104, part: 0, in: m) == .wait)
        #expect(PartCursor.next(msn: 103, part: 2, in: playlist(trailing: 2, hint: false)) == .wait)
        #expect(PartCursor.next(msn: 102, part: 3, in: m) == .fetch(uri: "s102.3.ts", range: nil, hinted: false))
        #expect(PartCursor.next(msn: 102, part: 4, in: m) == .complete)
        // Segment 101 is listed without parts (§6.2.2 drops them three target durations on); 90 left the window.
        #expect(PartCursor.next(msn: 101, part: 0, in: m) == .lost)
        #expect(PartCursor.next(msn: 90, part: 0, in: m) == .lost)
    }

    @Test("the parts listed after the one being read, to read together: never the hinted one, at most the limit")
    func listedAhead() {
        let m = playlist(trailing: 3)
        #expect(PartCursor.listed(msn: 103, after: 0, in: m, limit: 4).map(\.uri) == ["s103.1.ts", "s103.2.ts"])
        #expect(PartCursor.listed(msn: 103, after: 0, in: m, limit: 1).map(\.part) == [1])
        #expect(PartCursor.listed(msn: 103, after: 2, in: m, limit: 4).isEmpty, "part 3 is only hinted")
        #expect(PartCursor.listed(msn: 102, after: 1, in: m, limit: 4).map(\.part) == [2, 3], "a complete segment's parts end it")
        #expect(PartCursor.listed(msn: 104, after: 0, in: m, limit: 4).isEmpty)
        let ranged = playlist(trailing: 2, byteRange: true)
        #expect(PartCursor.listed(msn: 103, after: 0, in: ranged, limit: 4) == [.init(part: 1, uri: "s103.ts", range: "bytes=1000-1999")])
    }

    @Test("byte-range parts and an open-ended hint are asked for by Range")
    func byteRanges() {
        let m = playlist(trailing: 2, byteRange: true)
        #expect(PartCursor.next(msn: 103, part: 1, in: m) == .fetch(uri: "s103.ts", range: "bytes=1000-1999", hinted: false))
        #expect(PartCursor.next(msn: 103, part: 2, in: m) == .fetch(uri: "s103.ts", range: "bytes=2000-", hinted: true))
    }

    @Test("the segment in progress: its parts so far, where it starts; listed as a segment only once it has a part")
    func inProgress() throws {
        let m = playlist(trailing: 3)
        let s = try #require(m.segmentInProgress)
        #expect(s.mediaSequence == 103 && s.duration == 3 && s.parts.count == 3)
        #expect(s.effectiveProgramDateTime == DateTime(iso8601: "2026-01-01T00:00:12Z"))
        let listed = m.withSegmentInProgress
        #expect(listed.segments.last?.mediaSequence == 103 && listed.trailingParts.isEmpty && listed.totalDuration == 15)
        // Only hinted: in progress (the player may be given it), but no segment for the session yet.
        let hinted = playlist(trailing: 0)
        #expect(hinted.segmentInProgress?.duration == 0 && hinted.withSegmentInProgress.segments.count == 3)
        #expect(playlist(trailing: 0, hint: false).segmentInProgress == nil)
        // After a discontinuity its date is its own tag before its parts (RFC 8216bis §4.4.4.6), else unknown.
        let dated = PlaylistParser.parseLenient(
            PlaylistWriter.write(Playlist(body: .media(m))).replacingOccurrences(
                of: "#EXT-X-PART:DURATION=1,URI=\"s103.0.ts\"",
                with: "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z\n#EXT-X-PART:DURATION=1,URI=\"s103.0.ts\"")
        ).playlist.media!
        #expect(
            dated.trailingDiscontinuity && dated.segmentInProgress?.effectiveProgramDateTime == DateTime(iso8601: "2026-01-01T01:00:00Z"))
        #expect(PlaylistWriter.write(Playlist(body: .media(dated))).contains("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z"))
        var undated = dated
        undated.trailingProgramDateTime = nil
        #expect(undated.segmentInProgress?.effectiveProgramDateTime == nil)
        var ended = m
        ended.endList = true
        #expect(ended.segmentInProgress == nil && !ended.offersParts && m.offersParts)
    }

    @Test("a player given the segment in progress blocks only once it asked for it; a part wait carries _HLS_part")
    func directives() {
        let m = playlist(trailing: 2)
        #expect(DeliveryDirectives.choose(held: m, age: 0, playerAt: 102, growing: true).msn == nil)
        #expect(DeliveryDirectives.choose(held: m, age: 0, playerAt: 103, growing: true).msn == 103)
        #expect(DeliveryDirectives.choose(held: m, age: 0, playerAt: 102).msn == 103)
        #expect(DeliveryDirectives(msn: 103, part: 2).applied(to: "https://o/i.m3u8") == "https://o/i.m3u8?_HLS_msn=103&_HLS_part=2")
        #expect(DeliveryDirectives(part: 2).applied(to: "https://o/i.m3u8") == "https://o/i.m3u8")
        // §6.2.5.2: what an answer must hold — the part asked for or a later one, or the segment.
        #expect(DeliveryDirectives(msn: 103, part: 1).answered(by: m))
        #expect(!DeliveryDirectives(msn: 103, part: 2).answered(by: m))
        #expect(DeliveryDirectives(msn: 102, part: 9).answered(by: m))
        #expect(!DeliveryDirectives(msn: 103).answered(by: m) && DeliveryDirectives(msn: 102).answered(by: m))
        #expect(DeliveryDirectives().answered(by: m))
    }
}
