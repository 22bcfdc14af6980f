import Foundation
import Origin
import Testing

/// An origin of its own: these runs switch rungs and read cameras, which other suites count on the shared origin's log.
enum CueOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
}

/// The breaks and other date ranges a stream announces, on the timeline of a real player (docs/EVENTS.md): `monitor`'s `cue`
/// events.
@Suite("Breaks through real libmpv: monitor says when the playhead enters and leaves each, at the moment the playlist gives")
struct CueEventsTests {
    @Test(
        "VOD with a break every five 2 s segments, both ways, and a chapter every three: entered and left at the first sample past its start and its end"
    )
    func vodBreaks() async throws {
        // Played to its end (20 s), where monitor ends by itself: every moment below is reached however late a loaded machine
        // starts the player (a run cut at a wall-clock duration missed the last break's end). `--duration` only bounds a hang.
        let r = try await MonitorRun.run(["\(CueOrigin.base)/vod-ts/master.m3u8?cues=5&chapters=3", "--duration", "60"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let end = try #require(r.named("end").first?["summary"] as? [[String: Any]])
        #expect(end.first?["state"] as? String == "ended", "\(end)")
        let all = r.named("cue")
        let cues = all.filter { $0["break"] as? Bool == true }
        // The chapters (date ranges of a CLASS, no SCTE-35): each ends where the next starts (END-ON-NEXT), at 0, 6, 12 and
        // 18 s; the last has no next: open, as long as what the playlist has left (2 s), never left.
        let chapters = all.filter { $0["break"] as? Bool == false }
        let chapterPhases = chapters.map { "\($0["phase"] ?? "") \($0["id"] ?? "") \($0["class"] ?? "")" }
        #expect(
            chapterPhases == [
                "enter chapter-0 com.hlstui.chapter", "leave chapter-0 com.hlstui.chapter", "enter chapter-1 com.hlstui.chapter",
                "leave chapter-1 com.hlstui.chapter", "enter chapter-2 com.hlstui.chapter", "leave chapter-2 com.hlstui.chapter",
                "enter chapter-3 com.hlstui.chapter",
            ], "\(chapterPhases)")
        for e in chapters {
            let start = try #require(e["start"] as? Double)
            let position = try #require(e["position"] as? Double)
            let last = e["id"] as? String == "chapter-3"
            #expect(e["actual"] as? Double == (last ? 2 : 6) && e["closed"] as? Bool == !last, "\(e)")
            let moment = e["phase"] as? String == "enter" ? start : start + 6
            let before = Self.sampleBefore(e, in: r)?["position"] as? Double
            #expect(
                position >= moment - 0.04 && (before.map { $0 < moment + 0.04 } ?? (moment == 0)), "\(String(describing: before)) → \(e)")
        }
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
            // Said at the first sample past the moment the playlist gives: this one at or past it, the one before short of it
            // (however late a loaded machine takes its samples).
            let moment = e["phase"] as? String == "enter" ? start : start + planned
            // (The first break starts where playback does: no sample before it has a position.)
            let before = Self.sampleBefore(e, in: r)?["position"] as? Double
            #expect(
                position >= moment - 0.04 && (before.map { $0 < moment + 0.04 } ?? (moment == 0)), "\(String(describing: before)) → \(e)")
        }
        // Inside for its length at least: it played through the break, not past it.
        let left = cues.filter { $0["phase"] as? String == "leave" }.compactMap { $0["seconds"] as? Double }
        #expect(left.count == 4 && left.allSatisfy { $0 >= 4 - 0.3 }, "\(left)")
        #expect(r.named("skip").isEmpty)
    }

    /// The player sample of `e`'s pane read just before `e`.
    static func sampleBefore(_ e: [String: Any], in r: MonitorRun) -> [String: Any]? {
        let t = e["t"] as? Double ?? 0
        return r.named("player").last { $0["pane"] as? Int == e["pane"] as? Int && ($0["t"] as? Double ?? 0) < t }
    }

    @Test(
        "a live camera: each break entered at the first sample past its PDT (the mark), left past its end; none twice as the window slides")
    func liveBreaks() async throws {
        let r = try await MonitorRun.run(["\(CueOrigin.base)/cam-a/cam-a/index.m3u8?cues=4", "--duration", "20"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let cues = r.named("cue")
        let entered = cues.filter { $0["phase"] as? String == "enter" }
        // 20 s of 2 s segments, a break every four: at least two entered, each both ways, each id once.
        let ids = entered.compactMap { $0["id"] as? String }
        #expect(ids.count >= 4 && Set(ids).count == ids.count, "\(ids)")
        for e in cues {
            // The mark: the break's start on the wall clock; it is left at the mark plus its length.
            let mark = try #require((e["startDate"] as? String).flatMap(ISO8601Milliseconds.date))
            let moment = e["phase"] as? String == "enter" ? mark : mark.addingTimeInterval(e["actual"] as? Double ?? 4)
            let at = try #require((e["playheadPDT"] as? String).flatMap(ISO8601Milliseconds.date))
            // (A break the playhead starts inside is entered at the first sample: none before it has a PDT.)
            let previous = Self.sampleBefore(e, in: r)?["playheadPDT"] as? String
            let before = previous.flatMap(ISO8601Milliseconds.date)
            #expect(
                at.timeIntervalSince(moment) >= -0.04 && (before.map { $0.timeIntervalSince(moment) < 0.04 } ?? true),
                "\(String(describing: before)) → \(e)")
        }
        // Inside for what was left of the break when it was entered (all of it, unless the player started inside it).
        let left = cues.filter { $0["phase"] as? String == "leave" }
        #expect(left.count >= 2, "\(left)")
        for e in left {
            let id = e["id"] as? String
            let enter = try #require(entered.first { $0["id"] as? String == id }, "\(e)")
            let mark = try #require((e["startDate"] as? String).flatMap(ISO8601Milliseconds.date))
            let inAt = try #require((enter["playheadPDT"] as? String).flatMap(ISO8601Milliseconds.date))
            let rest = (e["actual"] as? Double ?? 4) - inAt.timeIntervalSince(mark)
            #expect((e["seconds"] as? Double ?? 0) >= rest - 0.3, "\(rest) s left when entered: \(e)")
        }
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
