import Crypto
import Foundation
import GRDB
import JSONValue
import LoaderEvents
import NIOConcurrencyHelpers

/// Why a recording could not be written or read, in one line.
public struct RecordingError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Writes one session into a SQLite file (the schema: docs/RECORDING.md): every exchange with an origin (bodies stored once by
/// content hash, a key's bytes never), every line of the session's events and the commands given, each with its time since the
/// session started. Items are queued and written together a few times a second on the recorder's own queue, so the Loader and
/// the panes never wait on the disk; `close()` writes what is left. A write that fails (a full disk) stops the recording with
/// one line through `onFailure`; the session goes on.
public final class Recorder: Sendable {
    /// What the recorder has not written yet (`queued`).
    private enum Item {
        case exchange(UpstreamExchange, pane: Int?)
        case event(t: Double, name: String, pane: Int?, json: String)
        case input(t: Double, pane: Int?, command: String, playhead: (msn: Int, offset: Double)?)
    }

    public let path: String
    /// When the session started: every `t` is measured from it.
    public let started: Date
    private let db: DatabaseQueue
    /// The writer: flushes run here, one at a time, off the callers' threads (SQLite blocks).
    private let queue = DispatchQueue(label: "hlstui.recorder")
    /// What waits to be written, whether a flush is due, and why the recording stopped (nil: it goes on).
    private struct Queued {
        var pending: [Item] = []
        var flushScheduled = false
        var stopped: String?
    }
    private let queued = NIOLockedValueBox(Queued())
    /// CPU seconds spent writing (hashing, SQLite, the last checkpoint), on the recorder's queue: what recording costs the
    /// session beyond keeping each body until it is written; saved as `meta.writerCPUSeconds` at close.
    private let writerCPU = NIOLockedValueBox(0.0)
    private let onFailure: @Sendable (String) -> Void
    /// `--record-keys`: seals a key's bytes for the file (nil: keys are recorded without their bytes).
    private let sealKey: (@Sendable ([UInt8]) -> [UInt8]?)?
    /// `--redact`: secrets taken out of everything before it is written.
    private let redactor: Redactor?

    /// Creates `path` (never over an existing file: a recording is not overwritten by accident) with `meta` (the command line,
    /// the URLs, hlstui's version).
    public convenience init(
        path: String, meta: [(String, String)], started: Date = Date(), redactor: Redactor? = nil,
        sealKey: (@Sendable ([UInt8]) -> [UInt8]?)? = nil, onFailure: @escaping @Sendable (String) -> Void
    ) throws(RecordingError) {
        try self.init(
            path: path, meta: meta, started: started, maxPages: nil, redactor: redactor, sealKey: sealKey, onFailure: onFailure)
    }

    /// `maxPages`: a size limit on the file (tests: a disk that fills up).
    init(
        path: String, meta: [(String, String)], started: Date, maxPages: Int?, redactor: Redactor? = nil,
        sealKey: (@Sendable ([UInt8]) -> [UInt8]?)? = nil, onFailure: @escaping @Sendable (String) -> Void
    ) throws(RecordingError) {
        self.redactor = redactor
        self.sealKey = sealKey
        self.path = path
        self.started = started
        self.onFailure = onFailure
        guard !FileManager.default.fileExists(atPath: path) else {
            throw RecordingError("\(path) exists: a recording is never written over, give a new file")
        }
        do {
            db = try DatabaseQueue(path: path)
            try db.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                // A commit is not synced to the disk: the write-ahead log survives a crash of hlstui (kill -9) whole; only a
                // power loss may lose the last quarter seconds (DECISIONS.md, recordings).
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                if let maxPages { try db.execute(sql: "PRAGMA max_page_count = \(maxPages)") }
            }
            try db.write { db in
                try RecordingSchema.create(db)
                let fields =
                    [
                        ("format", RecordingSchema.format), ("version", String(RecordingSchema.version)),
                        ("started", Self.iso(started)),
                    ] + meta.map { ($0.0, redactor?.text($0.1) ?? $0.1) } + (redactor == nil ? [] : [("redacted", Self.iso(started))])
                for (k, v) in fields { try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [k, v]) }
            }
        } catch {
            throw RecordingError("cannot record into \(path): \(Self.describe(error))")
        }
    }

    /// A tap for one pane's Loader (`UpstreamOptions.tap`).
    public func tap(pane: Int?) -> @Sendable (UpstreamExchange) -> Void { { [self] e in enqueue(.exchange(e, pane: pane)) } }

    /// One line of the session's events (the `monitor` JSON, `t` as in it).
    public func event(t: Double, name: String, pane: Int?, json: String) {
        enqueue(.event(t: t, name: name, pane: pane, json: redactor?.text(json) ?? json))
    }

    /// A command given (a key on the dashboard, a line of `--commands`), with where its pane's playhead was then (segment and
    /// seconds into it; nil: not playing), the moment a replay gives it again at.
    public func input(t: Double, pane: Int?, command: String, playhead: (msn: Int, offset: Double)? = nil) {
        enqueue(.input(t: t, pane: pane, command: redactor?.text(command) ?? command, playhead: playhead))
    }

    /// Writes everything queued and closes the file; later items are dropped.
    public func close() {
        queue.sync { flush() }
        let failed = queued.withLockedValue { q -> Bool in
            defer { q.stopped = q.stopped ?? "closed" }
            return q.stopped != nil
        }
        let cpu0 = Self.threadCPU()
        try? db.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        // After the queue's flushes: what they spent is all counted.
        let spent = queue.sync { writerCPU.withLockedValue { $0 } } + Self.threadCPU() - cpu0
        if !failed {
            try? db.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('writerCPUSeconds', ?)",
                    arguments: [String(format: "%.4f", spent)])
            }
        }
        try? db.close()
    }

    private func enqueue(_ item: Item) {
        let schedule = queued.withLockedValue { q -> Bool in
            guard q.stopped == nil else { return false }
            q.pending.append(item)
            if q.flushScheduled { return false }
            q.flushScheduled = true
            return true
        }
        if schedule { queue.asyncAfter(deadline: .now() + 0.25) { [self] in flush() } }
    }

    /// Runs on `queue`.
    private func flush() {
        let items = queued.withLockedValue { q -> [Item] in
            q.flushScheduled = false
            defer { q.pending = [] }
            return q.stopped == nil ? q.pending : []
        }
        guard !items.isEmpty else { return }
        let cpu0 = Self.threadCPU()
        defer { writerCPU.withLockedValue { $0 += Self.threadCPU() - cpu0 } }
        do {
            try db.write { db in
                for item in items {
                    switch item {
                    case .exchange(let e, let pane): try write(e, pane: pane, db)
                    case .event(let t, let name, let pane, let json):
                        try db.execute(
                            sql: "INSERT INTO event(t, name, pane, json) VALUES (?, ?, ?, ?)", arguments: [t, name, pane, json])
                    case .input(let t, let pane, let command, let playhead):
                        try db.execute(
                            sql: "INSERT INTO input(t, pane, command, msn, offset) VALUES (?, ?, ?, ?, ?)",
                            arguments: [t, pane, command, playhead?.msn, playhead?.offset])
                    }
                }
            }
        } catch {
            let why = "recording into \(path) stopped: \(Self.describe(error))"
            queued.withLockedValue { $0.stopped = why }
            onFailure(why)
        }
    }

    private func write(_ e: UpstreamExchange, pane: Int?, _ db: Database) throws {
        var hash: String?
        // A key's bytes are never recorded in the clear: without `--record-keys` the exchange is recorded without its body,
        // with it the bytes are sealed under the user's vault key (`secret` 2).
        var secret = e.secret ? 1 : 0
        if e.secret, e.status == 200, !e.body.isEmpty, let sealed = sealKey?(e.body) {
            let h = Self.hash(sealed)
            try db.execute(
                sql: "INSERT OR IGNORE INTO body(hash, size, bytes) VALUES (?, ?, ?)", arguments: [h, sealed.count, Data(sealed)])
            (hash, secret) = (h, 2)
        }
        if !e.secret && !e.body.isEmpty {
            var body = e.body
            // A playlist's URIs carry the same tokens as the URLs.
            if let redactor, body.starts(with: Array("#EXTM3U".utf8)) {
                body = Array(redactor.text(String(decoding: body, as: UTF8.self)).utf8)
            }
            let h = Self.hash(body)
            try db.execute(sql: "INSERT OR IGNORE INTO body(hash, size, bytes) VALUES (?, ?, ?)", arguments: [h, body.count, Data(body)])
            hash = h
        }
        let headers = Self.headersJSON(redactor?.headers(e.headers) ?? e.headers)
        try db.execute(
            sql: """
                INSERT INTO exchange(t, pane, url, range, attempt, secret, status, headers, ttfb, seconds, bytes, failure, detail, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                e.sent - started.timeIntervalSince1970, pane, redactor?.url(e.url) ?? e.url, e.range, e.attempt, secret, e.status,
                headers, e.ttfb, e.seconds, e.bytes, e.failure, e.detail.map { redactor?.text($0) ?? $0 }, hash,
            ])
    }

    /// The SHA-256 of `bytes` in lower-case hex (written digit by digit: `String(format:)` per byte costs more than the hash).
    static func hash(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in SHA256.hash(data: bytes) {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// CPU seconds the calling thread has used.
    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func headersJSON(_ headers: [(String, String)]) -> String {
        JSONValue.array(headers.map { .array([.string($0.0), .string($0.1)]) }).text
    }

    static func iso(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e.resultCode)" }
        return "\(error)"
    }
}
