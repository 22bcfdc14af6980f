import Foundation
import HLS
import HLSReport
import Testing

/// The `--html` report: one page, its text escaped, a finding per row, a bar per segment read.
@Suite("inspect --media --html: the findings, the variants, each segment's bit rate against the declared lines")
struct MediaHTMLTests {
    static func variant(bandwidth: Int) -> VariantMeasure {
        var v = VariantMeasure(index: 0, name: "144p <main>", measured: 3, listed: 10, peak: 300_000, average: 250_000)
        (v.bandwidth, v.averageBandwidth, v.codecs) = (bandwidth, 240_000, "avc1.4d401e,\"mp4a.40.2\"")
        v.segments = [200_000, 250_000, 300_000].enumerated().map { i, rate in
            var s = SegmentMeasure(msn: i * 4, duration: 2, discontinuity: false)
            s.bitRate = Double(rate)
            return s
        }
        return v
    }

    @Test("findings in a table, one row each; every segment a bar, over BANDWIDTH in red; text escaped; self-contained")
    func report() {
        let page = MediaHTML.render(
            source: "http://o.test/a.m3u8?x=1&y=<2>", generated: "now", measures: [Self.variant(bandwidth: 260_000)])
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</body></html>\n"))
        #expect(page.contains("http://o.test/a.m3u8?x=1&amp;y=&lt;2&gt;") && !page.contains("y=<2>"))
        #expect(page.contains("144p &lt;main&gt;") && page.contains("&quot;mp4a.40.2&quot;"))
        #expect(page.contains("1 finding, 1 must fix.") && page.contains("<code>bandwidth-under-peak</code>"))
        #expect(page.components(separatedBy: "<rect ").count - 1 == 3)
        #expect(page.components(separatedBy: "fill=\"#d32f2f\"><title>").count - 1 == 1, "only the 300k segment is over 260k")
        #expect(page.contains("<title>msn 8: 300 kbit/s</title>") && page.contains("BW 260 kbit/s") && page.contains("AVG 240 kbit/s"))
        #expect(!page.contains("<script") && !page.contains("src=") && !page.contains("href="), "nothing fetched when opened")
        let clean = MediaHTML.render(source: "s", generated: "now", measures: [Self.variant(bandwidth: 300_000)])
        #expect(clean.contains("No problems found."))
    }
}
