import LoaderCore
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Runs `--key-command CMD URI` through /bin/sh on its own thread, bounded in time and output, never on the cooperative pool.
enum KeyCommand {
    /// The command's standard output, or an error naming why it gave none (exit status, signal, timeout).
    static func run(_ command: String, _ uri: String, timeout: Double = 10) async throws(KeyError) -> [UInt8] {
        let result: Result<[UInt8], KeyError> = await withCheckedContinuation { cont in
            let t = Thread { cont.resume(returning: runBlocking(command, uri, timeout: timeout)) }
            t.name = "hlstui-key-command"
            t.start()
        }
        return try result.get()
    }

    /// Spawns the shell with stdin from /dev/null and stdout on a pipe; kills it at the deadline.
    static func runBlocking(_ command: String, _ uri: String, timeout: Double) -> Result<[UInt8], KeyError> {
        var fds: [Int32] = [0, 0]
        // Close-on-exec: a process spawned at the same moment elsewhere must not inherit the write end and hold the pipe open.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            return .failure(KeyError(description: "cannot run \(command): no socket pair"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ["/bin/sh", "-c", command + " \"$1\"", "hlstui-key", uri]
        let cargs = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        // Its own process group, so a timeout kills whatever the command started too.
        var attrs = posix_spawnattr_t()
        posix_spawnattr_init(&attrs)
        defer { posix_spawnattr_destroy(&attrs) }
        posix_spawnattr_setflags(&attrs, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attrs, 0)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attrs, cargs, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0]); return .failure(KeyError(description: "cannot run \(command): \(String(cString: strerror(rc)))"))
        }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { timedOut = true; break }
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(min(left, 1) * 1000) + 1)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            let n = read(fds[0], &buf, buf.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
            if out.count > 65_536 { break } // a key is 16 bytes; a flood is a broken command
        }
        close(fds[0])
        if timedOut { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if timedOut { return .failure(KeyError(description: "\(command) gave no key within \(String(format: "%g", timeout)) s")) }
        if out.count > 65_536 { return .failure(KeyError(description: "\(command) printed more than 64 KiB")) }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited else { return .failure(KeyError(description: "\(command) was killed by signal \(status & 0x7f)")) }
        guard code == 0 else { return .failure(KeyError(description: "\(command) exited with \(code)")) }
        return .success(out)
    }
}
