import Foundation
import TestSupport
import Testing

@Suite("hlstui proxy, run as a user would", .serialized)
struct ProxyCLITests {
    /// Starts `hlstui origin --tls` and returns it with its HTTP and HTTPS bases.
    func origin() async throws -> (RunningChild, String, String) {
        let p = try CLI.start([
            "origin", "--tls", "--quiet", "--cache", OriginCLITests.cache, "--duration", "90", "--scenario", "aes-vod",
        ])
        let first = try #require(await p.lines.next(timeout: 60))
        let words = first.split(separator: " ")
        return (p, String(words[3]), String(words[5]))
    }

    @Test(
        "mpv plays through the printed URL; events come out as JSON Lines; TLS refusals are one line; --insecure is flagged on every line")
    func proxy() async throws {
        let (o, http, https) = try await origin()
        defer { o.signal(SIGKILL) }
        let p = try CLI.start(["proxy", "\(http)/aes-vod/master.m3u8", "--variant", "0", "--json", "--duration", "8"])
        let lines = p.lines
        let entry = try #require(await lines.next(timeout: 20))
        #expect(entry.hasPrefix("hlstui loader: http://127.0.0.1:"))
        let url = String(entry.dropFirst("hlstui loader: ".count))
        let mpv = try await ChildProcess.run(tool: "mpv", ["--no-config", "--vo=null", "--ao=null", "--frames=30", "--really-quiet", url])
        #expect(mpv.status == 0, "\(mpv.output)")
        var events: [[String: Any]] = []
        while let l = await lines.next(timeout: 12) {
            if let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any] { events.append(o) }
        }
        _ = await p.exit()
        #expect(
            events.contains {
                $0["event"] as? String == "key" && ($0["fingerprint"] as? String)?.count == 8 && $0["prefetch"] as? Bool == true
            })
        #expect(
            events.contains {
                $0["event"] as? String == "request" && $0["kind"] as? String == "segment" && $0["status"] as? Int == 200
                    && $0["firstPTS"] is Double
            })
        #expect(!events.contains { $0["insecureTLS"] != nil })

        let refused = try await CLI.run(["proxy", "\(https)/aes-vod/master.m3u8", "--duration", "1"])
        #expect(
            refused.status != 0 && refused.stderr.contains("TLS untrusted") && refused.stderr.contains("self-signed"), "\(refused.stderr)")

        let ip = try CLI.start(["proxy", "\(https)/aes-vod/master.m3u8", "--insecure", "--json", "--duration", "3"])
        var insecure: [String] = []
        while let l = await ip.lines.next(timeout: 10) { insecure.append(l) }
        _ = await ip.exit()
        #expect(insecure.first?.hasPrefix("WARNING: --insecure") == true)
        let jsonLines = insecure.filter { $0.hasPrefix("{") }
        #expect(!jsonLines.isEmpty && jsonLines.allSatisfy { $0.contains("\"insecureTLS\":true") })
    }

    @Test("bad flags are refused in one line")
    func badFlags() async throws {
        let r = try await CLI.run(["proxy", "http://127.0.0.1:9/x.m3u8", "--key", "nokey"])
        #expect(r.status != 0 && r.stderr.contains("--key takes URI=HEX"))
        let unreachable = try await CLI.run(["proxy", "http://127.0.0.1:9/x.m3u8", "--duration", "1"])
        #expect(unreachable.status != 0 && unreachable.stderr.contains("connection refused"), "\(unreachable.stderr)")
    }
}
