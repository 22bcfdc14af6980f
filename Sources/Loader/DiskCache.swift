import Crypto
import Foundation
import LoaderCore
import NIOConcurrencyHelpers
import NIOCore
import CoreFoundation

/// What `--cache` asks for.
public struct CacheOptions: Sendable {
    public var directory: String
    /// Bytes kept at most; the least recently used answers go first.
    public var limit: Int
    /// Query parameters left out of the cache key (tokens, expiry times), lower-cased.
    public var ignoredQuery: Set<String>
    /// Everything from the cache: a piece it does not hold fails with one line naming it.
    public var offline: Bool
    /// Where the vault key that seals cached keys lives (outside the cache directory).
    public var vaultPath: String

    public init(directory: String, limit: Int, ignoredQuery: Set<String> = [], offline: Bool = false, vaultPath: String) {
        self.directory = directory
        self.limit = limit
        self.ignoredQuery = Set(ignoredQuery.map { $0.lowercased() })
        self.offline = offline
        self.vaultPath = vaultPath
    }

    /// `$XDG_CACHE_HOME/hlstui/http` (default `~/.cache/hlstui/http`), beside the origin's generated media.
    public static var defaultDirectory: String { xdg("XDG_CACHE_HOME", ".cache") + "/hlstui/http" }
    /// `$XDG_DATA_HOME/hlstui/vault.key` (default `~/.local/share/hlstui/vault.key`): the user's key store.
    public static var defaultVault: String { xdg("XDG_DATA_HOME", ".local/share") + "/hlstui/vault.key" }

    static func xdg(_ name: String, _ fallback: String) -> String {
        if let v = ProcessInfo.processInfo.environment[name], v.hasPrefix("/") { return v }
        return FileManager.default.homeDirectoryForCurrentUser.path + "/" + fallback
    }
}

/// The cache's record of one stored answer, beside its body (`NAME.meta`, JSON).
struct CacheMeta: Codable, Sendable {
    var url: String
    var status: Int
    var headers: [[String]]
    /// The whole resource's length when known (Content-Length of a 200, the total of a Content-Range).
    var length: Int?
    var complete: Bool
    /// A playlist with EXT-X-ENDLIST.
    var final: Bool
    var sealed: Bool
    var etag: String?
    var lastModified: String?
    /// A progressive file kept by ranges (`SpanFile`): the byte ranges its sparse body holds.
    var spans: SpanSet? = nil

    var headerPairs: [(String, String)] { headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil } }
}

/// The Loader's disk cache (`--cache`): one body file and one small JSON record per answer, named by the hash of its key, in
/// one directory shared by the session's panes. Bodies are written as they stream, so a body cut off (a lost connection, a
/// crash, `kill -9`) keeps the bytes it had and is resumed with Range; eviction is least recently used by size; keys are
/// sealed (DECISIONS.md "The Loader's disk cache").
public final class DiskCache: Sendable {
    public let options: CacheOptions
    let root: URL
    struct Index: Sendable {
        var stored: [String: CachePolicy.Stored] = [:]
        var writing: Set<String> = []
        var vault: [UInt8]?
        /// Progressive files open for this session, written by ranges (never evicted while open).
        var spanFiles: [String: SpanFile] = [:]
    }
    let index = NIOLockedValueBox(Index())

    /// Opens (creating) the cache directory and reads what it holds; a directory that cannot be used is one line.
    public init(_ options: CacheOptions) throws {
        self.options = options
        root = URL(fileURLWithPath: options.directory).appendingPathComponent("v1")
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CacheError("the cache directory \(options.directory) cannot be created: \(error.localizedDescription)")
        }
        guard FileManager.default.isWritableFile(atPath: root.path) else {
            throw CacheError("the cache directory \(options.directory) is not writable")
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        var stored: [String: CachePolicy.Stored] = [:]
        for f in files where f.hasSuffix(".meta") {
            let name = String(f.dropLast(5))
            let body = root.appendingPathComponent(name + ".body").path
            let attrs = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(f).path)
            let size = (try? FileManager.default.attributesOfItem(atPath: body)[.size] as? Int) ?? 0
            let used = (attrs?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            stored[name] = CachePolicy.Stored(name: name, bytes: size, lastUse: used)
        }
        index.withLockedValue { $0.stored = stored }
    }

    /// Bytes held, and answers held (complete or not).
    public var usage: (bytes: Int, entries: Int) {
        index.withLockedValue { i in (i.stored.values.reduce(0) { $0 + $1.bytes }, i.stored.count) }
    }

    public func key(_ url: String, span: RequestedSpan) -> String {
        CachePolicy.key(url: url, span: span, ignoring: options.ignoredQuery)
    }

    /// What the cache holds under `key`.
    enum Lookup {
        case complete(name: String, meta: CacheMeta)
        case partial(name: String, meta: CacheMeta, bytes: Int)
        case none
    }

    func lookup(_ key: String) -> Lookup {
        let name = CachePolicy.fileName(key)
        guard !index.withLockedValue({ $0.writing.contains(name) }),
            let data = FileManager.default.contents(atPath: path(name, "meta")),
            let meta = try? JSONDecoder().decode(CacheMeta.self, from: data)
        else { return .none }
        let size = (try? FileManager.default.attributesOfItem(atPath: path(name, "body"))[.size] as? Int) ?? 0
        if meta.complete { return .complete(name: name, meta: meta) }
        return .partial(name: name, meta: meta, bytes: size)
    }

    /// A stored body, opened when sealed; marks it used now (LRU).
    func body(_ name: String, meta: CacheMeta) throws -> [UInt8] {
        let bytes = try Self.read(path(name, "body"))
        let now = Date()
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: path(name, "meta"))
        index.withLockedValue { $0.stored[name]?.lastUse = now.timeIntervalSince1970 }
        return meta.sealed ? try KeySeal.open(bytes, with: vault()) : bytes
    }

    /// A file's bytes, read straight into one array (its size from `fstat`).
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CacheError("cached body missing") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw CacheError("cached body unreadable") }
        guard let out = read(fd, count: Int(st.st_size), at: 0) else { throw CacheError("cached body cut short") }
        return out
    }

    /// `count` bytes of open file `fd` from `offset`, short reads continued; nil when the file ends first or a read fails.
    static func read(_ fd: Int32, count: Int, at offset: Int) -> [UInt8]? {
        var done = 0
        let out = [UInt8](unsafeUninitializedCapacity: count) { buf, n in
            while done < count {
                let got = pread(fd, buf.baseAddress! + done, count - done, off_t(offset + done))
                guard got > 0 else { break }
                done += got
            }
            n = done
        }
        return done == count ? out : nil
    }

    /// Starts writing `key`'s answer as it streams (`append` true: after the bytes already there); nil when another request
    /// is writing it now (that request goes to the origin uncached).
    func writer(_ key: String, meta: CacheMeta, append: Bool) -> CacheWriter? {
        let name = CachePolicy.fileName(key)
        guard index.withLockedValue({ $0.writing.insert(name).inserted }) else { return nil }
        do {
            try write(meta, name)
            let body = path(name, "body")
            if !append || !FileManager.default.fileExists(atPath: body) {
                guard FileManager.default.createFile(atPath: body, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw CacheError("cannot create \(body)")
                }
            }
            let h = try FileHandle(forWritingTo: URL(fileURLWithPath: body))
            let start = try append ? h.seekToEnd() : 0
            return CacheWriter(cache: self, name: name, meta: meta, handle: h, written: Int(start))
        } catch {
            _ = index.withLockedValue { $0.writing.remove(name) }
            return nil
        }
    }

    /// Stores a key's bytes sealed, whole.
    func storeSealed(_ key: String, meta: CacheMeta, clear: [UInt8]) {
        let name = CachePolicy.fileName(key)
        guard let sealed = try? KeySeal.seal(clear, with: vault()) else { return }
        var m = meta
        (m.sealed, m.complete, m.length) = (true, true, clear.count)
        do {
            try Self.privately(Data(sealed), path(name, "body"))
            try write(m, name)
            stored(name, bytes: sealed.count)
        } catch {}
    }

    /// Forgets a stored answer (a partial the origin would not resume, a body that no longer reads).
    func remove(_ key: String) { drop(CachePolicy.fileName(key)) }

    func drop(_ name: String) {
        try? FileManager.default.removeItem(atPath: path(name, "meta"))
        try? FileManager.default.removeItem(atPath: path(name, "body"))
        _ = index.withLockedValue { $0.stored.removeValue(forKey: name) }
    }

    func finished(_ w: CacheWriter, meta: CacheMeta?) {
        if let meta { try? write(meta, w.name) }
        index.withLockedValue { _ = $0.writing.remove(w.name) }
        stored(w.name, bytes: w.written)
    }

    func stored(_ name: String, bytes: Int) {
        let victims = index.withLockedValue { i -> [String] in
            i.stored[name] = CachePolicy.Stored(name: name, bytes: bytes, lastUse: Date().timeIntervalSince1970)
            let keep = i.writing.union(i.spanFiles.keys).union([name])
            return CachePolicy.evict(Array(i.stored.values), limit: options.limit, keep: keep)
        }
        for v in victims { drop(v) }
    }

    func write(_ meta: CacheMeta, _ name: String) throws {
        try Self.privately(JSONEncoder().encode(meta), path(name, "meta"))
    }

    /// Writes a file whole (renamed into place) that only its owner reads: a URL may carry a token.
    static func privately(_ data: Data, _ path: String) throws {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    func path(_ name: String, _ ext: String) -> String { root.appendingPathComponent("\(name).\(ext)").path }

    /// The user's vault key, created on first use with owner-only permissions.
    func vault() throws -> SymmetricKey {
        if let v = index.withLockedValue({ $0.vault }) { return SymmetricKey(data: v) }
        let v = try KeyVault.load(options.vaultPath)
        index.withLockedValue { $0.vault = v.withUnsafeBytes { Array($0) } }
        return v
    }
}

/// Writes one answer's body into the cache as it streams.
final class CacheWriter: Sendable {
    let cache: DiskCache
    let name: String
    /// The record to save, the body's file (nil once closed, or after a write failed) and the bytes written.
    struct State: Sendable {
        var meta: CacheMeta
        var handle: FileHandle?
        var written: Int
    }
    let state: NIOLockedValueBox<State>

    init(cache: DiskCache, name: String, meta: CacheMeta, handle: FileHandle, written: Int) {
        (self.cache, self.name) = (cache, name)
        state = NIOLockedValueBox(State(meta: meta, handle: handle, written: written))
    }

    var written: Int { state.withLockedValue { $0.written } }

    func append(_ b: ByteBuffer) {
        state.withLockedValue { s in
            guard let h = s.handle else { return }
            do {
                try h.write(contentsOf: Data(b.readableBytesView))
                s.written += b.readableBytes
            } catch {
                // A full disk: the cache stops keeping this body; the player is still served.
                try? h.close()
                s.handle = nil
            }
        }
    }

    /// The body is whole: recorded as complete (`final`: a playlist that ended).
    func complete(final: Bool) {
        let m: CacheMeta? = state.withLockedValue { s in
            guard let h = s.handle else { return nil }
            try? h.close()
            s.handle = nil
            var m = s.meta
            (m.complete, m.final) = (true, final)
            if m.length == nil { m.length = s.written }
            return m.length == s.written ? m : nil
        }
        if m == nil { cache.drop(name) }
        cache.finished(self, meta: m)
    }

    /// The body was cut off: what arrived stays, to be resumed.
    func cut() {
        state.withLockedValue { s in
            try? s.handle?.close()
            s.handle = nil
        }
        cache.finished(self, meta: nil)
    }
}

public struct CacheError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
