import HLS
import LoaderEvents
import Testing

@testable import Session
import SessionFixtures

/// The request ledger's transitions (`Session/Requests.swift`), one at a time.
@Suite("The request ledger: in flight, delivered, throughput, keys and totals, each changed by its own transition (pure)")
struct RequestLedgerTests {
    @Test("a variant segment: in flight from its start, delivered and timed when it comes whole; a failed one neither")
    func segments() {
        var l = RequestLedger()
        l.started(msn: 7, rung: 1, at: 1)
        #expect(l.inFlight[7] == InFlight(rung: 1, start: 1) && l.lastSegmentAt[1] == 1)
        let whole = l.record(Fixture.request(7, rung: 1, bytes: 400_000, ms: 100), at: 1.1)
        #expect(whole)
        #expect(l.inFlight[7] == nil && l.delivered[7] == 1.1 && l.lastSegmentAt[1] == 1.1)
        // 400 KB in 0.1 s: 32 Mbit/s.
        #expect(l.throughput.samples == 1 && abs((l.throughput.fast ?? 0) - 32_000_000) < 1)
        let failed = l.record(Fixture.request(8, rung: 1, error: "HTTP 404"), at: 1.2)
        #expect(!failed)
        #expect(l.delivered[8] == nil && l.totals.count == 2 && l.totals.segments == 2 && l.totals.bytes == 600_000)
        // Given the stream again: nothing delivered to the new player yet.
        l.streamGiven()
        #expect(l.delivered.isEmpty && l.requests.count == 2)
    }

    @Test("a rendition's segment (no rung) is logged and counted, neither delivered nor timed; a local answer is not timed")
    func renditionsAndLocal() {
        var l = RequestLedger()
        var r = Fixture.request(3, bytes: 400_000, ms: 100)
        r.rung = nil
        let rendition = l.record(r, at: 1)
        #expect(!rendition)
        #expect(l.delivered.isEmpty && l.throughput.samples == 0 && l.totals.segments == 1)
        var local = Fixture.request(4, bytes: 400_000, ms: 100)
        local.local = true
        let answeredHere = l.record(local, at: 2)
        #expect(answeredHere)
        #expect(l.delivered[4] == 2 && l.throughput.samples == 0)
    }

    @Test("at most 16 downloads in flight, the oldest let go; keys counted once per URI; switches counted; the peak kept")
    func bounds() {
        var l = RequestLedger()
        for msn in 0..<20 { l.started(msn: msn, rung: 0, at: Double(msn)) }
        #expect(l.inFlight.count == 16 && l.inFlight[3] == nil && l.inFlight[4] != nil)
        let k = KeyEvent(
            uri: "http://origin.test/k.key", method: .aes128, keyFormat: "identity", fingerprint: "f", firstMSN: 0, lastMSN: 2,
            requested: 0, latencyMs: 1, prefetch: true, repair: nil, source: "origin", error: nil)
        l.key(k)
        l.key(k)
        #expect(l.keys.count == 2 && l.totals.keys == 1)
        l.switched()
        #expect(l.totals.switches == 1)
        l.peak(2_000_000)
        l.peak(1_000_000)
        #expect(l.observedPeakBitsPerSecond == 2_000_000)
    }
}
