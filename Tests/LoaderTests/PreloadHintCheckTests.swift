import HLS
import LoaderCore
import Testing

@Suite("A preload hint that never came true (RFC 8216bis §4.4.5.3)")
struct PreloadHintCheckTests {
    /// An LL playlist: segments 10…`last`, `trailing` parts of the next one, a PART hint `hint`.
    func playlist(last: Int, trailing: [String], hint: String?, byteRangeHint: Int? = nil) -> MediaPlaylist {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4", "#EXT-X-PART-INF:PART-TARGET=1",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3", "#EXT-X-MEDIA-SEQUENCE:10",
        ]
        for n in 10...last {
            if n == last { lines += (0..<4).map { "#EXT-X-PART:DURATION=1,URI=\"s\(n).p\($0).ts\"" } }
            lines += ["#EXTINF:4,", "s\(n).ts"]
        }
        lines += trailing.map { "#EXT-X-PART:DURATION=1,URI=\"\($0)\"" }
        if let hint {
            lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(hint)\"" + (byteRangeHint.map { ",BYTERANGE-START=\($0)" } ?? ""))
        }
        return PlaylistParser.parseLenient(lines.joined(separator: "\n") + "\n").playlist.media!
    }

    @Test("the hinted part listed next: fine; not reached yet: no verdict")
    func cameTrue() {
        let held = playlist(last: 12, trailing: ["s13.p0.ts"], hint: "s13.p1.ts")
        #expect(
            PreloadHintCheck.missed(held: held, later: playlist(last: 12, trailing: ["s13.p0.ts", "s13.p1.ts"], hint: "s13.p2.ts")) == nil)
        #expect(
            PreloadHintCheck.missed(held: held, later: playlist(last: 13, trailing: [], hint: "s14.p0.ts")) == nil, "listed on the segment")
        #expect(PreloadHintCheck.missed(held: held, later: held) == nil, "the same playlist has not moved past it")
        #expect(PreloadHintCheck.missed(held: playlist(last: 12, trailing: [], hint: nil), later: held) == nil, "no hint")
    }

    @Test("moved past without listing it: the hint, the segment and the part it was for")
    func missed() throws {
        let held = playlist(last: 12, trailing: ["s13.p0.ts"], hint: "s13.p1.never.ts")
        let m = try #require(
            PreloadHintCheck.missed(held: held, later: playlist(last: 12, trailing: ["s13.p0.ts", "s13.p1.ts"], hint: nil)))
        #expect(m.hint.uri == "s13.p1.never.ts" && m.msn == 13 && m.part == 1)
        #expect(PreloadHintCheck.missed(held: held, later: playlist(last: 13, trailing: [], hint: nil)) != nil, "its segment complete")
        // Read long after, when the hinted segment's parts have left the playlist: no verdict.
        #expect(PreloadHintCheck.missed(held: held, later: playlist(last: 14, trailing: [], hint: nil)) == nil, "its parts are gone")
        // A hint before any trailing part is for part 0 of the next segment.
        let fresh = playlist(last: 12, trailing: [], hint: "elsewhere.ts")
        #expect(PreloadHintCheck.missed(held: fresh, later: playlist(last: 12, trailing: ["s13.p0.ts"], hint: nil))?.part == 0)
    }
}
