import GRDB

/// The recording's tables (docs/RECORDING.md). One file per session; `t` is always seconds since the session started
/// (`meta.started`, ISO 8601).
enum RecordingSchema {
    static let format = "hlstui-recording"
    static let version = 1

    static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE body(hash TEXT PRIMARY KEY, size INTEGER NOT NULL, bytes BLOB NOT NULL);
                CREATE TABLE exchange(
                    id INTEGER PRIMARY KEY,
                    t REAL NOT NULL,
                    pane INTEGER,
                    url TEXT NOT NULL,
                    range TEXT,
                    attempt INTEGER NOT NULL,
                    secret INTEGER NOT NULL,
                    status INTEGER,
                    headers TEXT NOT NULL,
                    ttfb REAL,
                    seconds REAL NOT NULL,
                    bytes INTEGER NOT NULL,
                    failure TEXT,
                    detail TEXT,
                    body TEXT REFERENCES body(hash)
                );
                CREATE INDEX exchange_by_url ON exchange(url, t);
                CREATE TABLE event(id INTEGER PRIMARY KEY, t REAL NOT NULL, name TEXT NOT NULL, pane INTEGER, json TEXT NOT NULL);
                CREATE TABLE input(
                    id INTEGER PRIMARY KEY, t REAL NOT NULL, pane INTEGER, command TEXT NOT NULL, msn INTEGER, offset REAL
                );
                """)
    }
}
