import Foundation
import Origin
import Testing

/// Subtitles with real libmpv against the embedded origin, whose WebVTT segments hold one cue each naming their segment and
/// PDT, timed on the media's clock by X-TIMESTAMP-MAP (docs/SUBTITLES.md).
@Suite("Subtitles: the cue at the playhead, in time, VOD and live", .serialized)
struct SubtitlesE2ETests {
    var base: String { RenditionsOrigin.server.httpBase }

    /// The segment a cue's text names (`hlstui vod-ts · segment 3 · …`).
    static func segment(_ e: [String: Any]) -> Int? {
        guard let text = e["text"] as? String, let r = text.range(of: "segment ") else { return nil }
        return Int(text[r.upperBound...].prefix { $0.isNumber })
    }

    /// `monitor` on `path` with `args`, given `commands` as a script: the run (exit 0 expected) and its subtitle changes.
    func scripted(_ path: String, _ args: [String], commands: String) async throws -> (run: MonitorRun, changes: [[String: Any]]) {
        let cmds = try CLI.directory(["cmds": commands]).appendingPathComponent("cmds").path
        let r = try await MonitorRun.run(["\(base)/\(path)"] + args + ["--rate", "4", "--commands", cmds])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        return (r, r.named("rendition").filter { $0["type"] as? String == "subtitles" })
    }

    struct Track: CustomTestStringConvertible, Sendable {
        var scenario: String
        var subs = "en"
        /// IMSC1 in fragmented MP4 (the origin's `?imsc=1`) rather than WebVTT.
        var imsc = false
        var testDescription: String { scenario + (imsc ? " IMSC1" : " WebVTT") }
    }

    @Test(
        "--subs: every segment's cue shown in turn, none lost, each within 100 ms of its time on the player's clock",
        arguments: [
            Track(scenario: "vod-ts"), Track(scenario: "vod-fmp4"), Track(scenario: "live-ts"), Track(scenario: "live-fmp4"),
            Track(scenario: "demo"),
            Track(scenario: "vod-fmp4", subs: "English IMSC1", imsc: true), Track(scenario: "live-fmp4", subs: "English IMSC1", imsc: true),
        ])
    func inTime(track: Track) async throws {
        let scenario = track.scenario
        let r = try await MonitorRun.run(
            [
                "\(base)/\(scenario)/master.m3u8" + (track.imsc ? "?imsc=1" : ""), "--subs", track.subs, "--pin", "0", "--rate", "4",
                "--duration", "7",
            ],
            before: { if scenario.contains("live") { try await ContinuityTests.clearOfLoop(segment: 2) } })
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let start = try #require(r.named("rendition").first { $0["type"] as? String == "subtitles" })
        #expect(start["to"] as? String == (track.imsc ? "English IMSC1" : "English") && start["reason"] as? String == "start", "\(start)")
        let cues = r.named("subtitle").filter { $0["text"] as? String != nil }
        let numbers = cues.compactMap(Self.segment)
        #expect(numbers.count >= 3, "\(cues)")
        // One cue per segment, in order: no segment's cue lost or shown twice.
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(numbers)")
        // After the first (the start-up's), each cue appears as the playhead reaches its start: the screen within 100 ms.
        for c in cues.dropFirst() {
            let late = try #require(c["lateMs"] as? Double)
            #expect(late >= 0 && late <= 100, "\(c)")
        }
        // The cue names the segment the player shows: the playhead's PDT at the next sample lies in that segment.
        let text = try #require(cues.last?["text"] as? String)
        #expect(text.contains("hlstui \(scenario) · segment ") && text.hasSuffix("(IMSC1)") == track.imsc, "\(text)")
        #expect(r.named("skip").isEmpty && r.named("stall").isEmpty)
        #expect(r.named("violation").isEmpty, "a clean stream breaks no subtitle rule: \(r.named("violation"))")
    }

    struct Spoiled: CustomTestStringConvertible, Sendable {
        var kind: Fault.Kind
        var ms = 0
        var rule: String
        var testDescription: String { "\(kind.rawValue) → \(rule)" }
    }

    @Test(
        "each WebVTT rule fires on its fault, once, VOD and live: no signature, no X-TIMESTAMP-MAP, a map 10 s off the media",
        arguments: [
            Spoiled(kind: .vttnoheader, rule: "webvtt-header"), Spoiled(kind: .vttnomap, rule: "webvtt-timestamp-map"),
            Spoiled(kind: .vttshift, ms: 10_000, rule: "webvtt-off-media"),
        ])
    func rules(spoiled: Spoiled) async throws {
        let state = RenditionsOrigin.server.router.state
        for scenario in ["vod-fmp4", "live-ts"] {
            state.clearFaults()
            defer { state.clearFaults() }
            _ = state.add(
                Fault(
                    id: 0, kind: spoiled.kind, target: .segment, status: 200, ms: spoiled.ms, scenario: scenario, rendition: nil,
                    msn: nil, remaining: nil, since: 0))
            let r = try await MonitorRun.run(["\(base)/\(scenario)/master.m3u8", "--subs", "en", "--rate", "4", "--duration", "4"])
            #expect(r.status == 0, "\(r.stderr.suffix(400))")
            let found = r.named("violation").filter { $0["rule"] as? String == spoiled.rule }
            #expect(found.count == 1, "\(scenario): \(r.named("violation"))")
            #expect(found.first?["rendition"] as? String == "SUBTITLES subs/English", "\(found)")
            #expect(found.first?["section"] as? String == "RFC 8216bis §3.1.4", "\(found)")
        }
    }

    @Test("subs off stops the cues and the reads; subs en brings them back where the playhead is")
    func offAndOn() async throws {
        let (r, changes) = try await scripted(
            "vod-ts/master.m3u8", ["--subs", "en", "--duration", "8"], commands: "2.5 subs off\n5 subs en\n")
        #expect(
            changes.map { "\($0["reason"] ?? "") \($0["to"] as? String ?? "off")" } == ["start English", "manual off", "manual English"])
        let off = try #require(changes.count == 3 ? changes[1]["t"] as? Double : nil)
        let on = try #require(changes.count == 3 ? changes[2]["t"] as? Double : nil)
        let between = r.named("subtitle").filter { ($0["t"] as? Double ?? 0) > off && ($0["t"] as? Double ?? 0) < on }
        #expect(between.allSatisfy { $0["text"] is NSNull || $0["text"] == nil }, "\(between)")
        let reads = r.named("request").filter {
            ($0["url"] as? String)?.hasSuffix(".vtt") == true && ($0["t"] as? Double ?? 0) > off + 0.1 && ($0["t"] as? Double ?? 0) < on
        }
        #expect(reads.isEmpty, "\(reads.map { $0["url"] ?? "" })")
        let back = r.named("subtitle").first { ($0["t"] as? Double ?? 0) >= on && $0["text"] as? String != nil }
        #expect(back != nil, "the cue at the playhead is shown again")
        #expect(back.map { ($0["t"] as? Double ?? 99) - on < 0.5 } == true, "\(String(describing: back))")
    }

    /// Closed captions: the plain ladder's video carries CEA-608 CC1 and CC3 and CEA-708 service 1, one pop-on caption a
    /// segment in each, shown half a second in and cleared a second later (`CaptionSchedule`; docs/SUBTITLES.md, "Closed
    /// captions").
    @Test(
        "--subs English CC: each segment's caption shown within 100 ms of its frame and cleared a second later, none lost",
        arguments: ["vod-ts", "vod-fmp4", "live-ts", "live-fmp4"])
    func captionsInTime(scenario: String) async throws {
        try await Self.captions(scenario, "English CC", prefix: "CC1 segment ", query: "")
    }

    /// CC3 and CEA-708 service 1, which the player does not decode: hlstui decodes them from the segments' caption data, each
    /// caption drawn with the frame whose picture carries it and its time said (`start`, `lateMs`).
    @Test(
        "CC3 and 708 service 1 decoded by hlstui: each segment's caption within 100 ms of its frame, its own time said, none lost",
        arguments: [
            ("vod-ts", "Français CC"), ("vod-fmp4", "English 708"), ("live-ts", "English 708"), ("live-fmp4", "Français CC"),
        ])
    func ownCaptionsInTime(scenario: String, rendition: String) async throws {
        let prefix = rendition == "English 708" ? "708 service 1 segment " : "CC3 segment "
        try await Self.captions(scenario, rendition, prefix: prefix, query: "?cc=all")
    }

    /// LL-HLS at the floor (0.333 s parts, PART-HOLD-BACK 1 s; its video, cut from the plain ladder's, carries the same
    /// captions undeclared): the caption data is read part by part as the segment grows, so each caption is there before
    /// the playhead at the live edge reaches its picture.
    @Test("LL-HLS: 708 service 1 read part by part, each caption within 100 ms of its picture at the live edge")
    func lowLatencyCaptions() async throws {
        let (r, changes) = try await scripted(
            "ll-fmp4-fast/master.m3u8", ["--duration", "14"], commands: "5 subs SERVICE1 (undeclared)\n")
        #expect(changes.last?["to"] as? String == "SERVICE1 (undeclared)" && changes.last?["honoured"] as? Bool == true, "\(changes)")
        let on = try #require(changes.last?["t"] as? Double)
        // A caption showing when it was chosen is late by the time it had been up: only those that appeared after count.
        let shown = r.named("subtitle").filter { ($0["t"] as? Double ?? 0) > on + 1.1 && $0["text"] is String }
        #expect(shown.count >= 3 && shown.allSatisfy { ($0["text"] as? String)?.hasPrefix("708 service 1 segment ") == true }, "\(shown)")
        #expect(shown.allSatisfy { ($0["lateMs"] as? Double).map { $0 <= 100 } == true }, "\(shown)")
        #expect(r.named("stall").isEmpty, "\(r.named("stall"))")
    }

    static func captions(_ scenario: String, _ rendition: String, prefix: String, query: String) async throws {
        let r = try await MonitorRun.run(
            ["\(AppOrigin.base)/\(scenario)/master.m3u8\(query)", "--subs", rendition, "--pin", "0", "--rate", "4", "--duration", "7"],
            before: { if scenario.contains("live") { try await ContinuityTests.clearOfLoop(segment: 2) } })
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let start = try #require(r.named("rendition").first { $0["type"] as? String == "subtitles" })
        #expect(start["to"] as? String == rendition && start["honoured"] as? Bool == true, "\(start)")
        // Each segment's first timestamp as the Loader read it from its bytes: where its caption belongs on the player's clock.
        let starts = r.named("request").filter { $0["kind"] as? String == "segment" && $0["rung"] as? Int == 0 }
            .compactMap { $0["firstPTS"] as? Double }
        let changes = r.named("subtitle")
        let shown = changes.filter { $0["text"] as? String != nil }
        #expect(shown.count >= 3, "\(changes)")
        let own = !prefix.hasPrefix("CC1")
        for c in changes {
            let at = try #require(c["at"] as? Double)
            let segment = try #require(starts.filter { $0 <= at + 0.001 }.max(), "\(c) \(starts)")
            let due = segment + (c["text"] is String ? CaptionSchedule.shownAt : CaptionSchedule.clearedAt)
            #expect(at - due >= -0.001 && at - due <= 0.1, "\(c): due at \(due)")
            // A caption hlstui decodes carries the time of the picture that showed it: the frame at `shownAt`.
            if own, c["text"] is String {
                let from = try #require(c["start"] as? Double, "\(c)")
                #expect(abs(from - due) <= 0.001 && c["lateMs"] is Double, "\(c): due at \(due)")
            }
        }
        let numbers = shown.compactMap(Self.segment)
        #expect(numbers.count == shown.count && shown.allSatisfy { ($0["text"] as? String)?.hasPrefix(prefix) == true }, "\(shown)")
        // One caption a segment, in order (the encode's ten segments loop live): none lost, none twice.
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == ($0 + 1) % 10 }, "\(numbers)")
        #expect(r.named("skip").isEmpty && r.named("stall").isEmpty)
        #expect(r.named("violation").isEmpty, "declared captions break no rule: \(r.named("violation"))")
    }

    @Test(
        "captions the playlist leaves out are found and offered (CC1 by the player, 708 service 1 by hlstui); CLOSED-CAPTIONS=NONE over captions is captions-none"
    )
    func captionsUndeclared() async throws {
        let (r, changes) = try await scripted(
            "vod-ts/master.m3u8?cc=undeclared", ["--pin", "0", "--duration", "7"], commands: "3 subs CC1 (undeclared)\n")
        #expect(changes.last?["to"] as? String == "CC1 (undeclared)" && changes.last?["honoured"] as? Bool == true, "\(changes)")
        let on = try #require(changes.last?["t"] as? Double)
        #expect(
            r.named("subtitle").contains { ($0["t"] as? Double ?? 0) > on && ($0["text"] as? String)?.hasPrefix("CC1 segment ") == true })
        #expect(r.named("violation").isEmpty, "no CLOSED-CAPTIONS: the video may carry some (§4.4.6.2)")
        // The channels hlstui decodes are found in the segments' caption data and offered the same way.
        let (own, ownChanges) = try await scripted(
            "vod-fmp4/master.m3u8?cc=undeclared", ["--pin", "0", "--duration", "6"], commands: "2.5 subs SERVICE1 (undeclared)\n")
        #expect(
            ownChanges.last?["to"] as? String == "SERVICE1 (undeclared)" && ownChanges.last?["honoured"] as? Bool == true, "\(ownChanges)")
        let ownOn = try #require(ownChanges.last?["t"] as? Double)
        let ownShown = own.named("subtitle").filter { ($0["t"] as? Double ?? 0) > ownOn && $0["text"] is String }
        #expect(
            !ownShown.isEmpty && ownShown.allSatisfy { ($0["text"] as? String)?.hasPrefix("708 service 1 segment ") == true },
            "\(own.named("subtitle"))")

        let none = try await MonitorRun.run(["\(base)/vod-ts/master.m3u8?cc=none", "--pin", "0", "--rate", "4", "--duration", "5"])
        #expect(none.status == 0, "\(none.stderr.suffix(400))")
        let rules = none.named("violation").compactMap { $0["rule"] as? String }
        #expect(rules == ["captions-none"], "\(none.named("violation"))")
        #expect(none.named("subtitle").isEmpty, "found, not shown")
    }

    @Test("subs off hides the captions at once and English CC brings them back at the next caption, the playback untouched")
    func captionsOffAndOn() async throws {
        let (r, changes) = try await scripted(
            "vod-ts/master.m3u8", ["--subs", "English CC", "--pin", "0", "--duration", "8"], commands: "2.2 subs off\n4.2 subs English CC\n"
        )
        #expect(
            changes.map { "\($0["reason"] ?? "") \($0["to"] as? String ?? "off")" } == [
                "start English CC", "manual off", "manual English CC",
            ])
        let off = try #require(changes.count == 3 ? changes[1]["t"] as? Double : nil)
        let on = try #require(changes.count == 3 ? changes[2]["t"] as? Double : nil)
        let texts = r.named("subtitle").map { ($0["t"] as? Double ?? 0, $0["text"] as? String) }
        #expect(texts.contains { $0.0 < off && $0.1 == "CC1 segment 0" }, "\(texts)")
        #expect(!texts.contains { $0.0 > off && $0.0 < on && $0.1 != nil }, "nothing shown while off: \(texts)")
        #expect(texts.contains { $0.0 > on && $0.1?.hasPrefix("CC1 segment ") == true }, "shown again: \(texts)")
        #expect(r.named("skip").isEmpty && r.named("stall").isEmpty && r.named("seek").isEmpty, "the player was not moved")
    }

    @Test("inspect --media holds CLOSED-CAPTIONS to the video: clean, NONE over captions (captions-none), CC1 over none (captions-missing)")
    func captionsInspected() async throws {
        func findings(_ path: String) async throws -> (status: Int32, rules: [String: Int]) {
            let r = try await CLI.run(["inspect", "--media", "--json", "\(base)/\(path)"], timeout: 120)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
            let rules = (doc["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }.filter { $0.hasPrefix("captions") }
            return (r.status, Dictionary(rules.map { ($0, 1) }, uniquingKeysWith: +))
        }
        #expect(try await findings("vod-ts/master.m3u8").rules.isEmpty)
        let none = try await findings("vod-fmp4/master.m3u8?cc=none")
        #expect(none.rules == ["captions-none": 3] && none.status == 1, "each video variant: \(none)")
        let missing = try await findings("broadcast-vod-ts/master.m3u8?cc=declared")
        #expect(missing.rules == ["captions-missing": 3], "\(missing)")
    }
}
