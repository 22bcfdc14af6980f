import Foundation
import GRDB
import LoaderEvents

/// A recording opened for reading (read-only: reading never changes it).
public final class RecordingFile: Sendable {
    public let path: String
    private let db: DatabaseQueue

    public init(path: String) throws(RecordingError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { throw RecordingError("\(path): no such file") }
        do {
            var c = Configuration()
            c.readonly = true
            db = try DatabaseQueue(path: path, configuration: c)
            let format = try db.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'") }
            guard format == RecordingSchema.format else { throw RecordingError("\(path) is not an hlstui recording") }
        } catch let e as RecordingError {
            throw e
        } catch {
            throw RecordingError("\(path) is not an hlstui recording (\(Recorder.describe(error)))")
        }
    }

    public func meta() throws(RecordingError) -> [String: String] {
        try read { db in
            Dictionary(
                try Row.fetchAll(db, sql: "SELECT key, value FROM meta").map { ($0["key"] as String, $0["value"] as String) },
                uniquingKeysWith: { a, _ in a })
        }
    }

    public func exchanges() throws(RecordingError) -> [RecordedExchange] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t, pane, url, range, attempt, secret, status, headers, ttfb, seconds, bytes, failure, body
                    FROM exchange ORDER BY t, id
                    """
            ).map { r in
                RecordedExchange(
                    t: r["t"], pane: r["pane"], url: r["url"], range: r["range"], attempt: r["attempt"], secret: (r["secret"] as Int) != 0,
                    sealed: (r["secret"] as Int) == 2,
                    status: r["status"], headers: Self.headers(r["headers"]), ttfb: r["ttfb"], seconds: r["seconds"], bytes: r["bytes"],
                    failure: r["failure"], body: r["body"])
            }
        }
    }

    public func body(_ hash: String) throws(RecordingError) -> [UInt8]? {
        try read { db in try Data.fetchOne(db, sql: "SELECT bytes FROM body WHERE hash = ?", arguments: [hash]).map { [UInt8]($0) } }
    }

    /// The session's events: time, name and the JSON line.
    public func events() throws(RecordingError) -> [(t: Double, name: String, json: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT t, name, json FROM event ORDER BY id").map { ($0["t"], $0["name"], $0["json"]) }
        }
    }

    /// The commands given, with where their pane's playhead was (nil: not playing, or a recording made before hlstui kept it).
    public func inputs() throws(RecordingError) -> [(t: Double, pane: Int?, command: String, playhead: (msn: Int, offset: Double)?)] {
        try read { db in
            let kept = try db.columns(in: "input").contains { $0.name == "msn" }
            return try Row.fetchAll(db, sql: "SELECT t, pane, command\(kept ? ", msn, offset" : "") FROM input ORDER BY id").map { row in
                let msn: Int? = kept ? row["msn"] : nil
                let offset: Double? = kept ? row["offset"] : nil
                return (row["t"], row["pane"], row["command"], msn.flatMap { m in offset.map { (m, $0) } })
            }
        }
    }

    /// Stored body bytes and how many exchanges share them.
    public func storage() throws(RecordingError) -> (bodies: Int, bytes: Int, exchangeBytes: Int) {
        try read { db in
            let b = try Row.fetchOne(db, sql: "SELECT count(*) AS n, coalesce(sum(size), 0) AS s FROM body")
            let e = try Int.fetchOne(db, sql: "SELECT coalesce(sum(bytes), 0) FROM exchange") ?? 0
            return (b?["n"] ?? 0, b?["s"] ?? 0, e)
        }
    }

    static func headers(_ json: String) -> [(String, String)] {
        guard let pairs = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String]] else { return [] }
        return pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(RecordingError) -> T {
        do { return try db.read(body) } catch { throw RecordingError("\(path): \(Recorder.describe(error))") }
    }
}
