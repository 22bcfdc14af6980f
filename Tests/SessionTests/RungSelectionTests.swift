import CMCD
import Testing

@testable import Session
import SessionFixtures

/// The rung selection's transitions (`Session/RungSelection.swift`), one at a time.
@Suite("Rung selection: pins, caps and the switch mode set by their actions; the server's cap followed and lifted (pure)")
struct RungSelectionTests {
    @Test("a pin or automatic is a manual switch, a cap a cap switch, the switch mode none; other actions change nothing")
    func actions() {
        var s = RungSelection()
        let ladder = Fixture.ladder
        #expect(s.select(.pin(2), in: ladder) == .manual && s.mode == .pinned(2))
        #expect(s.select(.capHeight(360), in: ladder) == .cap && s.caps.maxHeight == 360)
        #expect(s.select(.capBitrate(800_000), in: ladder) == .cap && s.caps.maxBitrate == 800_000)
        #expect(s.select(.toggleSwitchMode, in: ladder) == nil && s.manualSwitch == .smooth)
        #expect(s.select(.togglePause, in: ladder) == nil && s.mode == .pinned(2) && s.manualSwitch == .smooth)
        #expect(s.select(.automatic, in: ladder) == .manual && s.mode == .automatic)
        s.repin(1)
        #expect(s.mode == .pinned(1))
    }

    @Test("the server's cap: set by an answer's mb and said, moved once for the pane to plan, lifted after 10 s unrepeated")
    func serverCap() {
        var s = RungSelection()
        let cmsd = { (mb: Int) in CMSD(hops: [CMSD.Hop(name: "edge", values: ["mb": .integer(mb)])]) }
        #expect(s.follow(cmsd(500), at: 1) == "CMSD: edge suggests at most 500kbps: the ladder is capped there")
        let moved = [s.takeServerCapMove(), s.takeServerCapMove()]
        #expect(moved == [true, false] && s.caps.serverMaxBitrate == 500_000)
        #expect(s.follow(cmsd(500), at: 2) == nil && s.follow(nil, at: 11.9) == nil)
        #expect(s.follow(nil, at: 12.1)?.hasSuffix("the cap is lifted") == true && s.caps.serverMaxBitrate == nil)
        let lifted = s.takeServerCapMove()
        #expect(lifted)
    }
}
