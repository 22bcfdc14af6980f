import HLS
import Testing

/// A media playlist with `durations` starting at MSN `msn`, PDT tag on the first segment at `pdt` seconds since 1970 when given.
func playlist(_ durations: [Double], msn: Int = 0, pdt: Double? = nil, gaps: Set<Int> = []) -> MediaPlaylist {
    var body = pdt.map { "#EXT-X-PROGRAM-DATE-TIME:\(DateTime(seconds: $0).iso8601)\n" } ?? ""
    for (i, d) in durations.enumerated() {
        if gaps.contains(i) { body += "#EXT-X-GAP\n" }
        body += "#EXTINF:\(d),\ns\(msn + i).ts\n"
    }
    return parse("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(msn)\n" + body).mediaPlaylist
}

@Suite("Timeline math")
struct TimelineTests {
    @Test("start times and the segment holding a time")
    func startTimes() {
        let p = playlist([2, 2.5, 3])
        #expect(Timeline.startTimes(p) == [0, 2, 4.5])
        #expect(Timeline.segmentIndex(at: 0, in: p) == 0)
        #expect(Timeline.segmentIndex(at: 2.0, in: p) == 1)
        #expect(Timeline.segmentIndex(at: 4.49, in: p) == 1)
        #expect(Timeline.segmentIndex(at: 100, in: p) == 2)
        #expect(Timeline.segmentIndex(at: -1, in: p) == nil)
    }

    @Test("PDT ↔ playlist time, both ways")
    func pdtMap() throws {
        let p = playlist([2, 2, 2], pdt: 1_700_000_000)
        #expect(Timeline.programDateTime(at: 3.25, in: p) == DateTime(seconds: 1_700_000_003.25))
        #expect(Timeline.playlistTime(at: DateTime(seconds: 1_700_000_005.5), in: p) == 5.5)
        #expect(Timeline.playlistTime(at: DateTime(seconds: 1_700_000_006.0), in: p) == nil)
        #expect(Timeline.playlistTime(at: DateTime(seconds: 1_699_999_999), in: p) == nil)
    }

    @Test("a reload keeps the PDT an earlier playlist gave: tag slid out, same span; never across a discontinuity or over a tag")
    func carryPDT() {
        let first = playlist([2, 2, 2], msn: 10, pdt: 1_700_000_000)
        // The tag on msn 10 slid out: msn 11–12 keep their PDT, msn 13 extrapolates from them.
        let next = Timeline.carryingProgramDateTimes(playlist([2, 2, 2], msn: 11), from: first)
        #expect(next.segments.map(\.effectiveProgramDateTime) == [2, 4, 6].map { DateTime(seconds: 1_700_000_000 + $0) })
        #expect(next.segments.allSatisfy { $0.programDateTime == nil }, "tags are the server's: none is invented")
        // A discontinuity starts a span the old playlist did not date: it stays without PDT.
        let split = parse(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:12\n#EXTINF:2,\na.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2,\nb.ts\n"
        ).mediaPlaylist
        let carried = Timeline.carryingProgramDateTimes(split, from: first)
        #expect(carried.segments.map(\.effectiveProgramDateTime) == [DateTime(seconds: 1_700_000_004), nil])
        // A playlist with its own tags is left as it is; no old playlist, nothing to carry.
        let tagged = playlist([2, 2], msn: 11, pdt: 1_800_000_000)
        #expect(Timeline.carryingProgramDateTimes(tagged, from: first) == tagged)
        #expect(Timeline.carryingProgramDateTimes(playlist([2], msn: 11), from: nil).segments[0].effectiveProgramDateTime == nil)
    }

    @Test("alignment by media sequence")
    func alignMSN() {
        let a = playlist([2, 2, 2, 2], msn: 10)
        let b = playlist([2, 2], msn: 12)
        #expect(Timeline.alignmentByMediaSequence(reference: a, other: b) == 4)
        #expect(Timeline.alignmentByMediaSequence(reference: a, other: playlist([2], msn: 99)) == nil)
    }

    @Test("alignment by PDT, with different segment durations and a window offset")
    func alignPDT() {
        let a = playlist([2, 2, 2, 2], pdt: 1000)
        let b = playlist([3, 3, 3], pdt: 1003.5)
        // b's time 0 shows PDT 1003.5, which is a's time 3.5.
        #expect(Timeline.alignmentByProgramDateTime(reference: a, other: b) == 3.5)
        #expect(Timeline.alignmentByProgramDateTime(reference: a, other: playlist([2])) == nil)
        let w = Timeline.commonProgramDateTimeWindow(a, b, margin: 0.5)
        #expect(w?.start == DateTime(seconds: 1004) && w?.end == DateTime(seconds: 1007.5))
        #expect(Timeline.commonProgramDateTimeWindow(a, playlist([2], pdt: 5000)) == nil)
    }

    @Test("GAP ranges carry their PDT; separate runs stay separate")
    func gaps() {
        let p = playlist([2, 2, 2, 2, 2], msn: 5, pdt: 100, gaps: [0, 3, 4])
        let g = Timeline.gapRanges(p)
        #expect(g.map(\.firstMSN) == [5, 8] && g.map(\.lastMSN) == [5, 9])
        #expect(g[1].range == TimeRange(start: 6, end: 10) && g[1].programDateTime == DateTime(seconds: 106))
    }
}

@Suite("Live refresh health, after ExoPlayer's playlist tracker")
struct LiveRefreshTests {
    @Test("newer, unchanged, older, reset and stuck after 3.5 target durations")
    func outcomes() {
        var t = LiveRefreshTracker()
        #expect(t.update(playlist([6, 6, 6], msn: 10), at: 0) == .newer)
        #expect(t.update(playlist([6, 6, 6], msn: 10), at: 6) == .unchanged)
        #expect(t.update(playlist([6, 6, 6], msn: 11), at: 7) == .newer)
        #expect(t.update(playlist([6, 6, 6], msn: 10), at: 8) == .older)
        #expect(t.check(at: 7 + 6 * 3.5) == nil)
        #expect(t.check(at: 7 + 6 * 3.5 + 0.1) == .stuck(secondsWithoutChange: 21.1))
        #expect(t.update(playlist([6, 6], msn: 0), at: 40) == .reset(previousMediaSequence: 11, mediaSequence: 0))
    }

    @Test("a playlist that ended is never stuck, and more parts are newer")
    func endedAndParts() {
        var t = LiveRefreshTracker()
        var p = playlist([6, 6], msn: 1)
        _ = t.update(p, at: 0)
        p.endList = true
        #expect(t.update(p, at: 1) == .newer)
        #expect(t.check(at: 1000) == nil)
        var a = playlist([6], msn: 1)
        var b = a
        b.trailingParts = [Part(uri: "p", duration: 1, independent: true, byteRange: nil, gap: false, line: SourceLine(1))]
        a.endList = false
        #expect(LiveRefreshTracker.isNewer(b, than: a))
    }
}

@Suite("DateTime")
struct DateTimeTests {
    @Test("formats in UTC with milliseconds, microseconds when needed, and before 1970")
    func format() {
        #expect(DateTime(iso8601: "2026-11-22T01:02:03.456Z")?.iso8601 == "2026-11-22T01:02:03.456Z")
        #expect(DateTime(iso8601: "2025-05-16T13:33:27.966666Z")?.iso8601 == "2025-05-16T13:33:27.966666Z")
        #expect(DateTime(iso8601: "1969-12-31T23:59:59.500Z")?.microseconds == -500_000)
        #expect(DateTime(iso8601: "1969-12-31T23:59:59.500Z")?.iso8601 == "1969-12-31T23:59:59.500Z")
        #expect(DateTime(iso8601: "2024-02-29T00:00:00Z")?.iso8601 == "2024-02-29T00:00:00.000Z")
    }

    @Test(
        "rejects what is not a date",
        arguments: ["", "2026", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00Q", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+1"])
    func rejects(_ s: String) {
        #expect(DateTime(iso8601: s) == nil)
    }
}

@Suite("Strict mode")
struct StrictTests {
    @Test("stops at the first error and names its line")
    func strict() {
        do {
            _ = try PlaylistParser.parse(
                mediaText("#EXTINF:4,\na.ts\n#EXTINF:x,\nb.ts\n#EXT-X-KEY:METHOD=AES-128"), options: ParseOptions(strict: true))
            Issue.record("strict mode did not throw")
        } catch {
            #expect(error.diagnostic.line == 6)
            #expect(error.description.hasPrefix("line 6:"))
        }
    }

    @Test("a clean playlist passes strict mode")
    func clean() throws {
        let r = try PlaylistParser.parse(
            mediaText("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z\n#EXTINF:4,\na.ts"), options: ParseOptions(strict: true))
        #expect(r.mediaPlaylist.segments.count == 1)
    }
}

@Suite("Writer details")
struct WriterTests {
    @Test("decimals never use exponents and read back exactly", arguments: [0.000011, 1.1e-05, 10, 9.009, 2.002, 1e20, 0.1, 123456.789])
    func decimals(_ x: Double) {
        let s = decimal(x)
        #expect(!s.contains("e"))
        #expect(Double(s) == x)
    }
}

@Suite("Number reading")
struct NumberTests {
    @Test("EXTINF durations read exactly as strtod would, for many decimals")
    func exactDurations() {
        var rng = SystemRandomNumberGenerator()
        var body = ""
        var texts: [String] = []
        for _ in 0..<2000 {
            let whole = Int.random(in: 0...20, using: &rng)
            let fracDigits = Int.random(in: 0...9, using: &rng)
            var t = String(whole)
            if fracDigits > 0 { t += "." + (0..<fracDigits).map { _ in String(Int.random(in: 0...9, using: &rng)) }.joined() }
            texts.append(t)
            body += "#EXTINF:\(t),\ns.ts\n"
        }
        texts += ["0.000011", "12345678901234567.5", "9.009", "2.002", "0.1"]
        body +=
            "#EXTINF:0.000011,\ns.ts\n#EXTINF:12345678901234567.5,\ns.ts\n#EXTINF:9.009,\ns.ts\n#EXTINF:2.002,\ns.ts\n#EXTINF:0.1,\ns.ts\n"
        let r = parse(mediaText(body, target: 100))
        #expect(r.mediaPlaylist.segments.map(\.duration) == texts.map { Double($0)! })
    }
}

@Suite("Hostile numbers")
struct HostileNumberTests {
    @Test("absurd durations and targets never trap: dates saturate, values are reported")
    func absurd() {
        let huge = String(repeating: "9", count: 40)
        let r = parse(
            mediaText(
                "#EXT-X-PROGRAM-DATE-TIME:2000-01-01T00:00:00Z\n#EXTINF:\(huge),\na.ts\n#EXTINF:\(huge).5,\nb.ts\n#EXTINF:2,\nc.ts",
                target: 2))
        #expect(r.mediaPlaylist.segments.count == 3)
        #expect(r.mediaPlaylist.segments[2].effectiveProgramDateTime != nil)
        #expect(r.has(.error, "rounds above EXT-X-TARGETDURATION"))
        let t = parse("#EXTM3U\n#EXT-X-TARGETDURATION:\(huge).5\n#EXTINF:1,\na.ts\n")
        #expect(t.has(.error, "not a decimal-integer"))
        #expect(DateTime(seconds: .infinity).adding(seconds: 1e300).iso8601.hasSuffix("Z"))
        #expect(DateTime(seconds: -.infinity).milliseconds < 0)
        #expect(!PlaylistWriter.write(r.playlist).isEmpty)
    }
}
