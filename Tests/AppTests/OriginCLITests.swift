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
        let (p, lines) = try CLI.start(["origin", "--tls", "--cache", Self.cache, "--duration", "120", "--scenario", "vod-ts"])
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
        p.interrupt()
        try await offPool { p.waitUntilExit() }
        #expect(p.terminationReason == .exit && p.terminationStatus == 0, "SIGINT ends it cleanly")
        // --duration ends a run by itself.
        let timed = try await ChildProcess.run(CLI.binary, ["origin", "--cache", Self.cache, "--duration", "1", "--scenario", "vod-ts"])
        #expect(timed.status == 0 && !timed.timedOut && timed.stdout.hasPrefix("hlstui origin on http://127.0.0.1:"), "\(timed.output)")
    }

    @Test("hlstui demo serves the demo stream and shows what hlstui reads in it")
    func demo() async throws {
        let (p, lines) = try CLI.start(["demo", "--print", "--cache", Self.cache, "--duration", "4"])
        var all: [String] = []
        while let l = await lines.next(timeout: 30) { all.append(l) }
        try await offPool { p.waitUntilExit() }
        #expect(p.terminationStatus == 0)
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

/// Reads lines from a pipe with a timeout per line; a background thread drains the pipe.
final class LineReader: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var eof = false

    init(_ h: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = h.availableData
                lock.lock()
                if chunk.isEmpty { eof = true } else { buffer.append(chunk) }
                lock.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    private func take() -> (line: String?, eof: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard let nl = buffer.firstIndex(of: 0x0A) else { return (nil, eof) }
        let line = buffer[buffer.startIndex..<nl]
        buffer = Data(buffer[(nl + 1)...])
        return (String(decoding: line, as: UTF8.self), eof)
    }

    /// The next line, waiting up to `timeout` seconds without holding a thread; nil at the end or on timeout.
    func next(timeout: Double) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let (line, done) = take()
            if let line { return line }
            if done || Date() > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
