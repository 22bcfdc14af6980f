import Foundation
import Origin
import Testing

/// An origin of its own: these runs switch rungs and read cameras, which other suites count on the shared origin's log.
enum CueOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
}

/// The breaks a stream announces, on the timeline of a real player (docs/EVENTS.md): `monitor`'s `cue` events.
@Suite("Breaks through real libmpv: monitor says when the playhead enters and leaves each, at the moment the playlist gives")
struct CueEventsTests {
    @Test("VOD with a break every five 2 s segments, both ways: entered within a sample of its start, left after its length")
    func vodBreaks() async throws {
        let r = try await MonitorRun.run(["\(CueOrigin.base)/vod-ts/master.m3u8?cues=5", "--duration", "16"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let cues = r.named("cue")
        // From the start: the breaks at MSN 0 (0–4 s) and MSN 5 (10–14 s), as CUE-OUT and as EXT-X-DATERANGE.
        let phases = cues.map { "\($0["phase"] ?? "") \($0["id"] ?? "")" }
        #expect(
            phases == [
                "enter cue-out@0", "enter break-0", "leave cue-out@0", "leave break-0", "enter cue-out@5", "enter break-5",
                "leave cue-out@5", "leave break-5",
            ], "\(phases)")
        for e in cues {
            let start = try #require(e["start"] as? Double)
            let position = try #require(e["position"] as? Double)
            let planned = try #require(e["planned"] as? Double)
            #expect(planned == 4 && e["actual"] as? Double == 4 && e["closed"] as? Bool == true)
            // Sampled four times a second: seen at most a sample (and a frame) after the moment the playlist gives.
            let moment = e["phase"] as? String == "enter" ? start : start + planned
            #expect(position >= moment - 0.04 && position - moment <= 0.3, "\(e)")
        }
        // The break left after its length, in the session's time too.
        let left = cues.filter { $0["phase"] as? String == "leave" }.compactMap { $0["seconds"] as? Double }
        #expect(left.count == 4 && left.allSatisfy { abs($0 - 4) < 0.5 }, "\(left)")
        #expect(r.named("skip").isEmpty && r.named("stall").isEmpty)
    }

    @Test("a live camera: each break entered at its PDT (the mark), left 4 s later; none twice as the window slides")
    func liveBreaks() async throws {
        let r = try await MonitorRun.run(["\(CueOrigin.base)/cam-a/cam-a/index.m3u8?cues=4", "--duration", "20"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let cues = r.named("cue")
        let entered = cues.filter { $0["phase"] as? String == "enter" }
        // 20 s of 2 s segments, a break every four: at least two entered, each both ways, each id once.
        let ids = entered.compactMap { $0["id"] as? String }
        #expect(ids.count >= 4 && Set(ids).count == ids.count, "\(ids)")
        for e in entered {
            let mark = try #require((e["startDate"] as? String).flatMap(ISO8601Milliseconds.date))
            let at = try #require((e["playheadPDT"] as? String).flatMap(ISO8601Milliseconds.date))
            #expect(at.timeIntervalSince(mark) >= -0.04 && at.timeIntervalSince(mark) <= 0.3, "\(e)")
        }
        let left = cues.filter { $0["phase"] as? String == "leave" }
        #expect(left.count >= 2 && left.allSatisfy { abs(($0["seconds"] as? Double ?? 0) - 4) < 0.5 }, "\(left)")
    }
}

/// ISO 8601 with milliseconds, as monitor writes its dates.
enum ISO8601Milliseconds {
    static func date(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: s)
    }
}
