import Foundation
import Origin
import Testing

/// An origin of its own: these runs switch rungs on streams whose requests other suites count on the shared one.
enum RenditionsOrigin {
    static let server = AppOrigin.own()
}

/// Audio renditions with real libmpv against the embedded origin (English in the variant, Deutsch as a rendition of its own):
/// chosen at start, switched mid-play, kept across a rung switch (docs/RENDITIONS.md).
@Suite("Audio renditions: --audio, a switch mid-play, kept across rung switches", .serialized)
struct RenditionsE2ETests {
    var base: String { RenditionsOrigin.server.httpBase }

    struct Case: CustomTestStringConvertible, Sendable {
        var scenario: String
        var mechanism: String
        /// The rung pinned between the audio switches and the height it shows. The demo's v360 has a recurring GAP window
        /// (filled from v240, so 360p is not on screen there): the demo pins v240, whose media is always there.
        var pin = 2
        var height = 360
        var testDescription: String { "\(scenario) (\(mechanism))" }
    }

    @Test(
        "--audio de plays Deutsch; A plays English from where it was, a rung pinned keeps it, audio Deutsch brings it back; no skip",
        arguments: [
            Case(scenario: "vod-ts", mechanism: "reload+seek"), Case(scenario: "live-fmp4", mechanism: "reload@boundary"),
            Case(scenario: "demo", mechanism: "reload@boundary", pin: 1, height: 240),
        ])
    func switchMidPlay(c: Case) async throws {
        let cmds = try CLI.directory(["cmds": "3 audio next\n5 pin \(c.pin)\n7.5 audio Deutsch\n"]).appendingPathComponent("cmds").path
        let r = try await MonitorRun.run(
            [
                "\(base)/\(c.scenario)/master.m3u8", "--audio", "de", "--pin", "0", "--switch", "immediate", "--rate", "10", "--duration",
                "11",
                "--commands", cmds,
            ],
            before: { if c.scenario.contains("live") { try await ContinuityTests.clearOfLoop(segment: 2) } })
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let changes = r.named("rendition")
        #expect(
            changes.map { "\($0["reason"] ?? "") \($0["to"] ?? "")" } == ["start Deutsch", "manual English", "manual Deutsch"],
            "\(changes)")
        #expect(changes.dropFirst().allSatisfy { $0["mechanism"] as? String == c.mechanism }, "\(changes)")
        // What mpv plays, by the language of its audio track: Deutsch, then English from the first switch to the second.
        let english = try #require(changes.count == 3 ? changes[1]["t"] as? Double : nil)
        let german = try #require(changes.count == 3 ? changes[2]["t"] as? Double : nil)
        let playing = r.players(after: 0).filter { $0["state"] as? String == "playing" }
        let lang = { (from: Double, to: Double) in
            Set(
                playing.filter { ($0["t"] as? Double ?? 0) > from && ($0["t"] as? Double ?? 0) < to }.compactMap {
                    $0["audioTrackLanguage"] as? String
                })
        }
        #expect(lang(0, english) == ["de"], "before the first switch: \(lang(0, english))")
        #expect(lang(english + 0.5, german) == ["en"], "between the switches: \(lang(english + 0.5, german))")
        #expect(lang(german + 0.5, 99) == ["de"], "after the second: \(lang(german + 0.5, 99))")
        // And the channels mpv decodes: Deutsch is the 5.1 mix.
        let channels = { (from: Double, to: Double) in
            Set(
                playing.filter { ($0["t"] as? Double ?? 0) > from && ($0["t"] as? Double ?? 0) < to }.compactMap {
                    $0["audioChannels"] as? Int
                })
        }
        #expect(
            channels(0, english) == [6] && channels(english + 0.5, german) == [2],
            "\(channels(0, english)) \(channels(english + 0.5, german))")
        // The rung switch between them kept English: the pinned rung's picture on screen with English, and no change said for it.
        #expect(
            playing.contains { $0["height"] as? Int == c.height && $0["audioTrackLanguage"] as? String == "en" },
            "\(playing.map { "\($0["t"] ?? "") \($0["height"] ?? "") \($0["audioTrackLanguage"] ?? "")" })")
        // The player fetched no Deutsch segment while English played (the served group held English alone).
        let deutsch = r.named("request").filter {
            ($0["url"] as? String)?.contains("/audio-de/") == true && $0["kind"] as? String == "segment"
        }
        let during = deutsch.filter { ($0["t"] as? Double ?? 0) > english + 1 && ($0["t"] as? Double ?? 0) < german }
        #expect(during.isEmpty, "\(during.map { $0["url"] ?? "" })")
        #expect(deutsch.contains { ($0["t"] as? Double ?? 0) > german }, "Deutsch fetched again after the second switch")
        let excess = r.largestForwardExcess(after: 1)
        #expect(excess.seconds < 0.15, "the media time moved \(excess.seconds) s past the clock: \(excess.between)")
        #expect(r.named("skip").isEmpty && r.named("stall").isEmpty, "\(r.named("skip")) \(r.named("stall"))")
    }

    @Test("--audio names nothing in the group: the DEFAULT plays and the run says so")
    func notInGroup() async throws {
        let r = try await MonitorRun.run(["\(base)/vod-fmp4/master.m3u8", "--audio", "fr", "--rate", "4", "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let start = try #require(r.named("rendition").first)
        #expect(start["to"] as? String == "English" && start["honoured"] as? Bool == false, "\(start)")
        #expect(r.players(after: 0.5).contains { $0["audioTrackLanguage"] as? String == "en" })
    }
}
