import Testing
@testable import Session

@Suite("Stalls as the samples show them: waiting for data, stuck at the end, a slow reload; each opened and ended once")
struct StallWatchTests {
    static func sample(cache: Bool = false, eof: Bool = false, loading: Bool = false) -> PlayerSample {
        var s = PlayerSample()
        (s.pausedForCache, s.eof, s.loading) = (cache, eof, loading)
        return s
    }

    @Test("paused for cache opens a stall at once, named by the last failure; the first sample that plays ends it and says so")
    func waiting() {
        var w = StallWatch()
        let opened = w.observe(Self.sample(cache: true), started: true, ended: false, at: 5, cause: "origin: HTTP 503")
        #expect(opened.facts == [.stallStarted(5)] && opened.said.map(\.text) == ["stalled: origin: HTTP 503"])
        #expect(w.current == Stall(start: 5, end: nil, cause: "origin: HTTP 503"))
        #expect(w.observe(Self.sample(cache: true), started: true, ended: false, at: 6, cause: nil).facts.isEmpty, "once")
        let ended = w.observe(Self.sample(), started: true, ended: false, at: 7.5, cause: nil)
        #expect(ended.facts == [.stallEnded(Stall(start: 5, end: 7.5, cause: "origin: HTTP 503"))])
        #expect(ended.said.map(\.text) == ["playing again after 2.5 s stalled (origin: HTTP 503)"])
        #expect(w.current == nil && w.count == 1 && w.seconds(now: 9) == 2.5)
    }

    @Test("stopped at the end of what it was given, or a reload: a stall after a second, timed from its start; none before the first frame")
    func stuck() {
        var w = StallWatch()
        #expect(w.observe(Self.sample(eof: true), started: false, ended: false, at: 1, cause: nil).facts.isEmpty)
        #expect(w.observe(Self.sample(eof: true), started: true, ended: false, at: 2, cause: nil).facts.isEmpty)
        #expect(w.eofSince == 2)
        #expect(w.observe(Self.sample(eof: true), started: true, ended: false, at: 3, cause: nil).facts == [.stallStarted(2)])
        #expect(w.observe(Self.sample(eof: true), started: true, ended: true, at: 4, cause: nil).facts.count == 1, "the end ends it")
        #expect(w.eofSince == nil)
        var r = StallWatch()
        #expect(r.observe(Self.sample(loading: true), started: true, ended: false, at: 10, cause: nil).facts.isEmpty)
        #expect(r.observe(Self.sample(loading: true), started: true, ended: false, at: 10.9, cause: nil).facts.isEmpty)
        #expect(r.observe(Self.sample(loading: true), started: true, ended: false, at: 11.2, cause: nil).facts == [.stallStarted(10)])
    }

    @Test("the newest stalls are kept; the ones trimmed are counted, so the totals stay whole")
    func trimmed() {
        var w = StallWatch()
        for i in 0...StallWatch.limit {
            _ = w.observe(Self.sample(cache: true), started: true, ended: false, at: Double(i) * 2, cause: nil)
            _ = w.observe(Self.sample(), started: true, ended: false, at: Double(i) * 2 + 1, cause: nil)
        }
        #expect(w.stalls.count == StallWatch.limit && w.earlier == StallTotals(count: 1, seconds: 1))
        #expect(w.count == StallWatch.limit + 1 && w.seconds(now: 1000) == Double(StallWatch.limit + 1))
    }
}
