import HLS
import LoaderEvents
import Testing
@testable import Session
import SessionFixtures

/// A pane left running for days: what it keeps is bounded, the totals it reports stay whole, and the player's memory budget
/// follows the ladder (DECISIONS.md, bounded memory).
@Suite("Bounded state for long sessions: trimmed lists, whole totals, the player's cache budget")
struct BoundedStateTests {
    @Test("20,000 segments, 1,000 key rotations and switches, 400 stalls later: every list holds its newest, the totals count them all")
    func longSession() {
        var s = Fixture.session(live: true)
        let before = s.requestTotals
        var t = 1.0
        for msn in 4..<20_004 {
            t += 0.01
            s.apply(.loader(.request(Fixture.request(msn, pts: Double(msn) * 2, start: t, bytes: 1000))), at: t)
            if msn % 20 == 0 {
                let k = KeyEvent(
                    uri: "http://origin.test/k\(msn / 20).key", method: .aes128, keyFormat: "identity", fingerprint: "f", firstMSN: msn,
                    lastMSN: msn + 19, requested: t, latencyMs: 1, prefetch: true, repair: nil, source: "origin", error: nil)
                s.apply(.loader(.key(k)), at: t)
                // Fetched twice (prefetch and on demand): one distinct key.
                s.apply(.loader(.key(k)), at: t)
            }
            if msn % 20 == 10 {
                s.apply(.switched(VariantSwitch(t: t, from: 0, to: 1, reason: .manual, mechanism: .spliceSeek)), at: t)
            }
            if msn % 50 == 0 {
                var p = PlayerSample()
                p.pausedForCache = true
                s.apply(.sample(p), at: t)
                p.pausedForCache = false
                s.apply(.sample(p), at: t + 0.5)
                t += 0.5
            }
        }
        #expect(s.requests.count == SessionState.requestLimit)
        #expect(s.requests.last?.msn == 20_003, "the newest are kept")
        #expect(s.requestTotals.count == before.count + 20_000)
        #expect(s.requestTotals.segments == before.segments + 20_000)
        #expect(s.requestTotals.bytes == before.bytes + 20_000 * 1000)
        #expect(s.keys.count == SessionState.keyLimit && s.requestTotals.keys == 1000)
        #expect(s.switches.count == SessionState.switchLimit && s.requestTotals.switches == 1000 + 1)
        #expect(s.stalls.count == SessionState.stallLimit)
        #expect(s.stallCount == 400, "every stall counts: \(s.stallCount)")
        #expect(abs(s.stalledSeconds - 200) < 1e-6, "and every stalled second: \(s.stalledSeconds)")
        #expect(s.segmentRung.count <= 2 * SessionState.segmentMemory)
        #expect(s.segmentRung[20_003] == 0 && s.segmentRung[20_003 - SessionState.segmentMemory + 1] == 0)
        #expect(s.clock.firstPTS.count <= 5000)
        #expect(s.log.count <= SessionState.logLimit)
    }

    @Test("GAPs reported and breaks crossed are remembered near the playhead only, and never reported twice there")
    func marks() {
        var s = SessionState(url: "x")
        var fresh = 0
        for msn in 0..<5000 where s.reportGap(rung: 0, msn: msn) { fresh += 1 }
        #expect(fresh == 5000)
        let again = s.reportGap(rung: 0, msn: 4999)
        #expect(!again, "a recent GAP is reported once")
        let otherRung = s.reportGap(rung: 1, msn: 4999)
        #expect(otherRung, "per rung")
        #expect(s.gapsReported.count <= 2 * SessionState.segmentMemory + 1)
        var crossings = 0
        for msn in 0..<5000 where s.cross(msn % 2 == 0 ? msn : -msn) { crossings += 1 }
        #expect(crossings == 5000)
        let twice = [s.cross(-4999), s.cross(4998)]
        #expect(twice == [false, false], "a recent break is crossed once")
        #expect(s.crossed.count <= 2 * SessionState.segmentMemory + 1)
    }

    @Test("the cache budget: read-ahead and back buffer at the ladder's peak BANDWIDTH with headroom, never below the floor")
    func budget() {
        // 5 Mbit/s peak: 937,500 bytes a second with headroom.
        let b = CacheBudget(readahead: 10, backBuffer: 60, peakBitsPerSecond: 5_000_000)
        #expect(b.forwardBytes == 9_375_000 && b.backBytes == 56_250_000)
        // A low ladder: the floor.
        let low = CacheBudget(readahead: 10, backBuffer: 60, peakBitsPerSecond: 700_000)
        #expect(low.forwardBytes == CacheBudget.floorBytes && low.backBytes == 7_875_000)
        // No BANDWIDTH: the assumed 10 Mbit/s; a hold that grows the read-ahead grows the forward budget with it.
        let unknown = CacheBudget(readahead: 10, backBuffer: 0, peakBitsPerSecond: nil)
        #expect(unknown.forwardBytes == 18_750_000 && unknown.backBytes == CacheBudget.floorBytes)
        #expect(CacheBudget(readahead: 20, backBuffer: 0, peakBitsPerSecond: nil).forwardBytes == 2 * unknown.forwardBytes)
        // Four panes of a 5 Mbit/s ladder at the defaults stay far below libmpv's 200 MiB each.
        #expect(4 * b.totalBytes < 300_000_000)
        #expect(Fixture.ladder.peakBandwidth == Fixture.ladder.rungs.map(\.bandwidth).max())
        #expect(Ladder().peakBandwidth == nil)
    }

    @Test("a media playlist opened alone states no BANDWIDTH: the budget follows the highest segment bitrate measured")
    func measuredPeak() {
        var s = SessionState(url: "http://origin.test/v360/index.m3u8")
        s.apply(.opened(url: s.url, playlist: Fixture.playlist(Fixture.media(live: true)), diagnostics: []), at: 0)
        s.apply(
            .loader(
                .playlist(
                    PlaylistEvent(
                        url: s.url, rung: 0, rendition: nil, playlist: Fixture.playlist(Fixture.media(live: true)).media!, received: 0))),
            at: 0)
        #expect(s.ladder.peakBandwidth == nil, "no BANDWIDTH in a media playlist")
        let duration = s.media[0]?.segments.first?.duration ?? 0
        #expect(duration > 0)
        // 100 kB and then 250 kB in one segment's duration: the peak is the larger, and stays.
        s.apply(.loader(.request(Fixture.request(0, pts: 10, bytes: 100_000))), at: 1)
        s.apply(.loader(.request(Fixture.request(1, pts: 12, bytes: 250_000))), at: 2)
        s.apply(.loader(.request(Fixture.request(2, pts: 14, bytes: 50_000))), at: 3)
        #expect(s.observedPeakBitsPerSecond == Int(250_000 * 8 / duration))
        #expect(s.budgetBitsPerSecond == s.observedPeakBitsPerSecond)
    }
}
