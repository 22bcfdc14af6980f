import Foundation
import Origin
import TestSupport
import Testing

/// One in-process origin for the App tests: real ffmpeg media (cached under .build), real HTTP on 127.0.0.1.
enum AppOrigin {
    static let server = TestOrigins.start()

    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }

    /// An origin of its own, serving the same media: a suite that switches faults on touches no other suite.
    static func own() -> OriginServer { TestOrigins.start() }
}

/// A fault for one client of an origin (`?client=NAME` in the pane's URL), so a test's faults touch no other run.
enum ClientFault {
    /// A fault for one new client name, switched on for `seconds`, `after` seconds after that client's first request (a
    /// loaded machine can take minutes to give the monitor its player slots, and seconds to start it); the name goes in the
    /// pane's URL. However long that takes it waits, until cancelled: cancel it once the run is over (a run that never asked
    /// leaves it waiting).
    static func later(
        _ state: OriginState, _ after: Double, _ kind: Fault.Kind, target: Fault.Target, status: Int, on scenario: String,
        for seconds: Double
    ) -> (client: String, task: Task<Void, Never>) {
        let client = "\(kind.rawValue)-\(UUID().uuidString.prefix(8))"
        let task = Task {
            func arrival() -> Double? { state.log().first(where: { $0.path.contains("client=\(client)") })?.wall }
            // Waited for as long as it takes (an hour at most), or until the run is over and the task cancelled.
            _ = await eventually(timeout: 3600, every: 0.1) { Task.isCancelled || arrival() != nil }
            guard let first = arrival(), !Task.isCancelled else { return }
            // Timed by the origin from the first request's own arrival, however late this task saw it: the origin starts a
            // fault at its `since` — a live playlist's fault (a freeze) no earlier than now, as it cannot change what was
            // served before it existed.
            var f = Fault(
                id: 0, kind: kind, target: target, status: status, ms: 0, scenario: scenario, rendition: nil, msn: nil, remaining: nil,
                since: first + after, until: first + after + seconds)
            f.client = client
            _ = state.add(f, now: Date().timeIntervalSince1970)
        }
        return (client, task)
    }
}

/// `hlstui monitor` output, parsed.
struct MonitorRun {
    var status: Int32
    var events: [[String: Any]]
    var stderr: String

    /// Events named `name`.
    func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }

    /// A `player` event that shows the stream moving: playing, or restarting where mpv resets itself at a timestamp jump (a
    /// live camera's loop) — neither waiting for data nor paused.
    static func moving(_ player: [String: Any]) -> Bool { ["playing", "restarting"].contains(player["state"] as? String ?? "") }

    /// Runs `hlstui monitor` with `args` (the binary, real libmpv headless), waiting on a thread of its own, once its
    /// players fit (`PlayerSlots`). `before` runs just before the launch and `alongside` while it runs: anything a test
    /// times (a fault, a phase of the origin's clock) is timed from the launch, not from when the test began.
    /// `alone`: no other player runs beside it (a test whose timing is the point, with faults of its own).
    static func run(
        _ args: [String], timeout: Double = 90, alone: Bool = false, before: (@Sendable () async throws -> Void)? = nil,
        alongside: (@Sendable () async -> Void)? = nil, command: [String] = ["monitor"], environment: [String: String] = [:]
    ) async throws -> MonitorRun {
        // A replay's streams are in its recording: the tests here replay one pane.
        let panes = alone ? PlayerSlots.shared.capacity : PlayerSlots.panes(in: args)
        let label = args.first { $0.hasPrefix("http") || $0 == "demo" } ?? args.first ?? ""
        await PlayerSlots.shared.acquire(panes, label)
        defer { Task { await PlayerSlots.shared.release(panes, label) } }
        try await before?()
        let side = alongside.map { body in Task { await body() } }
        let r = try await CLI.run(command + ["--video", "none"] + args, timeout: timeout, environment: environment)
        await side?.value
        if let dir = ProcessInfo.processInfo.environment["HLSTUI_TEST_EVENTS_DIR"] {
            try? r.stdout.write(toFile: "\(dir)/monitor-\(UUID().uuidString.prefix(8)).jsonl", atomically: true, encoding: .utf8)
        }
        let events = r.stdout.split(separator: "\n").compactMap { line -> [String: Any]? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        return MonitorRun(status: r.status, events: events, stderr: r.stderr)
    }
}

/// A tmux server of its own for end-to-end runs of the dashboard in a real terminal.
final class Tmux {
    let socket = "hlstui-test-\(UUID().uuidString.prefix(8))"

    @discardableResult
    func tmux(_ args: [String]) -> String {
        // posix_spawn + waitpid, output through a file: the tmux server daemonizes and would keep Foundation's
        // process-monitoring descriptor (and any pipe) open forever, so Process.waitUntilExit would never return.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString.prefix(6)).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let argv = ["tmux", "-L", socket, "-f", "/dev/null"] + args
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The tmux server outlives this call: it must not inherit (and hold open) pipes other tests are reading.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var pid: pid_t = 0
        let cargs = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        guard posix_spawnp(&pid, "tmux", &actions, nil, cargs, environ) == 0 else { return "" }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    /// Starts `command` in a fresh session of `width`×`height` with a UTF-8 locale; the shell prints EXIT=<status> when it ends.
    /// Holds player slots for the command's panes until this server is gone.
    func start(_ command: String, width: Int = 80, height: Int = 24, environment: [String: String] = [:]) async {
        await holdSlots(command)
        let env = (["LANG": "C.UTF-8", "TERM": "xterm-256color"].merging(environment) { $1 }).map { "\($0.key)='\($0.value)'" }.joined(
            separator: " ")
        tmux([
            "new-session", "-d", "-s", "t", "-x", String(width), "-y", String(height),
            // Bounded: if the test process dies, nothing it started here outlives it by more than two minutes.
            "timeout --foreground -s KILL 120 env \(env) \(command); echo EXIT=$?; sleep 120",
        ])
        serverPID = Int32(tmux(["display", "-p", "-t", "t", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Starts an interactive bash (job control, as a user's shell) and types `command` into it.
    func startInShell(_ command: String, width: Int = 80, height: Int = 24, environment: [String: String] = [:]) async {
        await holdSlots(command)
        let env = (["LANG": "C.UTF-8", "TERM": "xterm-256color"].merging(environment) { $1 }).map { "\($0.key)='\($0.value)'" }.joined(
            separator: " ")
        tmux(["new-session", "-d", "-s", "t", "-x", String(width), "-y", String(height), "env \(env) bash --norc --noprofile -i"])
        serverPID = Int32(tmux(["display", "-p", "-t", "t", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        tmux(["send-keys", "-t", "t", "-l", command])
        tmux(["send-keys", "-t", "t", "Enter"])
    }

    /// The pane's terminal device, where another program could write behind hlstui's back.
    var paneTTY: String { tmux(["display", "-p", "-t", "t", "#{pane_tty}"]).trimmingCharacters(in: .whitespacesAndNewlines) }

    var serverPID: Int32 = 0
    private var slots = 0
    private var label = ""

    private func holdSlots(_ command: String) async {
        let n = PlayerSlots.panes(in: command.split(separator: " ").map(String.init))
        label = "tmux " + command.prefix(80)
        await PlayerSlots.shared.acquire(n, label)
        slots += n
    }

    func screen() -> String { tmux(["capture-pane", "-p", "-t", "t"]) }
    func screenWithEscapes() -> String { tmux(["capture-pane", "-p", "-e", "-t", "t"]) }
    func keys(_ k: String...) { tmux(["send-keys", "-t", "t"] + k) }
    func resize(_ w: Int, _ h: Int) { tmux(["resize-window", "-t", "t", "-x", String(w), "-y", String(h)]) }
    /// True while the pane shows the alternate screen (curses active).
    var alternateScreen: Bool { tmux(["display", "-p", "-t", "t", "#{alternate_on}"]).hasPrefix("1") }
    var panePID: Int32 { Int32(tmux(["display", "-p", "-t", "t", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 }

    /// Waits until the screen satisfies `ok`, up to `timeout` seconds, sleeping without holding a thread; returns the last screen.
    @discardableResult
    func wait(timeout: Double = 30, _ ok: (String) -> Bool) async -> String {
        var s = ""
        _ = await eventually(timeout: timeout, every: 0.05) {
            s = screen()
            return ok(s)
        }
        return s
    }

    deinit {
        // Leave nothing behind: the program in the pane, then the server (kill-server alone has been seen to miss).
        if let pid = childPID(of: panePID, named: "hlstui") { kill(pid, SIGKILL) }
        tmux(["kill-server"])
        if serverPID > 0 { kill(serverPID, SIGKILL) }
        if slots > 0 { Task { [slots, label] in await PlayerSlots.shared.release(slots, label) } }
    }
}

/// The pid of hlstui running under the tmux pane's shell.
func childPID(of parent: Int32, named name: String) -> Int32? {
    guard let out = try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8) else { return nil }
    for pid in out.split(separator: " ").compactMap({ Int32($0) }) {
        if let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), comm.hasPrefix(name) { return pid }
        if let deeper = childPID(of: pid, named: name) { return deeper }
    }
    return nil
}
