import Foundation
import TestSupport
import Testing

/// Runs the built `hlstui` binary and a loopback HTTP fixture for end-to-end CLI tests.
enum CLI {
    static let packageRoot = TestPackage.root

    /// The `hlstui` executable built beside the test bundle.
    static var binary: URL {
        let bundle = Bundle.main.bundleURL
        let candidates = [
            bundle.deletingLastPathComponent().appendingPathComponent("hlstui"),
            bundle.appendingPathComponent("hlstui"),
            packageRoot.appendingPathComponent(".build/debug/hlstui"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs hlstui with `args` (`environment` added to this process's) and returns its exit status and output; stops it
    /// after `timeout` seconds (`ChildProcess`).
    static func run(_ args: [String], timeout: TimeInterval = 60, environment: [String: String] = [:]) async throws -> Result {
        let r = try await ChildProcess.run(
            binary, args, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, timeout: timeout)
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    /// Starts hlstui with `args` (`environment` added to this process's) and leaves it running (`RunningChild`: its stdout
    /// as lines).
    static func start(_ args: [String], environment: [String: String] = [:]) throws -> RunningChild {
        try RunningChild(
            binary, args, environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    /// Starts hlstui with `args`, waits (up to 30 s) until `reached()` says the origin has the request the run is to die in,
    /// lets `settle` pass (what arrived is kept meanwhile), then kills it with SIGKILL: no exit path of its own runs. True
    /// when the process ended by that signal.
    ///
    /// The watch runs on a thread of its own, not on the test's task: other tests block the cooperative pool's few threads
    /// in `waitUntilExit` for many seconds, and a watch starved that long saw the run finish (the stalled body timed out
    /// and was fetched again) before it could kill it.
    static func killed(
        _ args: [String], environment: [String: String], when reached: @escaping @Sendable () -> Bool, settle: Duration
    ) async throws -> Bool {
        let p = try start(args, environment: environment)
        let pid = p.pid
        let settleMs = UInt32(settle.components.seconds * 1000 + settle.components.attoseconds / 1_000_000_000_000_000)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline, !reached() { usleep(20_000) }
                usleep(settleMs * 1000)
                kill(pid, SIGKILL)
                done.resume()
            }
        }
        return await p.exit()?.signalled == true
    }

    /// Runs a system tool (`sqlite3`, `curl`) and returns what it wrote on stdout (`ChildProcess`).
    static func tool(_ name: String, _ args: [String]) async throws -> Data { try await ChildProcess.run(tool: name, args).stdoutData }

    static func runTool(_ name: String, _ args: [String]) async throws -> String {
        String(decoding: try await tool(name, args), as: UTF8.self)
    }

    /// A temporary directory holding `files`.
    static func directory(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }
}

/// The Python loopback fixture server, killed when the handle goes (`RunningChild`).
final class FixtureServer: Sendable {
    let child: RunningChild
    let port: Int

    /// Starts the server and waits for the port it prints (Python starts in tenths of a second, a second on a loaded
    /// machine).
    static func start(serving dir: URL) async throws -> FixtureServer {
        let child = try RunningChild(
            tool: "python3", [CLI.packageRoot.appendingPathComponent("Tests/AppTests/Fixtures/http_fixture.py").path, dir.path])
        guard let line = await child.lines.next(timeout: 60), let port = Int(line) else {
            throw ServerDidNotStart(stderr: child.stderr)
        }
        return FixtureServer(child: child, port: port)
    }

    private init(child: RunningChild, port: Int) {
        self.child = child
        self.port = port
    }

    /// The server printed no port; what it said instead.
    struct ServerDidNotStart: Error, CustomStringConvertible {
        var stderr: String
        var description: String { "the fixture server printed no port: \(stderr)" }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Stops the server at once (SIGKILL: the test runner's children may inherit an ignored SIGTERM) and waits for its end, so
    /// its port is closed.
    func stop() async { _ = await child.stop(grace: 0) }

    /// Kills the server without waiting (a test's end: `defer` also keeps the handle alive until then).
    func kill() { child.signal(SIGKILL) }
}
