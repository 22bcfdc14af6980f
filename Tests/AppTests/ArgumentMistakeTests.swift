import Foundation
import Testing

@Suite("Errors that teach: a mistaken argument is one line naming the mistake and the right form")
struct ArgumentMistakeTests {
    @Test(
        "a value given to a flag that takes none, a folder or file where a URL belongs, a URL where a file belongs",
        arguments: [
            (
                ["monitor", "--cache", "/tmp", "http://127.0.0.1:9/x.m3u8"],
                "--cache takes no value, so /tmp was read as a stream; the cache's directory is given with --cache-dir DIR"
            ),
            (["monitor", "/tmp"], "/tmp is a folder but not a download"),
            (["monitor", "/no/such/dir"], "/no/such/dir: no such folder, and not an http(s) URL"),
            (
                ["monitor", "--commands", "http://127.0.0.1:9/c", "http://127.0.0.1:9/x.m3u8"],
                "--commands takes a file on this machine, not a URL"
            ),
            (
                ["monitor", "--record", "https://example.invalid/r", "http://127.0.0.1:9/x.m3u8"],
                "--record takes a file on this machine, not a URL"
            ),
            (["replay", "https://example.invalid/r.sqlite"], "replay takes a file on this machine, not a URL"),
        ])
    func mistakes(args: [String], says: String) async throws {
        let r = try await CLI.run(args)
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("  See ") && !$0.isEmpty }
        #expect(lines.count == 1 && lines[0].contains(says), "\(r.stderr)")
    }

    @Test("a playlist file where a URL belongs says how to give it")
    func file() async throws {
        let dir = try CLI.directory(["a.m3u8": "#EXTM3U\n"])
        let path = dir.appendingPathComponent("a.m3u8").path
        let r = try await CLI.run(["monitor", path])
        #expect(r.status != 0 && r.stderr.contains("\(path) is a file: hlstui reads playlists over http(s)"), "\(r.stderr)")
    }
}
