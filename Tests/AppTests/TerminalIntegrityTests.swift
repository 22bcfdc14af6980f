import App
import Foundation
import Testing

/// The terminal stays hlstui's: run as the README runs it (no --ao, no --mute) on this machine, in a real terminal (tmux).
@Suite("A clean screen on any machine: only hlstui draws, any locale, no terminal, repaint and suspend", .serialized)
struct TerminalIntegrityTests {
    var hlstui: String { CLI.binary.path }

    /// The section titles and the ladder's header and rows every dashboard frame of the demo stream has.
    static func wholeDashboard(_ s: String, ascii: Bool = false) -> Bool {
        let rule = ascii ? "- " : "─ "
        return ["Ladder", "Buffer", "Keys", "Requests"].allSatisfy { s.contains(rule + $0) }
            && s.contains("#  resolution") && s.contains("0  256x144") && s.contains("2  640x360")
            && s.contains("PDT 20") && moving(s)
    }

    /// The stream moves: playing, or restarting where mpv resets itself at the live loop's timestamp jump (a few tenths of a
    /// second every loop of the demo's 20 s of media — a capture taken 20 s after the first frame can land in one).
    static func moving(_ s: String) -> Bool { s.contains("PLAYING") || s.contains("RESTARTING") }

    /// What a library writing on the terminal leaves there (ALSA, PipeWire, JACK).
    static func foreignText(_ s: String) -> String? {
        ["ALSA lib", "pw.conf", "[W][", "[E][", "Cannot connect to server", "Fatal error"].first { s.contains($0) }
    }

    @Test("hlstui demo as the README starts it: after 20 s every section and ladder row is on screen and nothing else wrote there")
    func readmeDemo() async throws {
        for (w, h) in [(120, 40), (80, 24)] {
            let t = Tmux()
            await t.start("\(hlstui) demo", width: w, height: h)
            _ = await t.wait { $0.contains("PLAYING") }
            try await Task.sleep(for: .seconds(h == 40 ? 20 : 8))
            let s = t.screen()
            #expect(Self.foreignText(s) == nil, "\(w)x\(h): foreign text on the dashboard:\n\(s)")
            #expect(
                s.contains("─ Ladder") && s.contains("─ Buffer") && s.contains("#  resolution") && Self.moving(s), "\(w)x\(h):\n\(s)"
            )
            if h == 40 { #expect(Self.wholeDashboard(s), "every section title and ladder row:\n\(s)") }
            #expect(s.split(separator: "\n").allSatisfy { $0.count <= w })
            if h == 40 {
                // What the audio libraries said is one line each in the message log, not on the screen.
                t.keys("l")
                let note = "audio: no output device (no sound card, no PulseAudio or PipeWire): silent"
                var m = await t.wait { $0.contains("─ Messages") }
                let facts = AudioOutputChoice.Facts.read()
                if !facts.soundCards && !facts.soundServer {
                    // The log lists the newest first: the note said at start is on the last page, however long the log grew.
                    for _ in 0..<8 where !m.contains(note) {
                        t.keys("PgDn")
                        m = await t.wait(timeout: 1) { $0.contains(note) }
                    }
                    #expect(m.contains(note), "\(m)")
                }
            }
            t.keys("q")
            let end = await t.wait { $0.contains("EXIT=") }
            #expect(end.contains("EXIT=0"), "\(end)")
            #expect(!t.alternateScreen)
        }
    }

    @Test("LANG=C: the dashboard draws in ASCII only, with every section; --ascii forces it under UTF-8")
    func asciiLocale() async throws {
        for (env, extra) in [(["LANG": "C", "LC_ALL": "C"], ""), ([:], " --ascii"), (["TERM": "linux"], "")] {
            let t = Tmux()
            await t.start("\(hlstui) demo\(extra)", width: 120, height: 40, environment: env)
            let s = await t.wait { Self.wholeDashboard($0, ascii: true) }
            #expect(Self.wholeDashboard(s, ascii: true), "\(env)\(extra):\n\(s)")
            #expect(s.unicodeScalars.allSatisfy { $0.isASCII }, "\(env)\(extra): only ASCII on screen:\n\(s)")
            t.keys("q")
            #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT=0"))
        }
    }

    @Test("no terminal: without a TTY, with TERM=dumb, an unknown TERM or none, hlstui URL exits 2 at once with one line")
    func noTerminal() async throws {
        let url = "http://127.0.0.1:9/none.m3u8"
        let piped = try await CLI.run([url], timeout: 10)
        #expect(piped.status == 2, "\(piped.stderr)")
        #expect(
            piped.stderr.split(separator: "\n").count == 1 && piped.stderr.contains("not a terminal")
                && piped.stderr.contains("hlstui monitor"), "\(piped.stderr)")
        for (term, words) in [("dumb", "cannot move the cursor"), ("no-such-terminal", "has no terminfo entry")] {
            let t = Tmux()
            await t.start("\(hlstui) \(url)", environment: ["TERM": term])
            let s = await t.wait(timeout: 10) { $0.contains("EXIT=") }
            #expect(
                s.contains("EXIT=2") && s.contains("TERM=\(term)") && s.contains(words) && s.contains("hlstui monitor"), "\(term): \(s)")
        }
    }

    @Test("Ctrl-L repaints every cell after another program wrote on the terminal")
    func repaint() async throws {
        let t = Tmux()
        await t.start("\(hlstui) demo", width: 120, height: 40)
        _ = await t.wait { Self.wholeDashboard($0) }
        // Another program (wall, a background job) scribbles on the same terminal.
        let tty = try #require(FileHandle(forWritingAtPath: t.paneTTY))
        tty.write(Data("\u{1B}[5;1HSCRIBBLE SCRIBBLE SCRIBBLE\u{1B}[2J\u{1B}[20;10HSCRIBBLE\n".utf8))
        try? tty.close()
        let dirty = await t.wait(timeout: 5) { $0.contains("SCRIBBLE") }
        #expect(dirty.contains("SCRIBBLE"))
        t.keys("C-l")
        let clean = await t.wait(timeout: 5) { !$0.contains("SCRIBBLE") && Self.wholeDashboard($0) }
        #expect(!clean.contains("SCRIBBLE") && Self.wholeDashboard(clean), "\(clean)")
        t.keys("q")
        #expect(await t.wait { $0.contains("EXIT=") }.contains("EXIT=0"))
    }

    @Test("Ctrl-Z stops hlstui as a shell job with the shell's screen back; fg brings the whole dashboard back")
    func suspendResume() async throws {
        let t = Tmux()
        await t.startInShell("\(hlstui) demo", width: 120, height: 40)
        _ = await t.wait { Self.wholeDashboard($0) }
        t.keys("C-z")
        let stopped = await t.wait(timeout: 10) { $0.contains("Stopped") }
        #expect(stopped.contains("Stopped") && !t.alternateScreen, "\(stopped)")
        t.tmux(["send-keys", "-t", "t", "-l", "fg"])
        t.keys("Enter")
        let back = await t.wait { Self.wholeDashboard($0) && $0.contains("PLAYING") }
        #expect(Self.wholeDashboard(back) && t.alternateScreen, "\(back)")
        t.keys("q")
        // The shell's prompt is back once hlstui has ended (its players close after the screen is given back).
        _ = await t.wait { s in
            !t.alternateScreen
                && (s.split(separator: "\n").last.map { $0.hasSuffix("# ") || $0.hasSuffix("$ ") || $0.hasSuffix("#") || $0.hasSuffix("$") }
                    ?? false)
        }
        t.tmux(["send-keys", "-t", "t", "-l", "echo EXIT=$?"])
        t.keys("Enter")
        // The typed command holds "EXIT=" too: wait for bash's answer, a line of its own.
        let answered = { (s: String) in s.split(separator: "\n").contains { $0.hasPrefix("EXIT=") } }
        let end = await t.wait { answered($0) }
        #expect(end.split(separator: "\n").contains { $0.hasPrefix("EXIT=0") } && !t.alternateScreen, "\(end)")
    }
}
