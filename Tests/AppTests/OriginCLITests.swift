import Foundation
import TestSupport
import Testing

@Suite("hlstui origin and demo, run as a user would", .serialized)
struct OriginCLITests {
    static let cache = CLI.packageRoot.appendingPathComponent(".build/test-media").path

    @Test(
        "hlstui origin --tls prints its URLs, fingerprint and pin, serves, logs each request, stops on SIGINT, and by itself after --duration"
    )
    func origin() async throws {
        // Long enough for any machine to ask it something: it is stopped by SIGINT once asked (a 6 s run raced a loaded
        // machine's start of the client, which found the port closed).
        let p = try CLI.start(["origin", "--tls", "--cache", Self.cache, "--duration", "120", "--scenario", "vod-ts"])
        let lines = p.lines
        let first = try #require(await lines.next(timeout: 60))
        #expect(first.hasPrefix("hlstui origin on http://127.0.0.1:"))
        let base = String(first.split(separator: " ")[3])
        var banner: [String] = []
        for _ in 0..<5 { if let l = await lines.next(timeout: 5) { banner.append(l) } }
        #expect(banner.contains { $0.contains("SHA-256 fingerprint") })
        #expect(banner.contains { $0.contains("--pin-sha256") })
        #expect(banner.contains { $0.contains("/vod-ts/master.m3u8") })
        let r = try await CLI.run(["inspect", "\(base)/vod-ts/master.m3u8"])
        #expect(r.status == 0 && r.stdout.contains("variants (4)"), "\(r.stdout)\(r.stderr)")
        var logged = false
        while let l = await lines.next(timeout: 3) { if l.contains("/vod-ts/master.m3u8 200") { logged = true; break } }
        #expect(logged)
        p.signal(SIGINT)
        #expect(await p.exit(timeout: 60) == ChildExit(status: 0, signalled: false), "SIGINT ends it cleanly")
        // --duration ends a run by itself.
        let timed = try await ChildProcess.run(CLI.binary, ["origin", "--cache", Self.cache, "--duration", "1", "--scenario", "vod-ts"])
        #expect(timed.status == 0 && !timed.timedOut && timed.stdout.hasPrefix("hlstui origin on http://127.0.0.1:"), "\(timed.output)")
    }

    @Test("hlstui demo serves the demo stream and shows what hlstui reads in it")
    func demo() async throws {
        let p = try CLI.start(["demo", "--print", "--cache", Self.cache, "--duration", "4"])
        var all: [String] = []
        while let l = await p.lines.next(timeout: 30) { all.append(l) }
        #expect(await p.exit(timeout: 60) == ChildExit(status: 0, signalled: false), "\(p.stderr)")
        let text = all.joined(separator: "\n")
        #expect(text.contains("hlstui demo: origin on http://127.0.0.1:"))
        #expect(text.contains("multivariant playlist"))
        #expect(text.contains("keys (") && text.contains("AES-128"))
        #expect(text.contains("program date-time: 20"))
        #expect(text.contains("play it: hlstui http://127.0.0.1:"))
    }

    @Test("a bad scenario name is refused with the list of names")
    func badScenario() async throws {
        let r = try await CLI.run(["origin", "--scenario", "nope", "--duration", "1"])
        #expect(r.status != 0 && r.stderr.contains("no scenario nope") && r.stderr.contains("vod-ts"))
    }
}
