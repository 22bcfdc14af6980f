import Foundation
import Offline
import Origin
import TestSupport
import Testing

/// An origin of its own: the download suite switches key formats and faults, then stops it to play offline.
enum DownloadOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

@Suite("hlstui download: a rendition set that plays on its own, keys sealed and expiring", .serialized)
struct DownloadTests {
    /// A vault and registry of the run's own (never the user's), and a folder to download into.
    static func setting() throws -> (out: String, env: [String: String]) {
        let d = try CLI.directory([:]).path
        return (d + "/download", ["XDG_DATA_HOME": d + "/data"])
    }

    static func manifest(_ dir: String) throws -> DownloadManifest {
        try JSONDecoder().decode(DownloadManifest.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/hlstui-download.json")))
    }

    /// Every file under `dir`, read whole.
    static func everyFile(_ dir: String) -> [(String, Data)] {
        let e = FileManager.default.enumerator(atPath: dir)
        var out: [(String, Data)] = []
        while let f = e?.nextObject() as? String {
            if let d = FileManager.default.contents(atPath: dir + "/" + f) { out.append((f, d)) }
        }
        return out
    }

    static func segmentRequests(since mark: Int) -> [String] {
        DownloadOrigin.state.log(since: mark).filter { $0.path.hasSuffix(".ts") }.map { "\($0.path) \($0.range ?? "-")" }
    }

    @Test(
        "the AES-128 ladder at ≤ 360p, one audio, subtitles, keys served as 17 bytes: strict playlists, no key byte in the folder; a cut segment resumes with Range; offline with its cues"
    )
    func aesLadder() async throws {
        let state = DownloadOrigin.state
        defer { state.clearFaults() }
        let (out, env) = try Self.setting()
        let url = "\(DownloadOrigin.base)/aes-vod/master.m3u8"
        let args = ["download", url, "--out", out, "--max-resolution", "360", "--audio", "de", "--subs", "en"]
        // First run: keys as 17 bytes (a trailing newline), segment 4 of v360 stops after a quarter of its body, and the run
        // is killed while it waits.
        state.keyFormat = "newline"
        _ = state.add(
            Fault(
                id: 0, kind: .stall, target: .segment, status: 200, ms: 0, scenario: "aes-vod", rendition: "v360", msn: 4, remaining: 1,
                since: 0))
        let mark = state.log().count
        let died = try await CLI.killed(
            args + ["--parallel", "1"], environment: env,
            when: { state.log(since: mark).contains { $0.path.hasSuffix("v360/seg4.ts") } }, settle: .milliseconds(800))
        #expect(died)
        state.clearFaults()
        // How far the killed run got, should it not have reached segment 4.
        let reached = (FileManager.default.enumerator(atPath: out)?.allObjects as? [String] ?? []).sorted()
        let requested = state.log(since: mark).map(\.path)
        let held = try #require(
            (try? FileManager.default.attributesOfItem(atPath: out + "/v360/000004.ts.part"))?[.size] as? Int,
            "segment 4's part: the folder holds \(reached), the origin saw \(requested)")
        #expect(held > 0)
        let first = Self.segmentRequests(since: mark)
        state.keyFormat = "binary"
        // Second run: the same command.
        let again = state.log().count
        let r = try await CLI.run(args, environment: env)
        #expect(r.status == 0, "\(r.stdout.suffix(600)) \(r.stderr.suffix(300))")
        let asked = Self.segmentRequests(since: again)
        // The cut segment from the bytes held, and only so (the fetches run four at once: their order at the origin varies).
        #expect(asked.filter { $0.hasPrefix("/aes-vod/v360/seg4.ts") } == ["/aes-vod/v360/seg4.ts bytes=\(held)-"], "\(asked)")
        let v360 = asked.filter { $0.contains("/v360/") }.map { String($0.split(separator: " ")[0]) }
        for done in first.filter({ $0.contains("/v360/") && !$0.contains("seg4.ts") }).map({ String($0.split(separator: " ")[0]) }) {
            #expect(!v360.contains(done), "\(done) was stored before the kill and fetched again")
        }
        // What was chosen, and why.
        #expect(r.stdout.contains("640x360") && r.stdout.contains("--max-resolution 360p"), "\(r.stdout)")
        let m = try Self.manifest(out)
        #expect(m.complete && m.renditions.map(\.type) == ["VIDEO", "AUDIO", "SUBTITLES"], "\(m.renditions)")
        #expect(m.renditions.allSatisfy { $0.stored == $0.segments && $0.segments == 10 }, "\(m.renditions)")
        #expect(m.keys.count == 4 && m.keys.allSatisfy { $0.method == "AES-128" })
        // Every playlist passes --strict.
        for p in ["index.m3u8"] + m.renditions.map(\.playlist) {
            let i = try await CLI.run(["inspect", "--strict", out + "/" + p])
            #expect(i.status == 0, "\(p): \(i.stdout.suffix(400))")
        }
        // No key byte anywhere in the folder: not raw, not as hex text.
        for id in 0..<4 {
            let key = Data(OriginKeys.key(scenario: "aes-vod", id: id))
            let hex = Data(key.map { String(format: "%02x", $0) }.joined().utf8)
            for (name, data) in Self.everyFile(out) {
                #expect(data.range(of: key) == nil && data.range(of: hex) == nil, "key \(id) in \(name)")
            }
        }
        let keyFiles = try FileManager.default.attributesOfItem(atPath: out + "/keys")
        #expect((keyFiles[.posixPermissions] as? Int) == 0o700)
        // The origin stopped: the download plays to the end through the Loader, with its subtitles.
        DownloadOrigin.server.stop()
        let played = try await MonitorRun.run([out, "--subs", "en"], environment: env)
        let cues = played.named("subtitle").compactMap { $0["text"] as? String }
        #expect(cues.count == 10 && cues.allSatisfy { $0.hasPrefix("hlstui aes-vod · segment ") }, "every cue offline: \(cues)")
        #expect(played.status == 0 && !played.named("ended").isEmpty, "\(played.stderr.suffix(300))")
        #expect(played.named("stall").isEmpty && played.named("error").isEmpty)
        let summary = try #require((played.named("end").first?["summary"] as? [[String: Any]])?.first)
        #expect(summary["keys"] as? Int == 4 && (summary["segments"] as? Int ?? 0) >= 20, "\(summary)")
        let last = try #require(played.named("player").last)
        #expect((last["timePos"] as? Double ?? 0) > 19, "\(last)")
        #expect(played.named("key").allSatisfy { $0["error"] is NSNull && $0["fingerprint"] is String })
    }
}

@Suite("hlstui download: expiry, live capture, DRM and the offline commands", .serialized)
struct DownloadLifecycleTests {
    static let origin = AppOrigin.own()

    @Test("keys served as hex; storage and playback clocks: a key past either is one line and exit 1; renew gives new clocks, rm deletes")
    func expiry() async throws {
        let (out, env) = try DownloadTests.setting()
        let url = "\(Self.origin.httpBase)/aes-vod/master.m3u8"
        // Keys served as hex text: stored (and renewed) as the 16 bytes they stand for.
        Self.origin.router.state.keyFormat = "hex"
        defer { Self.origin.router.state.keyFormat = "binary" }
        let r = try await CLI.run(
            [
                "download", url, "--out", out, "--max-resolution", "144", "--subs", "none", "--storage-duration", "1h",
                "--playback-duration", "4s",
            ],
            environment: env)
        #expect(r.status == 0 && r.stdout.contains("hex text decoded"), "\(r.stdout.suffix(400))")
        let before = try DownloadTests.manifest(out)
        #expect(before.keys.allSatisfy { $0.firstPlay == nil && $0.storageDuration == 3600 && $0.playbackDuration == 4 })
        // The first play arms the playback clock and says the countdowns.
        let first = try await MonitorRun.run([out, "--duration", "2"], environment: env)
        #expect(first.status == 0, "\(first.stderr.suffix(300))")
        #expect(
            first.named("diagnostic").contains { ($0["message"] as? String)?.contains("playback 4s") == true },
            "\(first.named("diagnostic"))")
        let armed = try DownloadTests.manifest(out)
        let at = try #require(armed.keys.first?.firstPlay)
        #expect(armed.keys.allSatisfy { $0.firstPlay == at })
        // The playback clock runs out (real time: the key's deadline is the wall clock's).
        #expect(await eventually(timeout: 10, every: 0.2) { Date().timeIntervalSince1970 >= at + 4.2 })
        let late = try await MonitorRun.run([out, "--duration", "2"], environment: env)
        #expect(late.status == 1)
        let fp = try #require(armed.keys.first?.fingerprint.prefix(4))
        #expect(late.stderr.contains("key \(fp)… expired (playback) at "), "\(late.stderr)")
        #expect(late.named("player").isEmpty, "nothing played")
        let list = try await CLI.run(["offline", "ls"], environment: env)
        #expect(list.stdout.contains(out) && list.stdout.contains("EXPIRED (playback)"), "\(list.stdout)")
        // Renew: new seals, the storage clock from now, the playback clock disarmed; then it plays again.
        let renew = try await CLI.run(["offline", "renew", out, "--storage-duration", "2s", "--playback-duration", "1h"], environment: env)
        #expect(renew.status == 0 && renew.stdout.contains("renewed: storage"), "\(renew.stdout) \(renew.stderr)")
        let renewed = try DownloadTests.manifest(out)
        #expect(renewed.keys.allSatisfy { $0.firstPlay == nil && $0.fetched > at })
        let fetched = try #require(renewed.keys.map(\.fetched).max())
        #expect(await eventually(timeout: 10, every: 0.2) { Date().timeIntervalSince1970 >= fetched + 2.2 })
        let stale = try await MonitorRun.run([out, "--duration", "2"], environment: env)
        #expect(stale.status == 1 && stale.stderr.contains("expired (storage) at "), "\(stale.stderr)")
        let rm = try await CLI.run(["offline", "rm", out], environment: env)
        #expect(rm.status == 0 && !FileManager.default.fileExists(atPath: out), "\(rm.stdout) \(rm.stderr)")
        #expect(!(try await CLI.run(["offline", "ls"], environment: env)).stdout.contains(out))
    }

    @Test("a truncated body is resumed in the same run; a 404 segment stops with one line naming it, and the same command finishes")
    func faults() async throws {
        let state = Self.origin.router.state
        defer { state.clearFaults() }
        let (out, env) = try DownloadTests.setting()
        let url = "\(Self.origin.httpBase)/vod-fmp4/master.m3u8"
        let args = ["download", url, "--out", out, "--max-resolution", "144", "--subs", "none"]
        _ = state.add(
            Fault(
                id: 0, kind: .truncate, target: .segment, status: 200, ms: 0, scenario: "vod-fmp4", rendition: "v144", msn: 2, remaining: 1,
                since: 0))
        _ = state.add(
            Fault(
                id: 0, kind: .status, target: .segment, status: 404, ms: 0, scenario: "vod-fmp4", rendition: "v144", msn: 6, remaining: 100,
                since: 0))
        let mark = state.log().count
        let cut = try await CLI.run(args, environment: env)
        #expect(cut.status == 1, "\(cut.stdout)")
        let lines = cut.stdout.split(separator: "\n").filter { $0.hasPrefix("hlstui download:") }
        #expect(lines.first?.contains("segment 6") == true && lines.first?.contains("HTTP 404") == true, "\(cut.stdout)")
        let seg2 = state.log(since: mark).filter { $0.path.hasSuffix("v144/seg2.m4s") }.map { $0.range ?? "-" }
        #expect(seg2.count == 2 && seg2[1].hasPrefix("bytes=") && seg2[1] != "bytes=0-", "the truncated body resumed: \(seg2)")
        state.clearFaults()
        let again = state.log().count
        let done = try await CLI.run(args, environment: env)
        #expect(done.status == 0, "\(done.stdout)")
        let asked = state.log(since: again).filter { $0.path.contains("/v144/seg") }.map(\.path)
        #expect(asked.contains("/vod-fmp4/v144/seg6.m4s") && !asked.contains("/vod-fmp4/v144/seg2.m4s"), "\(asked)")
        let m = try DownloadTests.manifest(out)
        #expect(m.complete && m.renditions[0].stored == 10)
    }

    @Test("a rung marked FairPlay is named and passed over for the next clear one")
    func drm() async throws {
        let (out, env) = try DownloadTests.setting()
        let r = try await CLI.run(
            ["download", "\(Self.origin.httpBase)/vod-ts/master.m3u8?drm=v360", "--out", out, "--subs", "none"], environment: env)
        #expect(r.status == 0, "\(r.stdout.suffix(400))")
        #expect(r.stdout.contains("640x360") && r.stdout.contains("cannot be stored: FairPlay needs a CDM"), "\(r.stdout)")
        let m = try DownloadTests.manifest(out)
        #expect(m.renditions.first?.name.hasPrefix("426x240") == true && m.leftOut.contains { $0.contains("FairPlay") }, "\(m)")
    }

    @Test("a live capture of 30 s with rotating keys, killed and continued, plays back to its end with the origin stopped")
    func liveCapture() async throws {
        let own = AppOrigin.own()
        let (out, env) = try DownloadTests.setting()
        let args = ["download", "\(own.httpBase)/aes-live/master.m3u8", "--out", out, "--max-resolution", "144", "--duration", "30"]
        let died = try await CLI.killed(
            args, environment: env,
            when: { own.router.state.log().filter { $0.path.contains("/v144/") && $0.path.hasSuffix(".ts") }.count >= 5 },
            settle: .milliseconds(300))
        #expect(died)
        let r = try await CLI.run(args, timeout: 90, environment: env)
        #expect(r.status == 0, "\(r.stdout.suffix(600))")
        #expect(r.stdout.contains("v144: continuing the capture after segment"), "\(r.stdout.prefix(600))")
        let m = try DownloadTests.manifest(out)
        #expect(m.live && m.complete)
        let video = try #require(m.renditions.first)
        #expect(video.duration >= 30 && video.duration < 34, "\(video)")
        #expect(m.keys.count >= 3, "keys rotate every 3 segments: \(m.keys.count)")
        let i = try await CLI.run(["inspect", "--strict", out + "/" + video.playlist])
        #expect(i.status == 0 && i.stdout.contains("VOD"), "\(i.stdout.suffix(400))")
        own.stop()
        let played = try await MonitorRun.run([out], environment: env)
        #expect(played.status == 0 && !played.named("ended").isEmpty, "\(played.stderr.suffix(300))")
        #expect(played.named("error").isEmpty)
        // The capture's position on its playlist reaches the end (time-pos restarts at the source's loop point, a discontinuity).
        let last = try #require(played.named("player").last)
        #expect((last["position"] as? Double ?? 0) > 29, "\(last)")
        #expect(played.named("stall").isEmpty)
    }

    @Test("bad input: a folder that holds something else, an unreachable origin, a cap below the ladder — one line each")
    func badInput() async throws {
        let (out, env) = try DownloadTests.setting()
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try "x".write(toFile: out + "/mine.txt", atomically: true, encoding: .utf8)
        let busy = try await CLI.run(["download", "\(Self.origin.httpBase)/vod-ts/master.m3u8", "--out", out], environment: env)
        #expect(busy.status == 1 && busy.stdout.contains("is not empty and holds no download"), "\(busy.stdout)")
        let (out2, _) = try DownloadTests.setting()
        let gone = try await CLI.run(["download", "http://127.0.0.1:9/x/master.m3u8", "--out", out2], environment: env)
        #expect(gone.status == 1 && gone.stdout.split(separator: "\n").count == 1 && gone.stdout.contains("127.0.0.1:9"), "\(gone.stdout)")
        let low = try await CLI.run(
            ["download", "\(Self.origin.httpBase)/vod-ts/master.m3u8", "--out", out2, "--max-bitrate", "10k"], environment: env)
        #expect(low.status == 1 && low.stdout.contains("no variant within"), "\(low.stdout)")
        let notDownload = try await CLI.run(["monitor", out2, "--duration", "2"], environment: env)
        #expect(notDownload.status != 0)
    }
}
