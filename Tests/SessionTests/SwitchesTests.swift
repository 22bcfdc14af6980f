import HLS
import Testing

@testable import Session

/// The switches carried out, through their own transitions.
@Suite struct SwitchesTests {
    @Test("a switch made plays its rung; the newest 500 are kept; a planned reload waits until cleared; each segment's rung kept")
    func transitions() {
        var w = Switches()
        w.splice(true)
        w.plan(PlannedReload(rung: 2, boundary: 7))
        #expect(w.spliced && w.planned == PlannedReload(rung: 2, boundary: 7) && w.loadedRung == nil)
        for i in 0..<(Switches.limit + 3) {
            w.switched(VariantSwitch(t: Double(i), from: nil, to: i % 4, reason: .abr, mechanism: .splice))
        }
        #expect(w.made.count == Switches.limit && w.made.first?.t == 3 && w.loadedRung == (Switches.limit + 2) % 4)
        w.plan(nil)
        #expect(w.planned == nil)
        w.served(msn: 10, by: 1)
        w.served(msn: 11, by: nil)
        #expect(w.segmentRung == [10: 1], "a rendition's segment names no rung")
        for msn in 12..<(12 + 3 * SessionState.segmentMemory) { w.served(msn: msn, by: 0) }
        #expect(w.segmentRung.count <= 2 * SessionState.segmentMemory && w.segmentRung[10] == nil, "bounded for sessions of days")
    }
}
