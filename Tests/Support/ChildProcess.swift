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
