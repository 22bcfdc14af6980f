import CNCurses
import Foundation
import NIOConcurrencyHelpers

/// The headless commands' stderr kept for hlstui's own lines (`fleet`, `monitor`, `proxy`): what libraries write straight
/// to file descriptor 2 — FFmpeg, once the first player handle of the process is gone (mpv then hands FFmpeg's log to
/// stderr), ALSA, PipeWire — is captured and appended to `--log FILE` when one is given, else dropped (docs/MESSAGES.md).
public final class StderrCapture: Sendable {
    private let file: FileHandle?
    private let running = NIOLockedValueBox(true)

    private init(file: FileHandle?) { self.file = file }

    /// Starts capturing; nil when the pipe cannot be made (stderr then stays as it is).
    public static func start(log path: String?) -> StderrCapture? {
        guard hl_capture_start_stderr() == 0 else { return nil }
        var handle: FileHandle?
        if let path {
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            handle = FileHandle(forWritingAtPath: path)
            _ = try? handle?.seekToEnd()
        }
        let c = StderrCapture(file: handle)
        let t = Thread { c.drainLoop() }
        t.name = "hlstui-stderr"
        t.start()
        return c
    }

    /// Writes one of hlstui's own lines to the user's stderr, captured or not.
    public static func say(_ line: String) {
        let bytes = Array((line.hasSuffix("\n") ? line : line + "\n").utf8)
        bytes.withUnsafeBufferPointer { b in
            var off = 0
            while off < b.count {
                let n = write(hl_stderr_fd(), b.baseAddress! + off, b.count - off)
                if n <= 0 { break }
                off += n
            }
        }
    }

    private func drainLoop() {
        while running.withLockedValue({ $0 }) {
            drain()
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    private func drain() {
        var buf = [CChar](repeating: 0, count: 16384)
        while true {
            var lost = 0
            let n = hl_capture_take(&buf, buf.count, &lost)
            if n == 0 { break }
            file?.write(Data(buf[0..<n].map { UInt8(bitPattern: $0) }))
        }
    }

    /// Gives stderr back; what was captured last is kept as the rest.
    public func stop() {
        running.withLockedValue { $0 = false }
        hl_capture_stop()
        drain()
        try? file?.close()
    }
}
