import Foundation
import TestSupport
import Testing

/// hlstui as people run it: not as root. Every socket option it sets must be one an unprivileged process may set — TCP_NODELAY
/// once went out at the socket level, where option 1 is SO_DEBUG (CAP_NET_ADMIN): as root it passed unseen, as anyone else
/// every connection to the origin and every player connection to the Loader failed with EACCES.
@Suite("hlstui run by a user who is not root")
struct UnprivilegedTests {
    /// `args` run as an unprivileged user (nobody, via util-linux's `setpriv`, when the tests run as root; else as the user
    /// running them), from a copy of the binary anyone can read, with a home of its own.
    static func run(_ args: [String], timeout: Double) async throws -> ChildResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-nobody-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("hlstui")
        try await ChildProcess.copyExecutable(CLI.binary, to: binary)
        let environment = ["HOME": dir.path, "PATH": "/usr/bin:/bin", "HLSTUI_CACHE": dir.appendingPathComponent("cache").path]
        guard getuid() == 0 else { return try await ChildProcess.run(binary, args, environment: environment, timeout: timeout) }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        try #require(FileManager.default.isExecutableFile(atPath: setpriv.path), "setpriv (util-linux)")
        return try await ChildProcess.run(
            setpriv, ["--reuid", "65534", "--regid", "65534", "--clear-groups", binary.path] + args, environment: environment,
            timeout: timeout)
    }

    @Test("not root: inspect reads the origin, and monitor plays its live ladder through the Loader")
    func plays() async throws {
        let url = "\(AppOrigin.base)/live-ts/master.m3u8"
        let inspect = try await Self.run(["inspect", url], timeout: 30)
        #expect(inspect.status == 0 && inspect.stdout.contains("multivariant playlist"), "\(inspect.output.prefix(600))")
        await PlayerSlots.shared.acquire(1, "monitor as nobody")
        defer { Task { await PlayerSlots.shared.release(1, "monitor as nobody") } }
        let monitor = try await Self.run(["monitor", url, "--duration", "6"], timeout: 60)
        #expect(monitor.status == 0, "\(monitor.stderr.prefix(600))")
        #expect(monitor.stdout.contains(#""state":"playing""#), "\(monitor.stdout.prefix(1500)) \(monitor.stderr.prefix(600))")
    }
}
