import Foundation
import Testing
import Origin

/// `hlstui monitor` against the embedded origin with real libmpv (vo=null, ao=null), run as a user would.
@Suite("hlstui monitor: the session as JSON Lines, through real libmpv", .serialized)
struct MonitorCLITests {
    var base: String { AppOrigin.base }

    @Test("VOD TS: ladder, variant, requests, 4 Hz player samples that advance, end with a summary; every origin request came from hlstui")
    func vod() async throws {
        let before = AppOrigin.state.log().count
        let r = try await MonitorRun.run(["\(base)/vod-ts/master.m3u8", "--duration", "4"])
        #expect(r.status == 0, "\(r.stderr)")
        let ladder = try #require(r.named("ladder").first)
        let variants = try #require(ladder["variants"] as? [[String: Any]])
        #expect(variants.count == 4 && variants[2]["index"] as? Int == 2 && variants[2]["resolution"] as? String == "640x360")
        // The ladder comes first, after at most the request that read it (the Loader reports its own reads too).
        #expect(r.events.first { $0["event"] as? String != "request" }?["event"] as? String == "ladder")
        #expect(
            r.named("request").contains {
                $0["kind"] as? String == "multivariant" && ($0["url"] as? String ?? "").hasSuffix("/vod-ts/master.m3u8")
            })
        let v = try #require(r.named("variant").first)
        #expect(v["reason"] as? String == "start" && v["to"] as? Int == 0)
        let segs = r.named("request").filter { $0["kind"] as? String == "segment" && $0["rung"] as? Int == 0 }
        #expect(segs.count >= 3)
        #expect(segs.allSatisfy { ($0["bytes"] as? Int ?? 0) > 0 && $0["ttfbMs"] is Double && $0["msn"] is Int })
        let players = r.named("player")
        #expect(players.count >= 12 && players.count <= 20, "4 Hz over 4 s: \(players.count)")
        let playing = players.filter { $0["state"] as? String == "playing" }
        #expect(playing.count >= 8)
        // The first frame is an event of its own, timed by the player, once: before the first sample that says playing, and
        // written before it.
        let first = try #require(r.named("firstFrame").first)
        let at = try #require(first["at"] as? Double)
        let firstPlaying = try #require(playing.first?["t"] as? Double)
        #expect(r.named("firstFrame").count == 1 && at > 0 && at <= firstPlaying, "\(first) vs the first playing sample at \(firstPlaying)")
        #expect(
            (r.events.firstIndex { $0["event"] as? String == "firstFrame" } ?? .max)
                < (r.events.firstIndex { $0["event"] as? String == "player" && $0["state"] as? String == "playing" } ?? -1))
        // time-pos advances with the samples' clock while playing. How long the run plays of its 4 s is the machine's: the
        // first frame of a loaded machine comes late, so the advance is measured against the playing samples' own span.
        let times = playing.compactMap { $0["timePos"] as? Double }
        let span = (playing.last?["t"] as? Double ?? 0) - firstPlaying
        #expect(
            times.count == playing.count && zip(times, times.dropFirst()).allSatisfy { $1 >= $0 } && span >= 1.75
                && times.last! - times.first! > 0.8 * span,
            "time-pos advances with the clock: \(times) over \(span) s")
        #expect(playing.allSatisfy { $0["width"] as? Int == 256 && $0["height"] as? Int == 144 })
        #expect(playing.last?["playheadPDT"] as? String != nil)
        #expect((playing.last?["bufferedRanges"] as? [[Double]])?.isEmpty == false)
        let t = players.compactMap { $0["t"] as? Double }
        // Lines written in the same millisecond share a stamp: t never goes back.
        #expect(zip(t, t.dropFirst()).allSatisfy { $1 >= $0 }, "t is monotonic")
        #expect(players.allSatisfy { ($0["wall"] as? String)?.hasSuffix("Z") == true })
        let end = try #require(r.named("end").first)
        let summary = try #require((end["summary"] as? [[String: Any]])?.first)
        #expect(summary["started"] as? Bool == true && summary["stalls"] as? Int == 0 && summary["error"] is NSNull)
        // The truth on the origin's side: everything came through the Loader, and only rung 0 of the ladder was fetched.
        let origin = AppOrigin.state.log(since: before).filter { $0.scenario == "vod-ts" }
        #expect(!origin.isEmpty && origin.allSatisfy { $0.userAgent?.hasPrefix("hlstui/") == true })
        // FFmpeg never probed the other rungs: only a rung ABR switched to was read (its playlist, ahead of the switch).
        let switchedTo = Set(r.named("variant").compactMap { $0["to"] as? Int }.map { "v" + ["144", "240", "360", "-"][min($0, 3)] })
        let probed = origin.filter { ($0.rendition == "v240" || $0.rendition == "v360") && !switchedTo.contains($0.rendition ?? "") }
        #expect(probed.isEmpty, "\(probed.map(\.path))")
        // One fetch upstream per object (the media playlist read ahead, the first segments read at start answer the player),
        // and no subtitle cue fetched for a player that shows none.
        let paths = Dictionary(grouping: origin.map { $0.path.split(separator: "?")[0] }, by: { $0 }).filter { $0.value.count > 1 }
        #expect(paths.isEmpty, "fetched more than once: \(paths.keys.sorted())")
        #expect(!origin.contains { $0.path.hasSuffix(".vtt") }, "\(origin.map(\.path).filter { $0.hasSuffix(".vtt") })")
        let early = r.named("request").filter { $0["kind"] as? String == "segment" && ($0["msn"] as? Int ?? 9) < 2 }
        #expect(early.count == 2 && early.allSatisfy { $0["prefetch"] as? Bool == true }, "segments 0 and 1 read at start: \(early)")
    }

    @Test("VOD fMP4: the init section and segments 0 and 1 are read ahead at start, in parallel, each fetched once")
    func startReads() async throws {
        let origin = AppOrigin.own()
        defer { origin.stop() }
        let r = try await MonitorRun.run(["\(origin.httpBase)/vod-fmp4/master.m3u8", "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let early = r.named("request").filter {
            ["init", "segment"].contains($0["kind"] as? String ?? "") && ($0["msn"] as? Int ?? 0) < 2 && $0["rung"] as? Int == 0
        }
        #expect(
            early.count == 3 && early.filter { $0["kind"] as? String == "init" }.count == 1
                && early.allSatisfy { $0["prefetch"] as? Bool == true }, "\(early)")
        let paths = origin.router.state.log().map { $0.path }
        #expect(Dictionary(grouping: paths, by: { $0 }).filter { $0.value.count > 1 }.isEmpty, "\(paths)")
        #expect(r.named("firstFrame").count == 1)
    }

    @Test(
        "every scenario plays through hlstui",
        arguments: [
            "vod-fmp4", "byterange-ts", "live-ts", "live-fmp4", "aes-vod", "aes-fmp4", "sample-aes-vod", "aes-live", "gap-one", "gap-all",
            "define", "demo", "cam-b", "ll-ts", "ll-fmp4",
        ])
    func scenario(name: String) async throws {
        let url =
            name == "define"
            ? "\(base)/define/master.m3u8?token=abc"
            : (name.hasPrefix("cam") ? "\(base)/\(name)/\(name)/index.m3u8" : "\(base)/\(name)/master.m3u8")
        let r = try await MonitorRun.run([url, "--duration", "4"])
        #expect(r.status == 0, "\(name): \(r.stderr) \(r.named("error"))")
        // The first sample after the first frame may come before the segment's timing reached the session (a loaded machine).
        let playing = Array(r.named("player").filter { $0["state"] as? String == "playing" }.dropFirst())
        #expect(playing.count >= 6, "\(name) played")
        let pos = playing.compactMap { $0["position"] as? Double }
        let raw = playing.compactMap { $0["timePos"] as? Double }
        // Live loops restart timestamps at each wrap: count only forward steps.
        let advanced = zip(raw, raw.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
        // At a live loop's timestamp reset mpv reports time-pos 0 for a moment (one sample, or two on a loaded machine):
        // those samples honestly have no position.
        let atReset = playing.filter { ($0["timePos"] as? Double) == 0 }.count
        #expect(
            pos.count >= playing.count - 1 - atReset && advanced > 1,
            "\(name): the position is measured and time advances: \(raw) \(playing.map { $0["position"] ?? "nil" })")
        if name.hasPrefix("live") || name == "demo" || name.hasPrefix("cam") || name == "aes-live" || name.hasPrefix("ll-") {
            // Live: the position is inside a sliding window; the PDT of the frame on screen is what advances.
            let latency = playing.compactMap { $0["liveLatency"] as? Double }
            #expect(latency.count >= playing.count - 1 - atReset && latency.allSatisfy { $0 > 0 && $0 < 30 }, "\(name) latency: \(latency)")
            let pdt = playing.compactMap { $0["playheadPDT"] as? String }
            #expect(pdt.count >= playing.count - 1 - atReset && pdt.last! > pdt.first!, "\(name) PDT advances")
        } else {
            #expect(pos.last! > pos.first! + 1, "\(name) VOD position advances: \(pos)")
        }
        if name == "sample-aes-vod" {
            // FFmpeg decrypts the samples; its complaints while probing them still encrypted are folded into one info line.
            let loud = r.named("log").filter { ["warn", "error"].contains($0["level"] as? String ?? "") }
            #expect(loud.isEmpty, "\(loud)")
        }
        if name.contains("aes") || name == "demo" {
            let keys = r.named("key")
            #expect(
                !keys.isEmpty && keys.allSatisfy { ($0["fingerprint"] as? String)?.count ?? 0 > 0 && $0["error"] is NSNull }, "\(name) keys"
            )
            #expect(!r.events.contains { "\($0)".contains("key\":\"") && ($0["event"] as? String) == "player" })
        }
        if name == "gap-all" {
            #expect(!r.named("gap").isEmpty, "the GAP segments were answered locally and reported")
        }
    }

    @Test("the picture camera: each loop's 4 s still frame is reported frozen, its 4 s of black reported black, in events and samples")
    func picture() async throws {
        // cam-p loops 16 s: moving, a repeated frame from 6 s, black from 10 s to 14 s. 30 s holds a whole still and black span.
        let r = try await MonitorRun.run(["\(base)/cam-p/cam-p/index.m3u8", "--duration", "30"])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        let events = r.named("picture").map { "\($0["state"] ?? "") \($0["since"] ?? $0["after"] ?? "")" }
        // Each span is measured from the frames sampled twice a second: within a sample or two of 4 s.
        let moving = r.named("picture").filter { $0["state"] as? String == "moving" }.compactMap { $0["after"] as? Double }
        let shown = r.named("picture").filter { $0["state"] as? String == "shown" }.compactMap { $0["after"] as? Double }
        #expect(moving.contains { (3.0...5.0).contains($0) }, "a frozen span of about 4 s: \(events)")
        #expect(shown.contains { (3.0...5.0).contains($0) }, "a black span of about 4 s: \(events)")
        // No other frozen span: a frozen report is always the still frame, followed by black (or the end of the run).
        #expect(moving.allSatisfy { $0 < 5.0 }, "\(events)")
        let labels = Set(r.named("player").compactMap { $0["picture"] as? String })
        #expect(labels.isSuperset(of: ["moving", "frozen", "black"]), "\(labels)")
        // The stream itself never stalled: what froze was the picture.
        #expect(r.named("stall").isEmpty && r.named("error").isEmpty)
    }

    @Test("--commands: a cap and a pin switch the rung the player really decodes; the origin serves the new rung")
    func commands() async throws {
        let dir = try CLI.directory(["cmds": "1.5 cap 240\n3.5 cap none\n"])
        let before = AppOrigin.state.log().count
        let r = try await MonitorRun.run([
            "\(base)/vod-ts/master.m3u8", "--pin", "2", "--duration", "6", "--commands", dir.appendingPathComponent("cmds").path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let switches = r.named("variant").map { ($0["from"] as? Int, $0["to"] as? Int, $0["reason"] as? String ?? "") }
        #expect(switches.map(\.1) == [2, 1, 2], "\(switches)")
        #expect(switches.dropFirst().allSatisfy { $0.2 == "cap" })
        #expect(r.named("command").count == 2)
        let heights = r.named("player").compactMap { $0["height"] as? Int }
        #expect(heights.contains(360) && heights.contains(240), "decoded heights: \(Set(heights))")
        let after240 = r.named("player").drop { $0["height"] as? Int != 240 }
        #expect(after240.contains { $0["height"] as? Int == 360 }, "the cap lifted: the pin plays again")
        let origin = AppOrigin.state.log(since: before).filter { $0.scenario == "vod-ts" && $0.kind == "segment" }
        #expect(origin.contains { $0.rendition == "v240" } && origin.contains { $0.rendition == "v360" })
    }

    @Test("seek outside the buffer works on fMP4 (reloaded at the segment) and on TS (mpv seek)", arguments: ["vod-fmp4", "vod-ts"])
    func seek(name: String) async throws {
        let dir = try CLI.directory(["cmds": "2 seek 14\n"])
        let r = try await MonitorRun.run([
            "\(base)/\(name)/master.m3u8", "--readahead", "2", "--duration", "5", "--commands", dir.appendingPathComponent("cmds").path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let after = r.named("player").filter { ($0["t"] as? Double ?? 0) > 3.5 }
        #expect(
            !after.isEmpty && after.allSatisfy { $0["state"] as? String == "playing" },
            "\(name) kept playing: \(after.map { $0["state"] ?? "" })")
        let pos = after.compactMap { $0["position"] as? Double }
        #expect(pos.count == after.count && (pos.first ?? 0) >= 13 && (pos.first ?? 99) < 17, "\(name) position after the seek: \(pos)")
    }

    @Test("a seek just after the first frame, to media delivered but not yet demuxed, plays on from there (fMP4 did not end)")
    func earlySeek() async throws {
        let dir = try CLI.directory(["cmds": "0.3 seek 14\n"])
        let r = try await MonitorRun.run([
            "\(base)/vod-fmp4/master.m3u8", "--duration", "3", "--commands", dir.appendingPathComponent("cmds").path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.named("ended").isEmpty, "the stream did not end after the seek")
        let after = r.named("player").filter { ($0["t"] as? Double ?? 0) > 1.5 }
        let pos = after.compactMap { $0["position"] as? Double }
        #expect(!pos.isEmpty && pos.allSatisfy { $0 >= 13.5 && $0 < 18 }, "\(pos)")
        #expect(after.allSatisfy { $0["state"] as? String == "playing" }, "\(after.map { $0["state"] ?? "" })")
    }

    @Test(
        "failures end with one line naming the cause and exit 1",
        arguments: [
            ("http://127.0.0.1:9/none.m3u8", "connection refused"),
            ("/vod-ts/missing.m3u8", "HTTP 404"),
            ("/define/master.m3u8", "line 4"),
        ])
    func failures(url: String, cause: String) async throws {
        let r = try await MonitorRun.run([url.hasPrefix("/") ? base + url : url, "--duration", "8"])
        #expect(r.status == 1)
        let err = try #require(r.named("error").first)
        #expect((err["message"] as? String)?.contains(cause) == true, "\(err)")
        #expect(!(err["message"] as? String ?? "").contains("\n"))
        #expect(r.named("end").count == 1)
        #expect((r.named("end").first?["t"] as? Double ?? 99) < 7, "a failure ends the run at once")
    }

    @Test(
        "a playlist that dribbles (never silent for the read timeout): --duration ends the run that never opened, naming what it waited for"
    )
    func neverOpened() async throws {
        let client = "dribble-\(UUID().uuidString.prefix(8))"
        // For this run's client only, and for a minute at most.
        let now = Date().timeIntervalSince1970
        var f = Fault(
            id: 0, kind: .trickle, target: .playlist, status: 0, ms: 200, scenario: "vod-ts", rendition: nil, msn: nil, remaining: nil,
            since: now, until: now + 60)
        f.client = client
        AppOrigin.state.add(f)
        let r = try await MonitorRun.run(["\(base)/vod-ts/master.m3u8?client=\(client)", "--duration", "2"], timeout: 30)
        #expect(r.status == 1, "\(r.stderr)")
        let error = try #require(r.named("error").first)
        #expect(
            error["message"] as? String
                == "the run's --duration of 2.0 s ended before the stream opened: the playlist \(base)/vod-ts/master.m3u8?client=\(client) had not arrived",
            "\(error)")
        #expect(error["cause"] as? String == "open")
        let end = try #require(r.named("end").first)
        let summary = try #require((end["summary"] as? [[String: Any]])?.first)
        #expect(summary["started"] as? Bool == false && summary["error"] as? String == error["message"] as? String)
        #expect((end["t"] as? Double ?? 99) < 4, "ended at its --duration: \(end)")
    }

    @Test("a bad --commands line is refused with its line number before anything plays")
    func badScript() async throws {
        let dir = try CLI.directory(["cmds": "1 cap 360\n2 jump 3\n"])
        let r = try await CLI.run(["monitor", "\(base)/vod-ts/master.m3u8", "--commands", dir.appendingPathComponent("cmds").path])
        #expect(r.status != 0)
        #expect(r.stderr.contains("commands line 2") && r.stdout.isEmpty)
    }
}
