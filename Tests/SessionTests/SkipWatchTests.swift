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

    @Test("the picture catching up with audio that played on is no skip; with the audio jumping too, or a cause, it is one")
    func pictureCatchingUp() throws {
        func look(_ w: inout SkipWatch, _ wall: Double, _ time: Double, audio: Double?, cause: String? = nil) -> Session.Skip? {
            w.observe(
                wall: DateTime(seconds: wall), point: StreamPoint(msn: Int(time / 2), offset: time.truncatingRemainder(dividingBy: 2)),
                time: time, advancing: true, speed: 1, at: wall, audio: audio, distance: Self.distance, cause: { _ in cause })
        }
        var w = SkipWatch()
        // The picture stands 0.4 s (a starved decoder) while the audio plays on, then catches up.
        #expect(look(&w, 0, 1.0, audio: 0.98) == nil)
        #expect(look(&w, 0.25, 1.0, audio: 1.23) == nil)
        #expect(look(&w, 0.5, 1.0, audio: 1.48) == nil)
        #expect(look(&w, 0.75, 1.75, audio: 1.73) == nil && w.count == 0, "caught up: the audio was heard")
        // The audio jumps with the picture: content passed over.
        let k = try #require(look(&w, 1.0, 3.0, audio: 2.98))
        #expect(abs(k.seconds - 1.0) < 1e-9 && k.cause == "the player jumped ahead (no switch, reload or failure explains it)")
        // A cause (a failed segment) is a skip of the picture whatever the audio did (an audio rendition of its own plays on).
        var v = SkipWatch()
        _ = look(&v, 0, 1.0, audio: 0.98, cause: "msn 1 failed")
        let f = try #require(look(&v, 0.25, 3.0, audio: 1.23, cause: "msn 1 failed"))
        #expect(f.cause == "msn 1 failed")
        // Without audio (video only) a jump is a skip.
        var n = SkipWatch()
        _ = look(&n, 0, 1.0, audio: nil)
        #expect(look(&n, 0.25, 2.0, audio: nil) != nil)
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
