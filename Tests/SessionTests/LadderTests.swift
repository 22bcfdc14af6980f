import HLS
import Testing
@testable import Session
import SessionFixtures

@Suite("Ladder, caps and the rung policy (AVPlayer preferredMaximumResolution / preferredPeakBitRate semantics)")
struct LadderTests {
    let ladder = Fixture.ladder

    @Test("the ladder keeps every variant with its lint marks, renditions and I-frame variants")
    func ladderFromPlaylist() {
        #expect(ladder.rungs.count == 4)
        #expect(ladder.rungs[2].marks.contains("hev1"))
        #expect(ladder.rungs[0].marks.isEmpty)
        #expect(ladder.renditions.count == 1 && ladder.iFrames.count == 1)
        #expect(ladder.heights == [144, 360, 720, 1080])
        #expect(ladder.rungs[3].name == "1080p 5M" && ladder.rungs[0].name == "360p 800k" && ladder.rungs[2].name == "720p 2.5M")
    }

    @Test("a height cap admits only rungs within it; below every rung the lowest rung plays")
    func heightCap() {
        #expect(Caps(maxHeight: 720).allowed(ladder) == [0, 1, 2])
        #expect(Caps(maxHeight: 400).allowed(ladder) == [0, 1])
        #expect(Caps(maxHeight: 100).allowed(ladder) == [1])
        #expect(Caps().allowed(ladder) == [0, 1, 2, 3])
    }

    @Test("a bitrate cap works the same way, and both caps combine")
    func bitrateCap() {
        #expect(Caps(maxBitrate: 1_000_000).allowed(ladder) == [0, 1])
        #expect(Caps(maxBitrate: 1000).allowed(ladder) == [1])
        #expect(Caps(maxHeight: 1080, maxBitrate: 3_000_000).allowed(ladder) == [0, 1, 2])
    }

    @Test("cap steps walk the ladder's heights and lift at the top")
    func capSteps() {
        var c = Caps()
        c.maxHeight = c.heightDown(ladder)
        #expect(c.maxHeight == 720)
        c.maxHeight = c.heightDown(ladder)
        #expect(c.maxHeight == 360)
        c.maxHeight = c.heightDown(ladder)
        c.maxHeight = c.heightDown(ladder)
        #expect(c.maxHeight == 144, "never below the lowest height")
        c.maxHeight = c.heightUp(ladder)
        #expect(c.maxHeight == 360)
        c.maxHeight = c.heightUp(ladder)
        c.maxHeight = c.heightUp(ladder)
        #expect(c.maxHeight == nil, "stepping up past the second-highest height lifts the cap")
        c.maxBitrate = c.bitrateDown(ladder)
        #expect(c.maxBitrate == 2_500_000)
        c.maxBitrate = c.bitrateUp(ladder)
        #expect(c.maxBitrate == nil)
        #expect(Caps(maxHeight: 720, maxBitrate: 2_000_000).description == "≤720p ≤2Mbps")
    }

    @Test("the policy: pinned plays the pin unless a cap excludes it (then the best allowed); automatic follows throughput within the caps")
    func policy() {
        #expect(VariantPolicy.target(ladder, mode: .pinned(3), caps: Caps(), throughput: nil) == 3)
        #expect(VariantPolicy.target(ladder, mode: .pinned(3), caps: Caps(maxHeight: 720), throughput: nil) == 2)
        #expect(VariantPolicy.target(ladder, mode: .pinned(3), caps: Caps(maxHeight: 100), throughput: nil) == 1)
        #expect(
            VariantPolicy.target(ladder, mode: .automatic, caps: Caps(), throughput: nil) == 0,
            "first listed variant before any measurement")
        #expect(
            VariantPolicy.target(ladder, mode: .automatic, caps: Caps(), throughput: 4_000_000) == 2,
            "highest BANDWIDTH within 70 % of throughput (ABR's up share)")
        #expect(
            VariantPolicy.target(ladder, mode: .automatic, caps: Caps(), throughput: 50_000_000, candidates: [1, 2]) == 2,
            "only among the candidates (the top rung, 3, would fit)")
        #expect(VariantPolicy.target(ladder, mode: .automatic, caps: Caps(), throughput: 100_000) == 1, "the lowest when nothing fits")
        #expect(VariantPolicy.target(ladder, mode: .automatic, caps: Caps(maxHeight: 360), throughput: 50_000_000) == 0)
        #expect(VariantPolicy.target(Ladder(), mode: .automatic, caps: Caps(), throughput: nil) == nil)
    }

    @Test("a media playlist opened alone is a one-rung ladder")
    func single() {
        let l = Ladder(Fixture.playlist(Fixture.media()))
        #expect(l.single && l.rungs.count == 1)
        #expect(VariantPolicy.target(l, mode: .automatic, caps: Caps(maxHeight: 100), throughput: nil) == 0)
    }
}

@Suite("Selection actions on the session")
struct SelectionTests {
    @Test("pins, automatic and cap steps change the target and name their reason; other actions leave selection alone")
    func select() {
        var s = Fixture.session()
        #expect(s.targetRung == 3, "automatic: 200 KB in 20 ms measures 80 Mbps, the top rung fits")
        #expect(s.select(.pin(1)) == .manual && s.targetRung == 1)
        #expect(s.select(.pin(3)) == .manual && s.targetRung == 3)
        #expect(s.select(.capDown) == .cap && s.caps.maxHeight == 720 && s.targetRung == 2, "the cap holds the pin back")
        #expect(s.select(.bitrateDown) == .cap && s.caps.maxBitrate == 2_500_000)
        #expect(s.select(.capHeight(nil)) == .cap && s.select(.capBitrate(nil)) == .cap && s.targetRung == 3, "the pin plays again")
        #expect(s.select(.automatic) == .manual && s.mode == .automatic)
        #expect(s.select(.togglePause) == nil && s.select(.seekRelative(5)) == nil)
    }
}
