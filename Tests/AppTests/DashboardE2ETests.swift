import Foundation
import TestSupport
import Testing

/// The dashboard in a real terminal (tmux), against the embedded origin, with real libmpv.
@Suite("hlstui URL in tmux: see the dashboard, press keys, quit, terminal restored", .serialized)
struct DashboardE2ETests {
    var base: String { AppOrigin.base }
    var hlstui: String { CLI.binary.path }

    @Test("80x24: plays, keys change the cap and the rung, help opens and closes, resize redraws, q quits and restores the terminal")
    func keys() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/live-ts/master.m3u8 --pin 2 --video none --ao null")
        // PLAYING comes with the player's first frame; the position and the live latency with the sample after it (a frame
        // drawn between the two reads "--:--").
        var s = await t.wait { $0.contains("PLAYING") && $0.contains("#2 360p") && $0.contains("live -") }
        #expect(s.contains("PLAYING") && s.contains("#2 360p") && s.contains("live -"), "\(s)")
        #expect(t.alternateScreen)
        #expect(s.contains("─ Ladder") && s.contains("─ Buffer") && s.contains("─ Requests"))
        #expect(s.split(separator: "\n").allSatisfy { $0.count <= 80 })
        t.keys("-")
        s = await t.wait { $0.contains("#1 240p") && $0.contains("cap ≤240p") }
        #expect(
            s.contains("cap ≤240p") && s.contains("(held by cap)") && s.contains("#1 240p"),
            "one step down from no cap is the second-highest height: \(s)")
        t.keys("-")
        s = await t.wait { $0.contains("#0 144p") && $0.contains("cap ≤144p") }
        #expect(s.contains("cap ≤144p") && s.contains("#0 144p"), "\(s)")
        t.keys("0")
        s = await t.wait { $0.contains("cap none") && $0.contains("#2 360p") }
        #expect(s.contains("cap none") && s.contains("#2 360p"), "\(s)")
        t.keys("?")
        // Wait for the whole box: a capture can land while curses is still writing the frame.
        s = await t.wait { $0.contains("keys (? to close)") && $0.contains("resolution cap down a step") }
        #expect(s.contains("resolution cap down a step"), "\(s)")
        t.keys("?")
        s = await t.wait { !$0.contains("keys (? to close)") }
        #expect(!s.contains("keys (? to close)"))
        t.keys("l")
        s = await t.wait { $0.contains("─ Messages") }
        #expect(s.contains("─ Messages"))
        t.resize(120, 40)
        s = await t.wait { $0.split(separator: "\n").first.map { $0.count > 100 } ?? false }
        #expect(s.split(separator: "\n", omittingEmptySubsequences: false).count >= 39, "redrawn at 120x40")
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"))
        #expect(!t.alternateScreen, "curses ended: the shell's screen is back")
    }

    @Test("v: the picture in place of the log, in colour cells that change as the video plays; v again: the log")
    func picture() async throws {
        let t = Tmux()
        // (`swift test` sets NO_COLOR for what it runs; a user's terminal has colour.)
        await t.start("env -u NO_COLOR \(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null", width: 100, height: 30)
        var s = await t.wait { $0.contains("PLAYING") }
        #expect(s.contains("─ Requests"), "\(s)")
        t.keys("v")
        s = await t.wait { $0.contains("─ Picture") && $0.contains("sampled") }
        #expect(s.contains("─ Picture") && !s.contains("─ Requests"), "\(s)")
        // The picture's cells: half blocks with 256-colour foreground and background (TERM=xterm-256color).
        func colours(_ screen: String) -> [String] {
            screen.split(separator: "\n").filter { $0.contains("▀") }.map { String($0) }
        }
        let first = colours(t.screenWithEscapes())
        let blocks = first.joined().filter { $0 == "▀" }.count
        #expect(blocks >= 400, "a picture of half blocks: \(blocks)\n\(t.screen())")
        #expect(Self.sgrColours(first.joined()).filter(\.indexed).count > 20, "in colour")
        // cam-a's pattern moves: a later capture differs in its colours.
        let moved = await eventually(timeout: 10, every: 0.2) { colours(t.screenWithEscapes()) != first }
        #expect(moved, "the picture changes as the video plays")
        t.keys("v")
        s = await t.wait { $0.contains("─ Requests") }
        #expect(s.contains("─ Requests") && !s.contains("─ Picture"))
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"), "\(s)")
    }

    /// The colours the SGR sequences in `screen` set, read parameter by parameter (38/48 then 2;r;g;b or 5;n), so a 256-colour
    /// setting is told apart from an RGB value that happens to end in 48 before a 5.
    static func sgrColours(_ screen: String) -> [(indexed: Bool, value: [Int])] {
        var out: [(indexed: Bool, value: [Int])] = []
        var rest = screen[...]
        while let open = rest.range(of: "\u{1B}[") {
            let body = rest[open.upperBound...].prefix { $0.isNumber || $0 == ";" }
            rest = rest[body.endIndex...]
            guard rest.first == "m" else { continue }
            let ps = body.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            var i = 0
            while i < ps.count {
                if ps[i] == 38 || ps[i] == 48, i + 1 < ps.count {
                    if ps[i + 1] == 5, i + 2 < ps.count {
                        out.append((true, [ps[i + 2]]))
                        i += 3
                        continue
                    }
                    if ps[i + 1] == 2, i + 4 < ps.count {
                        out.append((false, Array(ps[(i + 2)...(i + 4)])))
                        i += 5
                        continue
                    }
                }
                i += 1
            }
        }
        return out
    }

    @Test(
        "v on a terminal with 24-bit colour (a direct-colour TERM, or a 256-colour one with COLORTERM=truecolor): the picture's cells in direct RGB, changing as the video plays",
        arguments: ["TERM=xterm-direct", "TERM=xterm-256color COLORTERM=truecolor"])
    func pictureDirectColour(terminal: String) async throws {
        let t = Tmux()
        await t.start(
            "env -u NO_COLOR -u COLORTERM \(terminal) \(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null", width: 100,
            height: 30)
        _ = await t.wait { $0.contains("PLAYING") }
        t.keys("v")
        _ = await t.wait { $0.contains("─ Picture") && $0.contains("sampled") }
        func rgb(_ screen: String) -> [[Int]] { Self.sgrColours(screen).filter { !$0.indexed }.map(\.value) }
        let first = rgb(t.screenWithEscapes())
        #expect(first.count >= 400, "direct-colour cells: \(first.count)\n\(t.screen())")
        #expect(!Self.sgrColours(t.screenWithEscapes()).contains { $0.indexed }, "no 256-colour approximation")
        let moved = await eventually(timeout: 10, every: 0.2) { rgb(t.screenWithEscapes()) != first }
        #expect(moved, "the picture changes as the video plays")
        t.keys("q")
        let s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"), "\(s)")
    }

    @Test(
        "g: history plots of throughput, buffer ahead, bitrate and latency that grow as the stream plays; w: the requests as a waterfall; the key again: the log"
    )
    func historyAndWaterfall() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/live-ts/master.m3u8 --video none --ao null", width: 80, height: 24)
        var s = await t.wait { $0.contains("PLAYING") }
        t.keys("g")
        s = await t.wait { $0.contains("─ History") && $0.contains("live latency") }
        #expect(!s.contains("─ Requests"), "\(s)")
        // Each figure a line of block sparkline at 80×24; the plots fill from the right as seconds pass.
        func plotted(_ screen: String) -> Int {
            screen.split(separator: "\n").filter { $0.contains("throughput") || $0.contains("ahead") || $0.contains("bitrate") }
                .map { line in line.dropFirst(28).filter { "▁▂▃▄▅▆▇█".contains($0) }.count }.reduce(0, +)
        }
        let grown = await eventually(timeout: 15, every: 0.5) { plotted(t.screen()) >= 9 }
        let first = t.screen()
        #expect(grown, "\(first)")
        #expect(first.contains("bps") && first.contains("s a column"), "\(first)")
        let more = await eventually(timeout: 10, every: 0.5) { plotted(t.screen()) > plotted(first) }
        #expect(more, "the plots grow as the stream plays\n\(t.screen())")
        t.keys("w")
        s = await t.wait { $0.contains("─ Waterfall") }
        #expect(!s.contains("─ History") && s.contains("s across"), "\(s)")
        // Segment requests as bars: a label, then waiting (░) and transfer (█) cells on the shared axis.
        let bars = s.split(separator: "\n").filter { $0.hasPrefix("segment") && $0.contains("█") }
        #expect(bars.count >= 3, "\(s)")
        t.keys("w")
        s = await t.wait { $0.contains("─ Requests") }
        #expect(!s.contains("─ Waterfall"))
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"), "\(s)")
    }

    @Test(
        "a stream with breaks: the buffer bar marks them; E shows each with its SCTE-35 decoded and the playhead inside; E again: the log")
    func events() async throws {
        let t = Tmux()
        // The origin of the break tests: this run switches rungs, which suites on the shared origin count.
        await t.start("\(hlstui) '\(CueOrigin.base)/vod-ts/master.m3u8?cues=5' --video none --ao null", width: 100, height: 30)
        var s = await t.wait { $0.contains("PLAYING") && $0.contains("2 breaks") }
        #expect(s.contains("◆ break"), "\(s)")
        t.keys("E")
        s = await t.wait { $0.contains("─ Events") && $0.contains("cue-out@5") }
        #expect(s.contains("splice_insert event 5 out immediately, break 4.000 s (auto return)"), "\(s)")
        #expect(s.contains("break-0  DATERANGE  00:00:00.000  planned 4.0s, lasts 4.0s"), "\(s)")
        // The playhead reaches the second break (10–14 s): marked inside.
        s = await t.wait(timeout: 20) { $0.contains("▶ cue-out@5") }
        #expect(s.contains("▶ cue-out@5") && s.contains("inside"), "\(s)")
        t.keys("E")
        s = await t.wait { $0.contains("─ Requests") }
        #expect(!s.contains("─ Events"))
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"), "\(s)")
    }

    @Test("--audio and A: the info line names the audio playing, the renditions line marks it, A moves to the next")
    func audio() async throws {
        let t = Tmux()
        // vod-fmp4: the shared origin's vod-ts requests are counted by the monitor suite.
        await t.start("\(hlstui) \(base)/vod-fmp4/master.m3u8 --audio Deutsch --video none --ao null", width: 120, height: 30)
        var s = await t.wait { $0.contains("PLAYING") && $0.contains("audio Deutsch [de] 6ch") }
        #expect(s.contains("audio Deutsch [de] 6ch") && s.contains("audio aac/Deutsch [de] playing"), "\(s)")
        t.keys("A")
        s = await t.wait { $0.contains("audio English [en] 2ch") && $0.contains("(in variant) playing") }
        #expect(s.contains("audio English [en] 2ch") && !s.contains("Deutsch [de] playing"), "\(s)")
        t.keys("l")
        s = await t.wait { $0.contains("audio: Deutsch [de] 6ch → English [en] 2ch (reload+seek)") }
        #expect(s.contains("audio: Deutsch [de] 6ch → English [en] 2ch (reload+seek)"), "\(s)")
        t.keys("q")
        #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT=0"))
    }

    @Test("S shows the subtitles: the cue at the playhead on its line, under the picture with v; S again turns them off")
    func subtitles() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/vod-fmp4/master.m3u8 --video none --ao null", width: 160, height: 30)
        var s = await t.wait { $0.contains("PLAYING") }
        #expect(!s.contains("subs English"), "no DEFAULT subtitle rendition: none shown at first; \(s)")
        t.keys("S")
        s = await t.wait { $0.contains("subs English [en]") && $0.contains("hlstui vod-fmp4 · segment ") }
        #expect(s.contains("subtitles subs/English [en] shown"), "\(s)")
        t.keys("v")
        s = await t.wait { $0.contains("Picture") && $0.contains("hlstui vod-fmp4 · segment ") }
        let lines = s.split(separator: "\n")
        let picture = try #require(lines.firstIndex { $0.contains("Picture") })
        let cue = try #require(lines.firstIndex { $0.contains("hlstui vod-fmp4 · segment ") })
        #expect(cue > picture, "the cue under the picture: \(s)")
        t.keys("S")
        s = await t.wait { !$0.contains("subs English [en]") }
        #expect(!s.contains("hlstui vod-fmp4 · segment "), "\(s)")
        t.keys("q")
        #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT=0"))
    }

    @Test("SIGTERM ends hlstui and restores the terminal")
    func sigterm() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/vod-ts/master.m3u8 --video none --ao null")
        await t.wait { $0.contains("PLAYING") }
        let pid = try #require(childPID(of: t.panePID, named: "hlstui"))
        kill(pid, SIGTERM)
        let s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"))
        #expect(!t.alternateScreen)
    }

    @Test("a crash restores the terminal and says so")
    func crash() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/vod-ts/master.m3u8 --video none --ao null", environment: ["HLSTUI_TEST_CRASH": "1"])
        let s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("the terminal was restored"))
        // The runtime's own message was captured with the rest and is shown once the terminal is back.
        #expect(s.contains("Fatal error: HLSTUI_TEST_CRASH"), "\(s)")
        #expect(!s.contains("EXIT=0"))
        #expect(!t.alternateScreen)
    }

    @Test("NO_COLOR: no colour escapes, attributes only; an unreachable origin is one line in the status area, then q quits")
    func noColorAndError() async throws {
        let t = Tmux()
        await t.start("\(hlstui) http://127.0.0.1:9/none.m3u8 --video none --ao null", environment: ["NO_COLOR": "1"])
        let s = await t.wait { $0.contains("ERROR") }
        #expect(s.contains("✖ cannot open the stream:") && s.contains("connection refused"), "\(s)")
        let raw = t.screenWithEscapes().replacingOccurrences(of: "\u{1B}[39m", with: "").replacingOccurrences(of: "\u{1B}[49m", with: "")
        #expect(
            !raw.contains("\u{1B}[3") && !raw.contains("\u{1B}[4") && !raw.contains("38;5") && !raw.contains("48;5"),
            "no colour SGR under NO_COLOR")
        #expect(raw.contains("\u{1B}[7m") || raw.contains(";7m"), "reverse video still marks the status line")
        t.keys("q")
        let end = await t.wait { $0.contains("EXIT=") }
        #expect(end.contains("EXIT=1") && end.contains("hlstui: pane 0: cannot open the stream"))
        #expect(!t.alternateScreen)
    }

    @Test("two panes: both play, Tab moves the focus, keys act on the focused pane")
    func twoPanes() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/cam-a/cam-a/index.m3u8 \(base)/vod-ts/master.m3u8 --video none --ao null", width: 100, height: 48)
        var s = await t.wait { $0.components(separatedBy: "PLAYING").count == 3 }
        #expect(s.components(separatedBy: "PLAYING").count == 3, "\(s)")
        t.keys("Tab")
        t.keys("-")
        s = await t.wait { $0.contains("cap ≤240p") }
        let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
        let capLine = try #require(lines.firstIndex { $0.contains("cap ≤240p") })
        #expect(capLine > 20, "the cap went to the second (focused) pane, stacked below")
        #expect(lines.filter { $0.contains("cap none") }.count == 1, "the first pane kept no cap")
        t.keys("q")
        #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT=0"))
    }
}

extension DashboardE2ETests {
    @Test("o asks for a URL and opens it in a second pane; the two cameras lock on PDT; s switches the lock off")
    func openSecondPane() async throws {
        let t = Tmux()
        await t.start("\(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null", width: 100, height: 48)
        _ = await t.wait { $0.contains("PLAYING") }
        t.keys("o")
        var s = await t.wait { $0.contains("Open another pane, URL:") }
        #expect(s.contains("Open another pane, URL: █"), "\(s)")
        t.tmux(["send-keys", "-t", "t", "-l", "\(base)/cam-b/cam-b/index.m3u8"])
        t.keys("Enter")
        s = await t.wait(timeout: 40) { $0.components(separatedBy: "PLAYING").count == 3 && $0.contains("SYNC locked") }
        #expect(s.contains("SYNC locked") && s.components(separatedBy: "PLAYING").count == 3, "\(s)")
        t.keys("s")
        s = await t.wait { $0.contains("SYNC off: switched off") }
        #expect(s.contains("SYNC off: switched off"))
        t.keys("q")
        #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT=0"))
    }
}
