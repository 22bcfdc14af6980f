import HLS
import Testing

/// Decimal-integers past 2^53 (DECISIONS.md, "Decimal-integers up to 2^53"): said in one line, never a trap in the
/// arithmetic the rules take on them.
@Suite("Numbers past 2^53: one error naming the bound, no crash")
struct LargeNumbersTests {
    static func media(_ text: String) -> (MediaPlaylist?, [String]) {
        let r = PlaylistParser.parseLenient(text)
        return (r.playlist.media, (r.errors + Lint.check(r.playlist)).map(\.message))
    }

    @Test("EXT-X-MEDIA-SEQUENCE at 2^63-1 with two segments: refused in one line; at 2^53 read, its segments numbered on")
    func mediaSequence() throws {
        let (m, errors) = Self.media(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n")
        #expect(m?.mediaSequence == 0 && m?.segments.map(\.mediaSequence) == [0, 1])
        #expect(
            errors.contains("#EXT-X-MEDIA-SEQUENCE:9223372036854775807 is past 2^53 (9007199254740992), more than any stream counts"),
            "\(errors)")
        let (at, _) = Self.media(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9007199254740992\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n")
        #expect(at?.segments.map(\.mediaSequence) == [9_007_199_254_740_992, 9_007_199_254_740_993])
        #expect(Self.media("#EXTM3U\n#EXT-X-VERSION:x\n").1.contains("EXT-X-VERSION:x is not a decimal-integer"))
    }

    @Test("EXT-X-TARGETDURATION at 2^63-1 beside HOLD-BACK, CAN-SKIP-UNTIL and parts: refused in one line, the lint runs")
    func targetDuration() throws {
        let (m, errors) = Self.media(
            "#EXTM3U\n#EXT-X-TARGETDURATION:9223372036854775807\n#EXT-X-SERVER-CONTROL:HOLD-BACK=3,CAN-SKIP-UNTIL=12\n#EXT-X-PART-INF:PART-TARGET=1\n#EXTINF:2,\na.ts\n"
        )
        #expect(m?.targetDuration == nil)
        #expect(errors.contains { $0.hasPrefix("EXT-X-TARGETDURATION:9223372036854775807 is past 2^53") }, "\(errors)")
        // At the bound itself: read, and the lint's three and six target durations stay in 64 bits.
        let (big, said) = Self.media(
            "#EXTM3U\n#EXT-X-TARGETDURATION:9007199254740992\n#EXT-X-SERVER-CONTROL:HOLD-BACK=3,CAN-SKIP-UNTIL=12\n#EXTINF:2,\na.ts\n")
        #expect(big?.targetDuration == 9_007_199_254_740_992)
        #expect(said.contains { $0.contains("HOLD-BACK 3 is below three target durations (27021597764222976 s)") }, "\(said)")
        let a = try #require(big)
        var b = a
        b.mediaSequence += 5
        #expect(LiveContinuity.check(previous: a, next: b, elapsed: 1).map(\.rule) == [.msnSkipped, .windowShort])
        #expect(Self.media("#EXTM3U\n#EXT-X-BYTERANGE:99999999999999999999@1\n").1.isEmpty == false)
    }
}
