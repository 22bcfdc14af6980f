import HLS
import Testing

/// The reload rules of a live media playlist (RFC 8216bis §6.2.1, §4.4.3.3): what one reload may not change of the last.
@Suite("Live reloads: what a server may not change between two reloads of a media playlist")
struct LiveContinuityTests {
    /// A live window of 2 s segments from `msn`, dated from 00:00:00 at MSN 0; `edit` changes a segment's lines.
    static func window(_ msn: Int, count: Int = 4, dseq: Int = 0, endList: Bool = false, edit: (Int) -> String? = { _ in nil }) throws
        -> MediaPlaylist
    {
        var t = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(msn)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(dseq)\n"
        for m in msn..<(msn + count) {
            t += edit(m) ?? "#EXT-X-PROGRAM-DATE-TIME:\(pdt(Double(m) * 2))\n#EXTINF:2,\ns\(m).ts\n"
        }
        if endList { t += "#EXT-X-ENDLIST\n" }
        return try #require(PlaylistParser.parseLenient(t).playlist.media)
    }

    static func pdt(_ s: Double) -> String { DateTime(seconds: 1_700_000_000 + s).iso8601 }

    @Test("a window that slides by the rules: nothing to say")
    func clean() throws {
        #expect(LiveContinuity.check(previous: try Self.window(10), next: try Self.window(12)).isEmpty)
        #expect(LiveContinuity.check(previous: try Self.window(10), next: try Self.window(10)).isEmpty, "unchanged")
        #expect(LiveContinuity.check(previous: try Self.window(10), next: try Self.window(11, endList: true)).isEmpty, "ENDLIST added")
    }

    @Test("each rule on its fault, one finding per rule with its first segment and how many")
    func faults() throws {
        let a = try Self.window(10)
        func rules(_ b: MediaPlaylist) -> [String] {
            LiveContinuity.check(previous: a, next: b).map { "\($0.rule.rawValue) \($0.msn ?? -1)" }
        }
        let renamed = try Self.window(11) { m in "#EXT-X-PROGRAM-DATE-TIME:\(Self.pdt(Double(m) * 2))\n#EXTINF:2,\ns\(m).ts?v=2\n" }
        let r = LiveContinuity.check(previous: a, next: renamed)
        #expect(r.map(\.rule) == [.uriChanged] && r[0].msn == 11 && r[0].severity == .error && r[0].section == "RFC 8216bis §6.2.1")
        #expect(r[0].message == "3 segments (msn 11–13), msn 11 was s11.ts, now s11.ts?v=2", "\(r[0].message)")
        let shorter = try Self.window(11) { m in m == 12 ? "#EXT-X-PROGRAM-DATE-TIME:\(Self.pdt(24))\n#EXTINF:1.5,\ns12.ts\n" : nil }
        #expect(rules(shorter) == ["duration-changed 12"], "\(rules(shorter))")
        let cut = try Self.window(11) { m in
            m == 13 ? "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:\(Self.pdt(26))\n#EXTINF:2,\ns13.ts\n" : nil
        }
        #expect(rules(cut) == ["discontinuity-changed 13", "discontinuity-sequence 13"], "\(rules(cut))")
        #expect(rules(try Self.window(11, dseq: 1)) == ["discontinuity-sequence 11"])
        let redated = try Self.window(11) { m in m == 12 ? "#EXT-X-PROGRAM-DATE-TIME:\(Self.pdt(30))\n#EXTINF:2,\ns12.ts\n" : nil }
        #expect(rules(redated) == ["pdt-changed 12"], "\(rules(redated))")
        #expect(rules(try Self.window(8)) == ["msn-backwards 8"])
        let restarted = LiveContinuity.check(previous: a, next: try Self.window(0))
        #expect(
            restarted.first?.message == "EXT-X-MEDIA-SEQUENCE went back from 10 to 0 (a new numbering: the stream restarted without ending)"
        )
        #expect(LiveContinuity.check(previous: try Self.window(10, endList: true), next: a).map(\.rule) == [.endlistRemoved])
        // A date range listed again with another value for an attribute it had.
        let range = { (planned: Int) in
            try Self.window(11) { m in
                m == 12
                    ? "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"\(Self.pdt(24))\",PLANNED-DURATION=\(planned)\n#EXT-X-PROGRAM-DATE-TIME:\(Self.pdt(24))\n#EXTINF:2,\ns12.ts\n"
                    : nil
            }
        }
        let d = LiveContinuity.check(previous: try range(30), next: try range(15))
        #expect(d.map(\.rule) == [.dateRangeChanged] && d[0].message == "EXT-X-DATERANGE ID=\"ad\" had PLANNED-DURATION=30, now 15", "\(d)")
        #expect(LiveContinuity.check(previous: try range(30), next: try range(30)).isEmpty)
        // A new segment dated 5 s past where the one before it ends, no discontinuity between them.
        let jump = try Self.window(11) { m in m == 14 ? "#EXT-X-PROGRAM-DATE-TIME:\(Self.pdt(33))\n#EXTINF:2,\ns14.ts\n" : nil }
        let j = LiveContinuity.check(previous: a, next: jump)
        #expect(j.map(\.rule) == [.pdtJump] && j[0].severity == .warning && j[0].msn == 14, "\(j)")
    }
}
