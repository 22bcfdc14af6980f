import HLS
import Testing
import Foundation

/// A well-formed LL-HLS media playlist (4 s segments, 1 s parts), with `edit` applied to its lines.
private func llPlaylist(_ edit: (inout [String]) -> Void = { _ in }) -> String {
    var lines = [
        "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:4",
        "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24", "#EXT-X-PART-INF:PART-TARGET=1.0",
        "#EXT-X-MEDIA-SEQUENCE:100", "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00Z",
    ]
    for msn in 100..<104 {
        if msn >= 102 {
            for i in 0..<4 { lines.append("#EXT-X-PART:DURATION=1.0,URI=\"p\(msn).\(i).ts\"\(i == 0 ? ",INDEPENDENT=YES" : "")") }
        }
        lines += ["#EXTINF:4.0,", "s\(msn).ts"]
    }
    lines += [
        "#EXT-X-PART:DURATION=1.0,URI=\"p104.0.ts\",INDEPENDENT=YES", "#EXT-X-PART:DURATION=1.0,URI=\"p104.1.ts\"",
        "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"p104.2.ts\"", "#EXT-X-RENDITION-REPORT:URI=\"../v2/index.m3u8\",LAST-MSN=104,LAST-PART=1",
    ]
    edit(&lines)
    return lines.joined(separator: "\n") + "\n"
}

private func replacing(_ old: String, _ new: String) -> (inout [String]) -> Void {
    { lines in lines = lines.map { $0 == old ? new : $0 } }
}

@Suite("Lint: the low-latency rules of RFC 8216bis")
struct LowLatencyLintTests {
    @Test("a well-formed LL playlist draws no finding")
    func clean() {
        let r = parse(llPlaylist())
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics.map(\.message))")
    }

    @Test("PART-HOLD-BACK: REQUIRED with parts, MUST be twice the part target, SHOULD be three times (§4.4.3.8)")
    func partHoldBack() {
        let none = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24",
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=24")))
        #expect(none.has(.error, "EXT-X-PART-INF without PART-HOLD-BACK"))
        let short = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24",
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=2.5,CAN-SKIP-UNTIL=24")))
        #expect(short.has(.warning, "PART-HOLD-BACK 2.5 is below three part targets (3 s)"))
        #expect(short.errorCount == 0)
        let tooShort = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24",
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5,CAN-SKIP-UNTIL=24")))
        #expect(tooShort.has(.error, "PART-HOLD-BACK 1.5 is below twice the part target"))
        #expect(!tooShort.has(.warning, "below three part targets"))
    }

    @Test("part durations: at most PART-TARGET, at least 85 % of it unless INDEPENDENT, GAP, before a GAP or the last (§4.4.4.9)")
    func partDurations() {
        let short = parse(
            llPlaylist(replacing("#EXT-X-PART:DURATION=1.0,URI=\"p102.1.ts\"", "#EXT-X-PART:DURATION=0.8,URI=\"p102.1.ts\"")))
        #expect(short.has(.error, "EXT-X-PART p102.1.ts lasts 0.8 s, under 85 % of PART-TARGET 1", line: 13))
        // The same short duration where the rule excuses it: the segment's last part, an INDEPENDENT part, one before a GAP.
        let last = parse(
            llPlaylist(replacing("#EXT-X-PART:DURATION=1.0,URI=\"p102.3.ts\"", "#EXT-X-PART:DURATION=0.5,URI=\"p102.3.ts\"")))
        #expect(!last.has(.error, "under 85 %"))
        let independent = parse(
            llPlaylist(
                replacing("#EXT-X-PART:DURATION=1.0,URI=\"p102.1.ts\"", "#EXT-X-PART:DURATION=0.5,URI=\"p102.1.ts\",INDEPENDENT=YES")))
        #expect(!independent.has(.error, "under 85 %"))
        let beforeGap = parse(
            llPlaylist { lines in
                replacing("#EXT-X-PART:DURATION=1.0,URI=\"p102.1.ts\"", "#EXT-X-PART:DURATION=0.5,URI=\"p102.1.ts\"")(&lines)
                replacing("#EXT-X-PART:DURATION=1.0,URI=\"p102.2.ts\"", "#EXT-X-PART:DURATION=1.0,URI=\"p102.2.ts\",GAP=YES")(&lines)
            })
        #expect(!beforeGap.has(.error, "under 85 %"))
        // The newest part may be its segment's last: not judged yet. An overrunning one is, wherever it stands.
        let edge = parse(
            llPlaylist(replacing("#EXT-X-PART:DURATION=1.0,URI=\"p104.1.ts\"", "#EXT-X-PART:DURATION=0.4,URI=\"p104.1.ts\"")))
        #expect(!edge.has(.error, "under 85 %"))
        let over = parse(
            llPlaylist(replacing("#EXT-X-PART:DURATION=1.0,URI=\"p104.1.ts\"", "#EXT-X-PART:DURATION=1.2,URI=\"p104.1.ts\"")))
        #expect(over.has(.error, "EXT-X-PART DURATION 1.2 is above PART-TARGET 1"))
    }

    @Test("no INDEPENDENT part, parts without blocking reload, and parts kept far from the edge are named")
    func liveHabits() {
        let dependent = parse(llPlaylist { lines in lines = lines.map { $0.replacingOccurrences(of: ",INDEPENDENT=YES", with: "") } })
        #expect(dependent.has(.warning, "no EXT-X-PART has INDEPENDENT=YES"))
        let polling = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24",
                    "#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24")))
        #expect(polling.has(.warning, "live parts without CAN-BLOCK-RELOAD=YES"))
        // Parts on every segment: 100 ends 14 s from the end, more than three 4 s targets; 101 ends 10 s from it.
        let kept = parse(
            llPlaylist { lines in
                var out: [String] = []
                for l in lines {
                    if l == "s100.ts" || l == "s101.ts" {
                        let msn = l == "s100.ts" ? 100 : 101
                        let extinf = out.removeLast()
                        for i in 0..<4 { out.append("#EXT-X-PART:DURATION=1.0,URI=\"p\(msn).\(i).ts\"\(i == 0 ? ",INDEPENDENT=YES" : "")") }
                        out.append(extinf)
                    }
                    out.append(l)
                }
                lines = out
            })
        #expect(kept.has(.warning, "segment 100 still lists its parts more than three target durations (12 s) from the end"))
        #expect(!parse(llPlaylist()).has(.warning, "still list their parts"))
    }

    @Test("where part-level tags stand, CAN-SKIP-DATERANGES without CAN-SKIP-UNTIL, hints in an ended playlist, reports")
    func tagsAndReports() {
        let pdtLate = parse(
            llPlaylist { lines in
                let at = lines.firstIndex(of: "#EXT-X-PART:DURATION=1.0,URI=\"p103.1.ts\"")!
                lines.insert("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:12Z", at: at)
            })
        #expect(pdtLate.has(.error, "segment 103: EXT-X-PROGRAM-DATE-TIME after its first EXT-X-PART"))
        let skipDR = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24",
                    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-DATERANGES=YES")))
        #expect(skipDR.has(.error, "CAN-SKIP-DATERANGES=YES without CAN-SKIP-UNTIL"))
        let ended = parse(llPlaylist { lines in lines.append("#EXT-X-ENDLIST") })
        #expect(ended.has(.error, "EXT-X-PRELOAD-HINT p104.2.ts in an ended playlist"))
        let absolute = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-RENDITION-REPORT:URI=\"../v2/index.m3u8\",LAST-MSN=104,LAST-PART=1",
                    "#EXT-X-RENDITION-REPORT:URI=\"https://cdn.example/v2/index.m3u8\",LAST-MSN=104,LAST-PART=1")))
        #expect(absolute.has(.error, "is absolute; it MUST be relative"))
        let stale = parse(
            llPlaylist(
                replacing(
                    "#EXT-X-RENDITION-REPORT:URI=\"../v2/index.m3u8\",LAST-MSN=104,LAST-PART=1",
                    "#EXT-X-RENDITION-REPORT:URI=\"../v2/index.m3u8\",LAST-MSN=98,LAST-PART=1")))
        #expect(stale.has(.warning, "says LAST-MSN=98, this playlist is at 104"))
    }
}
