import Foundation
import Loader
import LoaderCore
import NIOConcurrencyHelpers
import Offline
import Origin

/// The downloads `hlstui offline ls` lists: their folders, one per line, in the user's data directory.
public struct OfflineRegistry: Sendable {
    /// `$XDG_DATA_HOME/hlstui/downloads` (default `~/.local/share/hlstui/downloads`), beside the vault key.
    public static var defaultPath: String {
        (CacheOptions.defaultVault as NSString).deletingLastPathComponent + "/downloads"
    }

    public var path: String
    public init(path: String = OfflineRegistry.defaultPath) { self.path = path }

    public var folders: [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    public func add(_ folder: String) throws {
        var list = folders
        guard !list.contains(folder) else { return }
        list.append(folder)
        try save(list)
    }

    public func remove(_ folder: String) throws { try save(folders.filter { $0 != folder }) }

    func save(_ list: [String]) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data((list.map { $0 + "\n" }.joined()).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// A download folder opened for playing: served on 127.0.0.1 under a random path, its keys opened from their seals and handed
/// to the Loader as key overrides — never served, never written in the clear (DECISIONS.md "Offline downloads").
public struct OfflineSession: Sendable {
    public let url: String
    /// Key URIs as the Loader will resolve them → key bytes.
    public let keys: [String: [UInt8]]
    /// The same URIs → when each key stops playing (the earlier of its clocks), for the Loader to enforce and show.
    public let deadlines: [String: KeyDeadline]
    public let server: OriginServer
    public let manifest: DownloadManifest
    /// One line per key: its countdowns.
    public var notes: [String]
}

/// Why a download cannot play, in one line.
public struct OfflineError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}

public enum OfflineLibrary {
    /// True when `path` is a folder `hlstui download` made.
    public static func isDownload(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + DownloadManifest.fileName)
    }

    public static func manifest(_ dir: String) throws(OfflineError) -> DownloadManifest {
        let path = dir + "/" + DownloadManifest.fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OfflineError("\(dir): not a download (no \(DownloadManifest.fileName))")
        }
        do { return try JSONDecoder().decode(DownloadManifest.self, from: data) } catch {
            throw OfflineError("\(path) cannot be read: \(error.localizedDescription)")
        }
    }

    public static func save(_ m: DownloadManifest, to dir: String) throws(OfflineError) {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { try e.encode(m).write(to: URL(fileURLWithPath: dir + "/" + DownloadManifest.fileName), options: .atomic) } catch {
            throw OfflineError("\(dir): the manifest cannot be written: \(error.localizedDescription)")
        }
    }

    /// Opens `dir` for playing at `now`: both clocks of every key checked (the first play arms the playback clock), the keys
    /// opened with the user's vault, and the folder served.
    public static func open(_ dir: String, vaultPath: String = CacheOptions.defaultVault, now: Double = Date().timeIntervalSince1970)
        throws(OfflineError) -> OfflineSession
    {
        var m = try manifest(dir)
        guard m.complete || m.live else {
            let stored = m.renditions.reduce(0) { $0 + $1.stored }
            let listed = m.renditions.reduce(0) { $0 + $1.segments }
            throw OfflineError(
                "\(dir): the download is incomplete (\(stored) of \(listed) segments); run the same `hlstui download` again to finish it")
        }
        if let e = m.expired(now: now) { throw OfflineError(e.description) }
        let open: @Sendable ([UInt8]) -> [UInt8]?
        do { open = try KeyVault.sealing(at: vaultPath).open } catch { throw OfflineError("\(error)") }
        var clear: [String: [UInt8]] = [:]
        for k in m.keys {
            guard let sealed = FileManager.default.contents(atPath: dir + "/" + k.file) else {
                throw OfflineError("key \(k.fingerprint.prefix(4))…: \(k.file) is missing from the download")
            }
            guard let key = open(Array(sealed)), key.count == 16, KeyMaterial.fingerprint(key) == k.fingerprint else {
                throw OfflineError(
                    "key \(k.fingerprint.prefix(4))… cannot be opened with this user's vault key (\(vaultPath)): the download was made by another user or the vault key changed"
                )
            }
            clear[k.id] = key
        }
        if m.keys.contains(where: { $0.firstPlay == nil && $0.playbackDuration != nil }) {
            m.armPlayback(now: now)
            try save(m, to: dir)
        }
        let token = randomToken()
        let responder = DownloadResponder(root: URL(fileURLWithPath: dir).standardizedFileURL, token: token)
        let server: OriginServer
        do { server = try OriginServer.start(router: responder) } catch {
            throw OfflineError("the download cannot be served on 127.0.0.1: \(error)")
        }
        let base = server.httpBase + "/" + token + "/"
        var keys: [String: [UInt8]] = [:]
        var deadlines: [String: KeyDeadline] = [:]
        for k in m.keys {
            let uri = base + "keys/\(k.id).key"
            keys[uri] = clear[k.id]
            let ends = [(k.storageExpires, "storage"), (k.playbackExpires, "playback")].compactMap { t, c in t.map { ($0, c) } }
            if let first = ends.min(by: { $0.0 < $1.0 }) { deadlines[uri] = KeyDeadline(at: first.0, clock: first.1) }
        }
        let notes = m.keys.map { "offline key \($0.fingerprint.prefix(4))…: \($0.countdown(now: now))" }
        return OfflineSession(url: base + m.entry, keys: keys, deadlines: deadlines, server: server, manifest: m, notes: notes)
    }

    static func randomToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }
}

/// Serves a download folder's playlists and media under `/TOKEN/`; its keys (sealed) and manifest never.
final class DownloadResponder: OriginResponder, Sendable {
    let state = OriginState(startedAt: Date().timeIntervalSince1970)
    let root: URL
    let token: String

    init(root: URL, token: String) {
        self.root = root
        self.token = token
    }

    func respond(_ req: OriginRequest, now: Double) -> OriginResponse {
        let prefix = "/" + token + "/"
        guard req.path.hasPrefix(prefix) else { return text(404, "not found") }
        let rel = String(req.path.dropFirst(prefix.count)).removingPercentEncoding ?? ""
        let parts = rel.split(separator: "/")
        guard !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." }), parts.first != "keys",
            rel != DownloadManifest.fileName, !rel.hasSuffix(".part")
        else { return text(404, "not in the download: \(rel)") }
        guard let body = FileManager.default.contents(atPath: root.appendingPathComponent(rel).path) else {
            return text(404, "not in the download: \(rel)")
        }
        var r = OriginResponse(status: 200, contentType: Self.type(rel), body: Array(body))
        r.kind = rel.hasSuffix(".m3u8") ? "playlist" : "segment"
        return r
    }

    func text(_ status: Int, _ s: String) -> OriginResponse {
        OriginResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((s + "\n").utf8))
    }

    static func type(_ path: String) -> String {
        switch OfflineNames.ext(path, fallback: "") {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "ts": return "video/mp2t"
        case "mp4", "m4s", "m4v": return "video/mp4"
        case "m4a": return "audio/mp4"
        case "aac": return "audio/aac"
        case "vtt", "webvtt": return "text/vtt"
        default: return "application/octet-stream"
        }
    }
}
