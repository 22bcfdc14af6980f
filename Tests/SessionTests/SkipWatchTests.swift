import HLS
import Testing

@testable import Session

/// The skip watch's transitions (`Session/Skips.swift`), one at a time, on a stream of 2 s segments.
@Suite("The skip watch: a jump beyond what playing covers is a skip, waiting never excuses one, an asked move is none (pure)")
struct SkipWatchTests {
    /// Seconds between two points of a stream of 2 s segments.
    static func distance(_ a: StreamPoint, _ b: StreamPoint) -> Double? { Double(b.msn - a.msn) * 2 + b.offset - a.offset }

    /// One sample at wall second `wall` at `point`, playing.
    static func look(_ w: inout SkipWatch, _ wall: Double, _ msn: Int, _ offset: Double, advancing: Bool = true) -> Session.Skip? {
        w.observe(
            wall: DateTime(seconds: wall), point: StreamPoint(msn: msn, offset: offset), time: Double(msn) * 2 + offset,
            advancing: advancing, speed: 1, at: wall, distance: distance, cause: { "msns \($0.lowerBound)–\($0.upperBound)" })
    }

    @Test("playing on is no skip; 2.5 s of stream in 0.25 s is one of 2.25 s; the catch-up after it grows the same skip")
    func jumps() throws {
        var w = SkipWatch()
        #expect(Self.look(&w, 0, 0, 0) == nil)
        #expect(Self.look(&w, 0.25, 0, 0.25) == nil)
        let k = try #require(Self.look(&w, 0.5, 1, 0.75))
        #expect(abs(k.seconds - 2.25) < 1e-9 && k.cause == "msns 0–1" && w.count == 1)
        #expect(Self.look(&w, 0.75, 2, 0) == nil, "racing on after the jump")
        #expect(w.count == 1 && abs(w.seconds - 3.25) < 1e-9 && abs(w.skips[0].seconds - 3.25) < 1e-9)
    }

    @Test("a wait (held, loading) moves the clock, not the playhead: the jump after it is measured against one sample's time")
    func waits() throws {
        var w = SkipWatch()
        _ = Self.look(&w, 0, 0, 0)
        w.hold(wall: DateTime(seconds: 5))
        let k = try #require(Self.look(&w, 5.25, 2, 0))
        #expect(abs(k.seconds - 3.75) < 1e-9)
    }

    @Test("a move asked for starts afresh where it lands; a stream given again is measured from where the playhead was")
    func moves() throws {
        var w = SkipWatch()
        _ = Self.look(&w, 0, 0, 0)
        w.moveRequested()
        w.streamGiven(from: (DateTime(seconds: 0.1), StreamPoint(msn: 0, offset: 0.1), 0.1), speed: 1)
        #expect(Self.look(&w, 0.2, 5, 0) == nil && w.count == 0)
        w.streamGiven(from: (DateTime(seconds: 0.3), StreamPoint(msn: 5, offset: 0.1), 10.1), speed: 1)
        let k = try #require(Self.look(&w, 0.4, 7, 0))
        #expect(abs(k.seconds - 3.8) < 1e-9 && w.count == 1)
    }
}
