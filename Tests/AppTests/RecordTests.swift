import Foundation
import Origin
import Recording
import Testing
import LoaderEvents

/// An origin of its own: the recorded session's faults touch no other suite.
enum RecordOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

@Suite("--record: a faulty session into one SQLite file, as the origin saw it", .serialized)
struct RecordTests {
    @Test("monitor --record keeps every exchange (500 twice, 404 once, a truncated body), every event line and the commands")
    func faultySession() async throws {
        let state = RecordOrigin.state
        state.clearFaults()
        defer { state.clearFaults() }
        let dir = try CLI.directory(["cmds": "3 pin 1\n"])
        let file = dir.appendingPathComponent("session.sqlite").path
        func fault(_ kind: Fault.Kind, status: Int, msn: Int, count: Int) {
            _ = state.add(
                Fault(
                    id: 0, kind: kind, target: .segment, status: status, ms: 0, scenario: "vod-ts", rendition: nil, msn: msn,
                    remaining: count, since: 0))
        }
        fault(.status, status: 500, msn: 1, count: 2)
        fault(.status, status: 404, msn: 3, count: 1)
        fault(.truncate, status: 200, msn: 5, count: 1)
        let mark = state.log().count
        let r = try await MonitorRun.run([
            "\(RecordOrigin.base)/vod-ts/master.m3u8", "--duration", "8", "--record", file, "--commands",
            dir.appendingPathComponent("cmds").path,
        ])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let f = try RecordingFile(path: file)
        let meta = try f.meta()
        #expect(meta["command"] == "monitor" && meta["urls"]?.contains("/vod-ts/master.m3u8") == true, "\(meta)")
        // Every request the origin answered is in the recording, in the same order for each URL, with the same status.
        let origin = state.log().dropFirst(mark)
        let recorded = try f.exchanges()
        func byPath(_ rows: [(String, Int?)]) -> [String: [Int?]] { Dictionary(grouping: rows, by: \.0).mapValues { $0.map(\.1) } }
        let seen = byPath(origin.map { ($0.path, Optional($0.status)) })
        let kept = byPath(recorded.map { (URLComponents(string: $0.url)?.path ?? $0.url, $0.status) })
        #expect(kept == seen, "recorded \(kept.count) URLs, the origin answered \(seen.count)")
        let failures = recorded.filter { $0.status != 200 || $0.failure != nil }.map { "\($0.status ?? 0) \($0.failure ?? "-")" }
        #expect(failures.filter { $0.hasPrefix("500") }.count == 2 && failures.contains("404 -"), "\(failures)")
        // (A player asks for `bytes=0-`: the origin honours Range for media and subtitles alike, 206.)
        #expect(failures.contains("200 truncated") || failures.contains("206 truncated"), "the cut body is kept as cut: \(failures)")
        // Bodies: each segment's bytes are what the origin served.
        let seg = try #require(recorded.first { $0.url.hasSuffix(".ts") && [200, 206].contains($0.status) && $0.failure == nil })
        let served = [UInt8](try await CLI.tool("curl", ["-s", seg.url] + (seg.range.map { ["-H", "Range: \($0)"] } ?? [])))
        #expect(try f.body(#require(seg.body)) == served)
        // The events are the lines the monitor wrote; the command is kept with its time.
        let events = try f.events()
        #expect(events.count == r.events.count, "\(events.count) recorded, \(r.events.count) written")
        #expect(Set(events.map(\.name)) == Set(r.events.compactMap { $0["event"] as? String }))
        let inputs = try f.inputs()
        #expect(inputs.count == 1 && inputs[0].command.contains("pin") && abs(inputs[0].t - 3) < 0.5, "\(inputs)")
        // A standard tool reads it.
        let sql = try await CLI.runTool("sqlite3", [file, "SELECT count(*) FROM exchange WHERE status = 500"])
        #expect(sql.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(sql)")
        // A second run never writes over it.
        let again = try await MonitorRun.run(["\(RecordOrigin.base)/vod-ts/master.m3u8", "--duration", "2", "--record", file])
        #expect(again.status == 2)
        #expect(again.named("error").contains { ($0["message"] as? String)?.contains("exists") == true }, "\(again.events.prefix(2))")
        #expect(try RecordingFile(path: file).events().count == events.count, "the first recording is left as it was")
    }

    /// A request as the session reported it, with the origin's address taken out (the replay's is another).
    /// Requests grouped by URL, each URL's in the order they were made: requests of different URLs run at once (a subtitle
    /// cue beside a segment, two cues), so the order in which they end is the machine's, not the stream's.
    static func byURL(_ list: [String]) -> [String] {
        list.enumerated().sorted {
            ($0.element.split(separator: " ").first ?? "", $0.offset) < ($1.element.split(separator: " ").first ?? "", $1.offset)
        }.map(\.element)
    }

    /// The segment requests `file` holds as `requests` writes them (one attempt each, none retried): what the recorded session
    /// got from the origin, those it was still reading when its monitor stopped included — a replay, which runs to where the
    /// recording's requests end, makes them too.
    static func recordedSegments(_ file: String) throws -> [String] {
        try RecordingFile(path: file).exchanges().filter { e in
            !e.secret && [".ts", ".m4s", ".vtt", ".aac", ".mp4"].contains { (URL(string: e.url)?.path ?? e.url).hasSuffix($0) }
                && !(URL(string: e.url)?.path ?? "").hasSuffix("init.mp4")
        }.map { e in
            "\(e.url) \(e.status.map(String.init) ?? "<null>") retries 0 <null> <null>".replacingOccurrences(
                of: #"http://127\.0\.0\.1:\d+(/h\d+)?"#, with: "", options: .regularExpression)
        }
    }

    /// Each request as what was asked and answered: its URL, status, retries, failure and how its body was resumed — not how
    /// long the resume took, which is the machine's (a read timeout noticed at 10.0 s idle, 10.3 s on a loaded machine).
    static func requests(_ r: MonitorRun, kind: String = "segment") -> [String] {
        r.named("request").filter { $0["kind"] as? String == kind }.map { e in
            let text = "\(e["url"] ?? "") \(e["status"] ?? "") retries \(e["retries"] ?? "") \(e["error"] ?? "-") \(e["resumed"] ?? "-")"
            return text.replacingOccurrences(of: #"http://127\.0\.0\.1:\d+(/h\d+)?"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #" after \d+\.\d s"#, with: " after … s", options: .regularExpression)
        }
    }

    @Test(
        "replay --json with the origin stopped: the same segment requests with the same statuses, retries and failures (a stalled body times out again), the same switch"
    )
    func replay() async throws {
        let origin = AppOrigin.own()
        let state = origin.router.state
        let dir = try CLI.directory(["cmds": "3 pin 1\n"])
        let file = dir.appendingPathComponent("faulty.sqlite").path
        for (kind, status, msn) in [(Fault.Kind.status, 500, 1), (.status, 404, 3), (.truncate, 200, 5), (.stall, 200, 2)] {
            _ = state.add(
                Fault(
                    id: 0, kind: kind, target: .segment, status: status, ms: 0, scenario: "vod-ts",
                    rendition: kind == .stall ? "v144" : kind == .status && status == 500 ? "audio-de" : nil, msn: msn,
                    remaining: status == 500 ? 2 : 1, since: 0))
        }
        // Started pinned: the replay starts pinned too (the recorded options), or its first switches differ. Deutsch: a
        // rendition of its own, whose requests are retried in place (the variant's are slots, failed over to other rungs).
        let recorded = try await MonitorRun.run([
            "\(origin.httpBase)/vod-ts/master.m3u8", "--duration", "13", "--pin", "0", "--audio", "de", "--record", file, "--commands",
            dir.appendingPathComponent("cmds").path,
        ])
        origin.stop()
        #expect(recorded.status == 0, "\(recorded.stderr.suffix(400))")
        let want = Self.requests(recorded)
        #expect(want.contains { $0.contains("retries 2") } && want.contains { $0.contains(" 404 ") }, "the faults happened: \(want)")
        #expect(
            want.contains { $0.contains("seg2.ts") && $0.contains("read timeout") && $0.contains("resumed at byte") },
            "the stall timed out and the body was resumed: \(want)")
        let switches = { (r: MonitorRun) in r.named("variant").map { "\($0["to"] ?? "") \($0["reason"] ?? "")" } }
        let mechanisms = { (r: MonitorRun) in r.named("variant").map { "\($0["mechanism"] ?? "")" } }
        for _ in 0..<2 {
            let again = try await MonitorRun.run(["--json"], command: ["replay", file])
            #expect(again.status == 0, "\(again.stderr.suffix(400))")
            let got = Self.requests(again)
            let listing = "replayed:\n\(got.joined(separator: "\n"))\nrecorded:\n\(want.joined(separator: "\n"))"
            // The command is given where the recorded one met the player (after as many media requests), so the switch takes
            // the same mechanism and the player asks for the same segments: the same requests with the same answers, each URL's
            // in the same order; requests of different URLs run at once (a subtitle cue beside a segment), so the order in which
            // they end is the machine's, not the stream's.
            #expect(mechanisms(again) == mechanisms(recorded), "\(listing)")
            #expect(Self.byURL(got) == Self.byURL(want), "\(listing)")
            // (What the Loader did with the broken bodies, to tell a divergence's cause: each break, resume and attempt.)
            #expect(again.named("divergence").isEmpty, "\(again.named("divergence")) resumes: \(again.named("resume"))")
            #expect(switches(again) == switches(recorded))
            #expect(again.named("command").count == 1)
        }
    }

    @Test("--redact and `recording redact`: the token is nowhere in the file, and the redacted recording replays")
    func redacted() async throws {
        let dir = try CLI.directory([:])
        let secret = "S3CR3T\(Int.random(in: 1000...9999))"
        let url = "\(RecordOrigin.base)/define/master.m3u8?token=\(secret)"
        let live = dir.appendingPathComponent("redacted.sqlite").path
        let plain = dir.appendingPathComponent("plain.sqlite").path
        let copy = dir.appendingPathComponent("copy.sqlite").path
        let recorded = try await MonitorRun.run([url, "--duration", "4", "--record", live, "--redact"])
        #expect(recorded.status == 0, "\(recorded.stderr.suffix(300))")
        _ = try await MonitorRun.run([url, "--duration", "3", "--record", plain])
        let said = try await CLI.runTool(CLI.binary.path, ["recording", "redact", plain, copy])
        #expect(said.contains("redacted"), "\(said)")
        func holds(_ file: String) throws -> Bool { try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(secret.utf8)) != nil }
        #expect(try holds(plain), "the plain recording has it (the check can see it)")
        #expect(try !holds(live) && !holds(copy), "neither redacted file holds the token")
        // To where the recorded session's requests end, as a replay runs (not a fixed time: a loaded machine's player reads
        // less in 4 s, and the lists would differ by where the clock stopped them).
        let again = try await MonitorRun.run(["--json"], command: ["replay", live])
        #expect(again.status == 0, "\(again.stderr.suffix(300))")
        let want = try Self.recordedSegments(live)
        #expect(
            Set(Self.requests(recorded).map { $0.replacingOccurrences(of: secret, with: "REDACTED") }).isSubset(of: Set(want)),
            "\(Self.requests(recorded)) in \(want)")
        #expect(Self.byURL(Self.requests(again)) == Self.byURL(want), "the redacted recording replays the same requests")
    }

    @Test("hlstui URL --record in tmux: keys pressed are recorded as commands and replayed; q ends the recording whole")
    func dashboard() async throws {
        let dir = try CLI.directory([:])
        let file = dir.appendingPathComponent("dashboard.sqlite").path
        let t = Tmux()
        await t.start("\(CLI.binary.path) \(RecordOrigin.base)/vod-ts/master.m3u8 --pin 2 --video none --record \(file)")
        var s = await t.wait { $0.contains("PLAYING") && $0.contains("#2 360p") }
        t.keys("-")
        s = await t.wait { $0.contains("cap ≤240p") }
        #expect(s.contains("cap ≤240p"), "\(s)")
        t.keys("q")
        s = await t.wait { $0.contains("EXIT=") }
        #expect(s.contains("EXIT=0"), "\(s)")
        let f = try RecordingFile(path: file)
        #expect(try f.meta()["command"] == "play")
        let commands = try f.inputs().map(\.command)
        #expect(commands == ["cap down", "quit"], "\(commands)")
        #expect(try f.events().contains { $0.name == "variant" && $0.json.contains("\"reason\":\"cap\"") })
        #expect(try f.exchanges().contains { $0.url.hasSuffix(".ts") })
        // Replayed with --json, the key's command comes back at its time and moves the rung the same way.
        let again = try await MonitorRun.run(["--json", "--pin", "2"], command: ["replay", file])
        #expect(again.named("command").first?["action"] as? String == "capDown", "\(again.named("command"))")
        #expect(again.named("variant").contains { $0["reason"] as? String == "cap" && $0["to"] as? Int == 1 })
    }

    @Test("--record-keys: key bytes sealed (never raw or hex in the file), the replay decrypts; another vault or a redacted copy cannot")
    func sealedKeys() async throws {
        let origin = AppOrigin.own()
        let dir = try CLI.directory([:])
        let file = dir.appendingPathComponent("keys.sqlite").path
        let mine = ["XDG_DATA_HOME": dir.appendingPathComponent("mine").path]
        let url = "\(origin.httpBase)/aes-vod/master.m3u8"
        let recorded = try await MonitorRun.run(
            [url, "--pin", "0", "--duration", "6", "--record", file, "--record-keys"], environment: mine)
        #expect(recorded.status == 0, "\(recorded.stderr.suffix(300))")
        let keyURLs = Set(try RecordingFile(path: file).exchanges().filter(\.secret).map(\.url))
        let keyRows = try RecordingFile(path: file).exchanges().filter(\.secret)
        #expect(!keyURLs.isEmpty && keyRows.allSatisfy { $0.sealed || $0.status != 200 })
        var keys: [[UInt8]] = []
        for u in keyURLs { keys.append([UInt8](try await CLI.tool("curl", ["-s", u]))) }
        origin.stop()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        for k in keys {
            #expect(k.count == 16)
            let raw = (0...(bytes.count - k.count)).contains { bytes[$0..<($0 + k.count)].elementsEqual(k) }
            #expect(!raw && !text.contains(k.map { String(format: "%02x", $0) }.joined()), "a key is in the file")
        }
        // What the recorded session asked of the origin, as the recording holds it: its monitor stopped with the last segment
        // still arriving, on a loaded machine, and never reported it.
        let want = try Self.recordedSegments(file)
        #expect(Set(Self.requests(recorded)).isSubset(of: Set(want)), "\(Self.requests(recorded)) in \(want)")
        let again = try await MonitorRun.run(["--json"], command: ["replay", file], environment: mine)
        #expect(again.status == 0 && again.named("error").isEmpty, "\(again.named("error")) \(again.stderr.suffix(300))")
        // Rendition by rendition, in order: the video, audio and subtitle streams are read side by side, so how their
        // requests interleave varies from run to run.
        func byRendition(_ l: [String]) -> [String: [String]] {
            Dictionary(grouping: l) { String($0.split(separator: " ")[0].split(separator: "/").dropLast().joined(separator: "/")) }
        }
        #expect(!want.isEmpty && byRendition(Self.requests(again)) == byRendition(want), "\(Self.requests(again)) vs \(want)")
        #expect(again.named("key").allSatisfy { $0["error"] is NSNull || $0["error"] == nil } && !again.named("key").isEmpty)
        // Someone else's vault opens nothing, and says so once at the start.
        let other = try await MonitorRun.run(
            ["--json", "--duration", "3"], command: ["replay", file],
            environment: ["XDG_DATA_HOME": dir.appendingPathComponent("other").path])
        let notes = other.named("diagnostic").compactMap { $0["message"] as? String }
        #expect(notes.contains { $0.contains("sealed under another user's vault key") }, "\(notes)")
        // A redacted copy keeps no key at all.
        let copy = dir.appendingPathComponent("copy.sqlite").path
        _ = try await CLI.runTool(CLI.binary.path, ["recording", "redact", file, copy])
        let copied = try RecordingFile(path: copy).exchanges().filter(\.secret)
        #expect(!copied.isEmpty && copied.allSatisfy { !$0.sealed && $0.body == nil })
    }
}
