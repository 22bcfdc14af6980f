import Foundation
import NIOConcurrencyHelpers

/// What a child process did: its exit status, what it wrote on stdout and on stderr, and whether its timeout ended it.
public struct ChildResult: Sendable {
    public var status: Int32
    public var stdoutData: Data
    public var stderrData: Data
    public var timedOut: Bool
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    public var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    /// stdout, then stderr.
    public var output: String { stdout + stderr }
}

/// The one way the tests run a program to its end (docs/TESTING.md): it waits on a thread of its own (`offPool`), never on
/// the cooperative pool; stdout and stderr are read at once (a child that fills one pipe while the other is read to its end
/// would hang); at `timeout` the child is asked to stop (SIGTERM) and killed (SIGKILL) five seconds later.
public enum ChildProcess {
    /// Runs `executable`; `environment` nil inherits this process's, `input` goes to its stdin.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil, timeout: Double = 90
    ) async throws -> ChildResult {
        try await offPool { try runBlocking(executable, arguments, environment: environment, input: input, timeout: timeout) }
    }

    /// Runs a program found on PATH (`openssl`, `sqlite3`, `curl`).
    public static func run(
        tool: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil, timeout: Double = 90
    ) async throws -> ChildResult {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments, environment: environment, input: input, timeout: timeout)
    }

    /// Copies a program to `destination` (mode 0755) so that it can be run from there. The copy is made by `install`, not by
    /// this process: a file this process held open for writing is inherited by any child another test forks in that moment,
    /// and running the copy while that child lives fails with ETXTBSY ("Text file busy").
    public static func copyExecutable(_ source: URL, to destination: URL) async throws {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/install"), ["-m", "0755", source.path, destination.path])
        guard result.status == 0 else { throw CopyFailed(output: result.output) }
    }

    /// `install` failed; its output says why.
    public struct CopyFailed: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "install failed: \(output)" }
    }

    static func runBlocking(
        _ executable: URL, _ arguments: [String], environment: [String: String]?, input: Data?, timeout: Double
    ) throws -> ChildResult {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input == nil ? FileHandle.nullDevice : inp
        try p.run()
        if let input {
            inp.fileHandleForWriting.write(input)
            try? inp.fileHandleForWriting.close()
        }
        let timedOut = NIOLockedValueBox(false)
        let stop = DispatchWorkItem {
            guard p.isRunning else { return }
            timedOut.withLockedValue { $0 = true }
            p.terminate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: stop)
        // stderr on a thread of its own: a blocking read on a Dispatch global queue holds one of its few threads (as many as
        // cores, on Linux the ones Swift's tasks run on too) for the child's whole life — six monitors at once starved every
        // task of the test process (a fault timed to a run never went on).
        let errors = DispatchSemaphore(value: 0)
        let stderrData = NIOLockedValueBox(Data())
        Thread {
            let d = err.fileHandleForReading.readDataToEndOfFile()
            stderrData.withLockedValue { $0 = d }
            errors.signal()
        }.start()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        errors.wait()
        p.waitUntilExit()
        stop.cancel()
        return ChildResult(
            status: p.terminationStatus, stdoutData: stdoutData, stderrData: stderrData.withLockedValue { $0 },
            timedOut: timedOut.withLockedValue { $0 })
    }
}

/// How a child that was left running ended.
public struct ChildExit: Sendable, Equatable {
    public var status: Int32
    /// Ended by a signal (`status` is then the signal's number).
    public var signalled: Bool
    public init(status: Int32, signalled: Bool) {
        self.status = status
        self.signalled = signalled
    }
}

/// A program the tests start and leave running — an origin, a proxy, a fleet, Prometheus, a fixture server, hlstui in a
/// pseudo-terminal — the other way the tests run a program (docs/TESTING.md): stdout is read as lines (`lines`) and stderr
/// kept whole (`stderr`), each by a thread of its own, so a child never blocks on a full pipe; its end is awaited on a thread of
/// its own (`exit`, `stop`), never on the cooperative pool; one still running when the handle goes is killed.
/// `@unchecked Sendable`: `Process` is not marked Sendable, and this class only calls its thread-safe members (run, signal,
/// wait, read the status); its own state is in a `NIOLockedValueBox`.
public final class RunningChild: @unchecked Sendable {
    private let process: Process
    /// What the child writes on stdout, line by line (nothing when stdout went elsewhere).
    public let lines: LineReader
    /// What the child wrote on stderr, and whether its pipe reached its end (true when stderr went to a file).
    private let stderrData = NIOLockedValueBox((data: Data(), ended: false))
    private let input: FileHandle?

    /// Starts `executable`; `environment` nil inherits this process's. `stdin`: the child reads what `write` sends, else
    /// nothing; `stdout`/`stderr`: a file to write instead of the pipes read here.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, stdin: Bool = false, stdout: URL? = nil,
        stderr: URL? = nil
    ) throws {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = try stdout.map { try Self.file($0) } ?? out
        p.standardError = try stderr.map { try Self.file($0) } ?? err
        p.standardInput = stdin ? inp : FileHandle.nullDevice
        try p.run()
        process = p
        input = stdin ? inp.fileHandleForWriting : nil
        lines = LineReader(stdout == nil ? out.fileHandleForReading : nil)
        let box = stderrData
        if stderr == nil {
            Thread {
                while case let chunk = err.fileHandleForReading.availableData, !chunk.isEmpty {
                    box.withLockedValue { $0.data.append(chunk) }
                }
                box.withLockedValue { $0.ended = true }
            }.start()
        } else {
            box.withLockedValue { $0.ended = true }
        }
    }

    /// Runs a program found on PATH (`mpv`, `python3`, `script`).
    public convenience init(tool: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Bool = false) throws {
        try self.init(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments, environment: environment, stdin: stdin)
    }

    private static func file(_ url: URL) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return try FileHandle(forWritingTo: url)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    /// What the child wrote on stderr so far (all of it once it has ended and its pipe is read).
    public var stderr: String { String(decoding: stderrData.withLockedValue { $0.data }, as: UTF8.self) }

    /// Sends `text` to the child's stdin.
    public func write(_ text: String) { input?.write(Data(text.utf8)) }

    /// Sends `signal` (SIGINT, SIGTERM, SIGKILL) while the child runs.
    public func signal(_ signal: Int32) { if process.isRunning { kill(process.processIdentifier, signal) } }

    /// Waits for the child's end, up to `timeout` seconds (nil: when it ends that long, still running).
    public func exit(timeout: Double = 120) async -> ChildExit? {
        let p = process
        guard await eventually(timeout: timeout, every: 0.05, { !p.isRunning }) else { return nil }
        // Ended: this returns at once (the status is set by then).
        try? await offPool { p.waitUntilExit() }
        // What it wrote last is read too (bounded: a child of its own may hold the pipe open).
        _ = await eventually(timeout: 2) { stderrData.withLockedValue { $0.ended } }
        return ChildExit(status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal)
    }

    /// Asks the child to stop (SIGTERM), kills it (SIGKILL) if it has not `grace` seconds later, and returns how it ended.
    @discardableResult
    public func stop(grace: Double = 5) async -> ChildExit {
        signal(SIGTERM)
        if let e = await exit(timeout: grace) { return e }
        signal(SIGKILL)
        return await exit() ?? ChildExit(status: SIGKILL, signalled: true)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// A child's stdout as lines, a timeout per line; a thread of its own drains the pipe.
public final class LineReader: Sendable {
    private struct Buffer {
        var data = Data()
        var eof = false
    }
    private let buffer = NIOLockedValueBox(Buffer())

    /// Reads `handle` to its end; nil: nothing to read (every `next` answers nil).
    init(_ handle: FileHandle?) {
        guard let handle else {
            buffer.withLockedValue { $0.eof = true }
            return
        }
        let buffer = buffer
        Thread {
            while true {
                let chunk = handle.availableData
                buffer.withLockedValue { if chunk.isEmpty { $0.eof = true } else { $0.data.append(chunk) } }
                if chunk.isEmpty { return }
            }
        }.start()
    }

    private func take() -> (line: String?, eof: Bool) {
        buffer.withLockedValue { b in
            guard let nl = b.data.firstIndex(of: 0x0A) else { return (nil, b.eof) }
            let line = b.data[b.data.startIndex..<nl]
            b.data = Data(b.data[(nl + 1)...])
            return (String(decoding: line, as: UTF8.self), b.eof)
        }
    }

    /// The next line, waiting up to `timeout` seconds without holding a thread; nil at the end or on timeout.
    public func next(timeout: Double) async -> String? {
        var line: String?
        var ended = false
        _ = await eventually(timeout: timeout) {
            (line, ended) = take()
            return line != nil || ended
        }
        return line
    }
}
