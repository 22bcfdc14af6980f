import Testing
@testable import Loader
@testable import LoaderCore

@Suite("Failed sources: the penalty box and the VOD segment hold (pure)")
struct SourceHealthTests {
    @Test("a failed rung waits 1 s, then 2, 4 … up to 30 s; it is tried last meanwhile, and its first success is its recovery")
    func penaltyBox() {
        var h = SourceHealth()
        #expect(h.failed(2, cause: "HTTP 503", at: 10) == 1)
        #expect(h.isDown(2, at: 10.5) && !h.isDown(2, at: 11))
        #expect(h.failed(2, cause: "HTTP 503", at: 11) == 2)
        for i in 0..<8 { h.failed(2, cause: "HTTP 504", at: 12 + Double(i)) }
        #expect(h.failed(2, cause: "HTTP 504", at: 20) == 30, "capped")
        #expect(h.order([2, 1, 0], at: 21) == [1, 0, 2] && h.cause(2) == "HTTP 504")
        let back = h.answered(2, at: 25)
        #expect(back?.down == 15 && back?.cause == "HTTP 504", "down since its first failure")
        #expect(h.answered(2, at: 26) == nil && !h.isDown(2, at: 26))
    }

    @Test("a VOD segment is held for passing failures only, retried 0.5, 1, 2, 4, 4 … s apart, and let go when the budget is spent")
    func hold() {
        #expect(
            SegmentHold.passing(503) && SegmentHold.passing(500) && SegmentHold.passing(502) && SegmentHold.passing(429)
                && SegmentHold.passing(408))
        #expect(!SegmentHold.passing(404) && !SegmentHold.passing(403) && !SegmentHold.passing(410))
        var h = SegmentHold(since: 100, budget: 10)
        var waits: [Double] = []
        var now = 100.0
        while let w = h.next(at: now) {
            waits.append(w)
            now += w + 0.1 // each attempt takes a moment
        }
        #expect(waits == [0.5, 1, 2, 4], "the next 4 s wait would end past the 10 s budget: \(waits)")
        var none = SegmentHold(since: 0, budget: 0)
        #expect(none.next(at: 0) == nil, "a zero budget passes the failure on at once")
    }
}
