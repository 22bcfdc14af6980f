import Foundation
import FoundationNetworking
import Origin
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// `hlstui fleet` as it is deployed: the real binary playing the origin's streams with real libmpv, scraped by Debian's
/// real Prometheus loading the shipped alert rules, asked through its HTTP API for what the origin's faults caused.
@Suite("hlstui fleet scraped by a real Prometheus", .serialized)
struct FleetPrometheusTests {
    /// A socket bound to a free port of 127.0.0.1 (listening when `listen`), and the port.
    static func bound(listen: Bool) -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        if listen { _ = Glibc.listen(fd, 1) }
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: a.sin_port)))
    }

    /// A port held for a child process until `release`: bound with SO_REUSEADDR and not listening, so the child (NIO and
    /// Go set SO_REUSEADDR on their listeners too) binds and listens on it, while no other bind of the machine to port 0 is
    /// given it. A port bound and released goes back to the kernel's pool: another test's server got the fleet's while this
    /// test waited for Prometheus, the fleet could not serve, and Prometheus scraped the other server ("EOF"). Nothing
    /// listens on a reserved port the child does not take: connections to it are refused.
    final class Reserved: Sendable {
        let fd: Int32
        let port: Int
        init() {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
            _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            (self.fd, port) = (fd, Int(UInt16(bigEndian: a.sin_port)))
        }
        func release() { close(fd) }
    }

    /// GET `url`'s body (nil: no answer within 10 s), waiting on a thread of its own.
    static func get(_ url: String) async -> Data? { (try? await offPool { getBlocking(url) }) ?? nil }

    /// A session of its own per GET, cancelled when it has no answer in time: a request left running on a shared session
    /// (whose connections per host are few) would hold a connection for its whole 60 s default, and the GETs after it would
    /// queue behind it and time out too.
    static func getBlocking(_ url: String) -> Data? {
        guard let u = URL(string: url) else { return nil }
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = 10
        config.timeoutIntervalForResource = 10
        let session = URLSession(configuration: config)
        defer { session.invalidateAndCancel() }
        let box = NIOLockedValueBox<Data?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: u) { d, _, _ in
            box.withLockedValue { $0 = d }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + 10) == .timedOut {
            task.cancel()
            return nil
        }
        return box.withLockedValue { $0 }
    }

    /// The value of a PromQL query that yields one number (nil: no series yet).
    static func query(_ prom: Int, _ q: String) async -> Double? {
        let enc = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
        guard let d = await get("http://127.0.0.1:\(prom)/api/v1/query?query=\(enc)"),
            let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any], let data = o["data"] as? [String: Any],
            let result = data["result"] as? [[String: Any]], let first = result.first, let value = first["value"] as? [Any],
            let text = value.last as? String
        else { return nil }
        return Double(text)
    }

    /// Active alerts (pending or firing): alertname and stream.
    static func alerts(_ prom: Int) async -> [(name: String, stream: String, state: String)] {
        guard let d = await get("http://127.0.0.1:\(prom)/api/v1/alerts"),
            let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
            let data = o["data"] as? [String: Any], let alerts = data["alerts"] as? [[String: Any]]
        else { return [] }
        return alerts.compactMap { a in
            guard let l = a["labels"] as? [String: String], let n = l["alertname"] else { return nil }
            return (n, l["stream"] ?? "", a["state"] as? String ?? "")
        }
    }

    static func tool(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool args` with `input` on stdin; exit status and output (`ChildProcess`).
    static func run(_ tool: String, _ args: [String], input: Data? = nil) async throws -> (Int32, String) {
        let r = try await ChildProcess.run(URL(fileURLWithPath: tool), args, input: input)
        return (r.status, r.output)
    }

    /// Debian's Prometheus on `port`, scraping the fleets on `targets` every second with the shipped alert rules, its
    /// configuration, storage and log in `dir`; returned once it is ready (its storage opened, the rules loaded).
    static func startPrometheus(_ binary: String, dir: URL, port: Int, scraping targets: [Int]) async throws -> RunningChild {
        let rules = CLI.packageRoot.appendingPathComponent("deploy/prometheus/hlstui-rules.yml").path
        try """
        global: {scrape_interval: 1s, evaluation_interval: 1s}
        rule_files: ["\(rules)"]
        scrape_configs:
          - job_name: hlstui
            static_configs: [{targets: [\(targets.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", "))]}]
        """.write(to: dir.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        let p = try RunningChild(
            URL(fileURLWithPath: binary),
            [
                "--config.file=\(dir.path)/prometheus.yml", "--storage.tsdb.path=\(dir.path)/tsdb",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ])
        let ready = await eventually(timeout: 60, every: 0.5) {
            await Self.get("http://127.0.0.1:\(port)/-/ready").map { String(decoding: $0, as: UTF8.self) }?.contains("Ready") == true
        }
        #expect(ready, "Prometheus ready; running: \(p.isRunning)")
        return p
    }

    /// The series of a PromQL query: each one's labels and value.
    static func series(_ prom: Int, _ q: String) async -> [(labels: [String: String], value: Double)] {
        let enc = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
        guard let d = await get("http://127.0.0.1:\(prom)/api/v1/query?query=\(enc)"),
            let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any], let data = o["data"] as? [String: Any],
            let result = data["result"] as? [[String: Any]]
        else { return [] }
        return result.compactMap { r in
            guard let l = r["metric"] as? [String: String], let v = r["value"] as? [Any], let t = v.last as? String, let x = Double(t)
            else { return nil }
            return (l, x)
        }
    }

    @Test("the shipped alert rules pass promtool; every metric the rules and the Grafana dashboard use is one hlstui serves")
    func shipped() async throws {
        let promtool = try #require(Self.tool("promtool"), "promtool (Debian's prometheus) is installed by scripts/setup.sh")
        let root = CLI.packageRoot
        let rules = root.appendingPathComponent("deploy/prometheus/hlstui-rules.yml").path
        let (status, out) = try await Self.run(promtool, ["check", "rules", rules])
        #expect(status == 0 && out.contains("SUCCESS: 12 rules found"), "\(out)")
        let (cstatus, cout) = try await Self.run(
            promtool, ["check", "config", root.appendingPathComponent("deploy/prometheus/prometheus.yml").path])
        #expect(cstatus == 0, "\(cout)")
        // The names hlstui registers (PlaybackMetrics.swift) against the names the rules and the dashboard use.
        let source = try String(contentsOf: root.appendingPathComponent("Sources/App/PlaybackMetrics.swift"), encoding: .utf8)
        let served = Set(Self.names(in: source))
        let dashboard = try Data(contentsOf: root.appendingPathComponent("deploy/grafana/hlstui-fleet.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: dashboard) as? [String: Any])
        let panels = try #require(json["panels"] as? [[String: Any]])
        #expect(panels.count >= 15)
        let exprs = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        let used = Set(Self.names(in: try String(contentsOfFile: rules, encoding: .utf8)) + exprs.flatMap { Self.names(in: $0) })
        #expect(!used.isEmpty && used.isSubset(of: served), "not served: \(used.subtracting(served).sorted())")
    }

    /// `hlstui_…` names in `text`, without a histogram's `_bucket`/`_count`/`_sum`.
    static func names(in text: String) -> [String] {
        let r = try! NSRegularExpression(pattern: "hlstui_[a-z_]+")
        return r.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
        .map { n in
            for s in ["_bucket", "_count", "_sum"] where n.hasSuffix(s) { return String(n.dropLast(s.count)) }
            return n
        }
    }

    @Test(
        "a fleet of five streams with faults: Prometheus finds the stall, the key failures, the switches, the restarts and the stuck playlist"
    )
    func prometheus() async throws {
        let prometheus = try #require(Self.tool("prometheus"), "Debian's prometheus is installed by scripts/setup.sh")
        let promtool = try #require(Self.tool("promtool"))
        let origin = AppOrigin.own()
        defer { origin.stop() }
        let base = origin.httpBase
        let state = origin.router.state
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let reserved = (Reserved(), Reserved(), Reserved())
        defer { [reserved.0, reserved.1, reserved.2].forEach { $0.release() } }
        let (metricsPort, promPort, deadPort) = (reserved.0.port, reserved.1.port, reserved.2.port)
        try """
        metrics: 127.0.0.1:\(metricsPort)
        streams:
          - name: ladder
            url: \(base)/live-fmp4/master.m3u8
          - name: stall
            url: \(base)/live-ts/master.m3u8
            video: false
          - name: keys
            url: \(base)/aes-live/master.m3u8
            video: false
          - name: frozen
            url: \(base)/cam-a/cam-a/index.m3u8
            video: false
          - name: dead
            url: http://127.0.0.1:\(deadPort)/none/master.m3u8
            insecure: true
        """.write(to: dir.appendingPathComponent("fleet.yaml"), atomically: true, encoding: .utf8)

        // Four players: no other player runs beside them.
        await PlayerSlots.shared.acquire(PlayerSlots.shared.capacity, "fleet with Prometheus")
        defer { Task { await PlayerSlots.shared.release(PlayerSlots.shared.capacity, "fleet with Prometheus") } }
        // Every key of aes-live refused from the start.
        _ = state.add(
            Fault(
                id: 0, kind: .status, target: .key, status: 404, ms: 0, scenario: "aes-live", rendition: nil, msn: nil, remaining: nil,
                since: Date().timeIntervalSince1970))
        let promProcess = try await Self.startPrometheus(prometheus, dir: dir, port: promPort, scraping: [metricsPort])
        defer { promProcess.signal(SIGTERM) }
        let fleet = try RunningChild(CLI.binary, ["fleet", dir.appendingPathComponent("fleet.yaml").path])
        defer { fleet.signal(SIGTERM) }

        // Once "stall" and "frozen" play (a fresh origin's live window takes seconds to fill): live-ts segments refused for
        // 10 s, longer than the player holds; cam-a's playlist frozen for good.
        let playing = await eventually(timeout: 60, every: 0.5) {
            let text = await Self.get("http://127.0.0.1:\(metricsPort)/metrics").map { String(decoding: $0, as: UTF8.self) } ?? ""
            return ["stall", "frozen"].allSatisfy { text.contains("hlstui_playing{stream=\"\($0)\",pane=\"1\"} 1.0") }
        }
        #expect(playing, "stall and frozen play")
        let now = Date().timeIntervalSince1970
        _ = state.add(
            Fault(
                id: 0, kind: .status, target: .segment, status: 503, ms: 0, scenario: "live-ts", rendition: nil, msn: nil, remaining: nil,
                since: now, until: now + 10))
        _ = state.add(
            Fault(
                id: 0, kind: .freeze, target: .playlist, status: 0, ms: 0, scenario: "cam-a", rendition: nil, msn: nil, remaining: nil,
                since: now))

        // What the origin caused, as Prometheus has it from its scrapes.
        let wanted: [(String, String)] = [
            ("the stall", #"sum(hlstui_stalls_total{stream="stall"})"#),
            ("the key failures", #"sum(hlstui_key_failures_total{stream="keys",cause="http_4xx"})"#),
            ("the switches", #"sum(hlstui_variant_switches_total{stream="ladder",reason="abr"})"#),
            ("the restarts", #"sum(hlstui_session_restarts_total{stream="dead",reason="failed"})"#),
            ("exits before the first frame", #"sum(hlstui_exits_before_first_frame_total{stream="dead"})"#),
        ]
        var found: [String: Double] = [:]
        var active: [(name: String, stream: String, state: String)] = []
        let alertsWanted = [("HlstuiPlaylistStuck", "frozen"), ("HlstuiKeyFailures", "keys")]
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            for (what, q) in wanted where (found[what] ?? 0) < 1 { found[what] = await Self.query(promPort, q) }
            active = await Self.alerts(promPort)
            let alerted = alertsWanted.allSatisfy { w in active.contains { $0.name == w.0 && $0.stream == w.1 } }
            if alerted && wanted.allSatisfy({ (found[$0.0] ?? 0) >= 1 }) { break }
            try await Task.sleep(for: .seconds(1))
        }
        let now_ = await Self.get("http://127.0.0.1:\(metricsPort)/metrics").map { String(decoding: $0, as: UTF8.self) } ?? ""
        for (what, q) in wanted {
            let stream = q.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
            let lines = now_.split(separator: "\n").filter { $0.contains("stream=\"\(stream)\"") && !$0.contains("_bucket") }
            #expect(
                (found[what] ?? 0) >= 1,
                "\(what): \(q) = \(found[what].map { "\($0)" } ?? "no series"); now: \(lines.joined(separator: "\n"))")
        }
        for w in alertsWanted {
            #expect(active.contains { $0.name == w.0 && $0.stream == w.1 }, "alert \(w.0) for \(w.1): \(active)")
        }
        if !wanted.allSatisfy({ (found[$0.0] ?? 0) >= 1 }) {
            // What Prometheus itself says: whether it runs, how its scrapes of the fleet went, and its log.
            let targets = await Self.get("http://127.0.0.1:\(promPort)/api/v1/targets").map { String(decoding: $0, as: UTF8.self) }
            Issue.record(
                "Prometheus running: \(promProcess.isRunning); targets: \(targets ?? "no answer"); log: \(promProcess.stderr.suffix(2000))")
        }
        // The stream nobody broke: playing, no key failure, no restart. Playing within the last 5 s, not at one scrape: the
        // gauge reads 0 for the moment live-fmp4's loop is crossed by a reload (longer on a loaded machine), as it should.
        #expect(await Self.query(promPort, #"max_over_time(hlstui_playing{stream="ladder"}[5s])"#) == 1)
        #expect(await Self.query(promPort, #"sum(hlstui_session_restarts_total{stream="ladder"})"#) == 0)
        #expect(await Self.query(promPort, #"sum(hlstui_key_failures_total{stream="ladder"})"#) == 0, "its key failure series exist, at 0")
        // The exposition itself passes promtool's lint, and carries no URL.
        let exposition = try #require(await Self.get("http://127.0.0.1:\(metricsPort)/metrics"))
        let (lint, lintOut) = try await Self.run(promtool, ["check", "metrics"], input: exposition)
        #expect(lint == 0, "\(lintOut)")
        #expect(!String(decoding: exposition, as: UTF8.self).contains("http://"))
        #expect(
            await Self.get("http://127.0.0.1:\(metricsPort)/other").map { String(decoding: $0, as: UTF8.self) }
                == "hlstui serves /metrics only\n"
        )

        // SIGTERM: the fleet closes its sessions and exits 0.
        fleet.signal(SIGTERM)
        let stopped = await fleet.exit(timeout: 15)
        let said = fleet.stderr
        #expect(stopped == ChildExit(status: 0, signalled: false), "the fleet exits 0 after SIGTERM: \(said)")
        #expect(said.contains("dead: session failed after") && said.contains("starting again in 1 s"), "\(said)")
        #expect(said.contains("dead: --insecure: TLS certificates are not checked"), "visibly flagged: \(said)")
    }

    @Test("monitor --metrics: two cameras in sync served while the session runs; the endpoint closes with it")
    func monitorMetrics() async throws {
        let reserved = Reserved()
        defer { reserved.release() }
        let port = reserved.port
        let base = AppOrigin.base
        let seen = NIOLockedValueBox("")
        let r = try await MonitorRun.run(
            [
                "\(base)/cam-a/cam-a/index.m3u8", "\(base)/cam-b/cam-b/index.m3u8", "--duration", "14", "--metrics", "127.0.0.1:\(port)",
                "--metrics-name", "studio",
            ],
            alongside: {
                _ = await eventually(timeout: 14, every: 0.5) {
                    let text = await Self.get("http://127.0.0.1:\(port)/metrics").map { String(decoding: $0, as: UTF8.self) } ?? ""
                    if !text.isEmpty { seen.withLockedValue { $0 = text } }
                    return text.contains(#"hlstui_sync_locked{stream="studio"} 1.0"#)
                }
            })
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(!r.named("player").isEmpty, "the JSON lines as always")
        let text = seen.withLockedValue { $0 }
        #expect(text.contains(#"hlstui_sync_locked{stream="studio"} 1.0"#), "\(text.prefix(3000))")
        #expect(text.contains(#"hlstui_playing{stream="studio",pane="2"} 1.0"#))
        #expect(text.contains(#"hlstui_sync_offset_seconds{stream="studio",pane="1"}"#))
        #expect(await Self.get("http://127.0.0.1:\(port)/metrics") == nil, "no endpoint after the session")
    }

    @Test("stderr holds only hlstui's lines while streams fail and restart beside one that plays; the libraries' go to --log")
    func onlyOwnLines() async throws {
        let dir = try CLI.directory([
            "fleet.yaml":
                "streams:\n  - name: gone\n    url: \(AppOrigin.base)/no-such/master.m3u8\n  - name: live\n    url: \(AppOrigin.base)/live-ts/master.m3u8\n"
        ])
        let log = dir.appendingPathComponent("libs.log").path
        let reserved = Reserved()
        defer { reserved.release() }
        let port = reserved.port
        let r = try await CLI.run(
            ["fleet", dir.appendingPathComponent("fleet.yaml").path, "--duration", "8", "--metrics", "127.0.0.1:\(port)", "--log", log],
            timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.contains { $0.contains("gone: session failed") }, "\(r.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("hlstui fleet: ") }, "\(r.stderr)")
    }

    @Test("a fleet file with a problem, or an address in use: one line naming it, exit status 1, nothing started")
    func refusals() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("fleet.yaml")
        try "streams:\n  - name: a\n    url: http://x/1.m3u8\n  - name: a\n    url: http://x/2.m3u8\n".write(
            to: file, atomically: true, encoding: .utf8)
        let dup = try await CLI.run(["fleet", file.path], timeout: 20)
        #expect(dup.status == 1 && dup.stderr.contains("hlstui fleet: fleet file: two streams are named a"), "\(dup.stderr)")
        #expect(dup.stderr.split(separator: "\n").count == 1, "\(dup.stderr)")
        let missing = try await CLI.run(["fleet", dir.appendingPathComponent("none.yaml").path], timeout: 20)
        #expect(missing.status == 1 && missing.stderr.contains("hlstui fleet: cannot read"), "\(missing.stderr)")
        // The port taken by another listener.
        let (taken, port) = Self.bound(listen: true)
        defer { close(taken) }
        try "streams:\n  - name: a\n    url: http://127.0.0.1:1/x.m3u8\n".write(to: file, atomically: true, encoding: .utf8)
        let busy = try await CLI.run(["fleet", file.path, "--metrics", "127.0.0.1:\(port)"], timeout: 20)
        #expect(busy.status == 1 && busy.stderr.contains("hlstui fleet: cannot serve metrics on 127.0.0.1:\(port)"), "\(busy.stderr)")
        #expect(busy.stderr.split(separator: "\n").count == 1, "\(busy.stderr)")
    }

    @Test(
        "three fleets share thirty streams by --shard: each stream played by exactly one, Prometheus sees all thirty; a shard gone is alerted; four shards move at most ten"
    )
    func shards() async throws {
        let prometheus = try #require(Self.tool("prometheus"), "Debian's prometheus is installed by scripts/setup.sh")
        let names = (1...30).map { "s" + ($0 < 10 ? "0" : "") + "\($0)" }
        let base = AppOrigin.base
        let dir = try CLI.directory([
            "fleet.yaml": names.map { "  - name: \($0)\n    url: \(base)/live-ts/master.m3u8\n    video: false\n" }
                .reduce("streams:\n", +)
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("fleet.yaml").path

        // Which streams each shard plays, as the command lists them: three shards, then four.
        func lists(_ n: Int) async throws -> [[String]] {
            var out: [[String]] = []
            for k in 0..<n {
                let r = try await CLI.run(["fleet", file, "--shard", "\(k)/\(n)", "--list"], timeout: 30)
                #expect(r.status == 0, "\(r.stderr)")
                out.append(r.stdout.split(separator: "\n").map(String.init))
            }
            return out
        }
        let three = try await lists(3)
        let four = try await lists(4)
        #expect(three.flatMap { $0 }.sorted() == names && four.flatMap { $0 }.sorted() == names, "each stream in exactly one shard")
        let moved = names.filter { n in three.firstIndex { $0.contains(n) } != four.firstIndex { $0.contains(n) } }
        #expect(moved.count <= 10 && moved.allSatisfy { four[3].contains($0) }, "moved to the new shard only: \(moved)")
        let refused = try await CLI.run(["fleet", file, "--shard", "3/3"], timeout: 30)
        #expect(
            refused.status == 1 && refused.stderr.contains("hlstui fleet: --shard 3/3: K counts from 0 and must be below N")
                && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")

        // Thirty players: no other player runs beside them.
        await PlayerSlots.shared.acquire(PlayerSlots.shared.capacity, "three sharded fleets")
        defer { Task { await PlayerSlots.shared.release(PlayerSlots.shared.capacity, "three sharded fleets") } }
        let reserved = (0..<4).map { _ in Reserved() }
        defer { reserved.forEach { $0.release() } }
        let ports = reserved.map(\.port)
        let prom = try await Self.startPrometheus(prometheus, dir: dir, port: ports[3], scraping: Array(ports.prefix(3)))
        defer { prom.signal(SIGTERM) }
        var fleets: [RunningChild] = []
        defer { for f in fleets { f.signal(SIGTERM) } }
        for k in 0..<3 {
            fleets.append(
                try RunningChild(CLI.binary, ["fleet", file, "--shard", "hlstui-fleet-\(k)/3", "--metrics", "127.0.0.1:\(ports[k])"]))
        }

        // Every stream playing, each in one shard only, the shard a label of its series; and each fleet says its share.
        var playing: [(labels: [String: String], value: Double)] = []
        let all = await eventually(timeout: 120, every: 1) {
            playing = await Self.series(ports[3], "max_over_time(hlstui_playing[60s]) == 1")
            return Set(playing.compactMap { $0.labels["stream"] }) == Set(names)
        }
        #expect(all, "playing: \(playing.compactMap { $0.labels["stream"] }.sorted())")
        let up = await Self.series(ports[3], "hlstui_session_up")
        #expect(up.count == 30 && Set(up.compactMap { $0.labels["stream"] }) == Set(names), "one session per stream: \(up.count)")
        for u in up {
            let stream = u.labels["stream"] ?? ""
            #expect(u.labels["shard"] == three.firstIndex { $0.contains(stream) }.map(String.init), "\(stream)'s shard label: \(u.labels)")
        }
        let counts = await Self.series(ports[3], "hlstui_fleet_streams")
        #expect(
            Dictionary(uniqueKeysWithValues: counts.compactMap { c in c.labels["shard"].map { ($0, Int(c.value)) } })
                == ["0": three[0].count, "1": three[1].count, "2": three[2].count], "\(counts)")

        // A shard gone: the rule sees two of three answer.
        fleets[2].signal(SIGTERM)
        var active: [(name: String, stream: String, state: String)] = []
        let alerted = await eventually(timeout: 30, every: 1) {
            active = await Self.alerts(ports[3])
            return active.contains { $0.name == "HlstuiFleetShardMissing" }
        }
        #expect(alerted, "\(active)")
        for f in fleets { f.signal(SIGTERM) }
        var ends: [ChildExit?] = []
        for f in fleets { ends.append(await f.exit(timeout: 15)) }
        #expect(ends.allSatisfy { $0 == ChildExit(status: 0, signalled: false) }, "the fleets exit 0 on SIGTERM: \(ends)")
    }
}
