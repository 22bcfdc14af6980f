import Crypto
import Foundation
import GRDB

/// `hlstui recording redact IN OUT`: a copy of a recording with `Redactor`'s rule applied to everything that can carry a
/// secret — exchange URLs, details and headers, playlist bodies (re-stored under their new hash), event lines, commands and
/// the stream URLs — then rewritten whole (VACUUM), so no page of the copy still holds what was taken out.
public enum RecordingRedaction {
    /// How many values were replaced, in all.
    @discardableResult
    public static func redact(_ input: String, to output: String, with redactor: Redactor) throws(RecordingError) -> Int {
        _ = try RecordingFile(path: input)
        guard !FileManager.default.fileExists(atPath: output) else {
            throw RecordingError("\(output) exists: a recording is never written over, give a new file")
        }
        do {
            let source = try DatabaseQueue(
                path: input,
                configuration: {
                    var c = Configuration(); c.readonly = true; return c
                }())
            // A consistent copy through SQLite itself (the source may have a write-ahead log beside it).
            try source.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [output]) }
            let db = try DatabaseQueue(path: output)
            var changed = 0
            try db.write { db in
                func update(_ table: String, _ column: String, key: String = "id", _ f: (String) -> String) throws {
                    for row in try Row.fetchAll(db, sql: "SELECT \(key) AS k, \(column) AS v FROM \(table) WHERE \(column) IS NOT NULL") {
                        let v: String = row["v"]
                        let r = f(v)
                        if r != v {
                            changed += 1
                            try db.execute(
                                sql: "UPDATE \(table) SET \(column) = ? WHERE \(key) = ?", arguments: [r, row["k"] as DatabaseValue])
                        }
                    }
                }
                try update("exchange", "url", redactor.url)
                try update("exchange", "detail", redactor.text)
                try update("exchange", "headers") { json in
                    let pairs = RecordingFile.headers(json)
                    let redacted = redactor.headers(pairs)
                    let same = zip(pairs, redacted).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
                    return same ? json : Recorder.headersJSON(redacted)
                }
                try update("event", "json", redactor.text)
                try update("input", "command", redactor.text)
                try update("meta", "value", key: "key", redactor.text)
                // Playlists are text: redacted, stored under their new hash, the exchanges pointed at it.
                for row in try Row.fetchAll(db, sql: "SELECT hash, bytes FROM body") {
                    let bytes: Data = row["bytes"]
                    guard bytes.starts(with: Data("#EXTM3U".utf8)), let text = String(data: bytes, encoding: .utf8) else { continue }
                    let r = redactor.text(text)
                    guard r != text else { continue }
                    changed += 1
                    let new = Array(r.utf8)
                    let hash = Recorder.hash(new)
                    let old: String = row["hash"]
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO body(hash, size, bytes) VALUES (?, ?, ?)", arguments: [hash, new.count, Data(new)])
                    try db.execute(sql: "UPDATE exchange SET body = ? WHERE body = ?", arguments: [hash, old])
                    try db.execute(sql: "DELETE FROM body WHERE hash = ?", arguments: [old])
                }
                // Sealed keys (`--record-keys`) open only with the recording user's vault: a copy for others keeps none.
                let sealed = try String.fetchAll(db, sql: "SELECT DISTINCT body FROM exchange WHERE secret = 2 AND body IS NOT NULL")
                try db.execute(sql: "UPDATE exchange SET body = NULL, secret = 1 WHERE secret = 2")
                for h in sealed { try db.execute(sql: "DELETE FROM body WHERE hash = ?", arguments: [h]) }
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('redacted', ?)", arguments: [Recorder.iso(Date())])
            }
            try db.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try db.close()
            return changed
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw RecordingError("cannot redact \(input) into \(output): \(Recorder.describe(error))")
        }
    }
}
