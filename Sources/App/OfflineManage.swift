import Foundation
import Loader
import LoaderCore
import NIOPosix
import Offline

/// What `hlstui offline renew` was asked for.
public struct RenewRequest: Sendable {
    public var dir: String
    public var upstream = UpstreamOptions()
    public var vaultPath = CacheOptions.defaultVault
    public var storageDuration: Double?
    public var playbackDuration: Double?
    public init(dir: String) { self.dir = dir }
}

extension OfflineLibrary {
    /// One block per download: where, how big, what it holds, and each key's countdowns at `now`.
    public static func list(_ folders: [String], now: Double) -> [String] {
        var out: [String] = []
        for f in folders {
            guard let m = try? manifest(f) else {
                out.append("\(f): missing (hlstui offline rm \(f) forgets it)")
                continue
            }
            let state = m.complete ? "complete" : m.live ? "capture cut" : "incomplete"
            let duration = m.renditions.first.map { span($0.duration) } ?? "0s"
            out.append("\(f)  \(byteSize(m.bytes))  \(duration)  \(state)  \(m.source)")
            for r in m.renditions {
                let lang = r.language.map { " (\($0))" } ?? ""
                out.append("  \(r.type.lowercased()) \(r.name)\(lang): \(r.stored)/\(r.segments) segments, \(byteSize(r.bytes))")
            }
            for k in m.keys {
                let state = k.expiry(now: now).map { "EXPIRED (\($0.clock.rawValue))" } ?? k.countdown(now: now)
                out.append("  key \(k.fingerprint.prefix(4))… \(k.method): \(state)")
            }
        }
        return out
    }

    /// Fetches every key of a download again: new seals and a new storage clock, the playback clock disarmed; media untouched.
    /// A key whose bytes changed at the origin is refused (the stored media needs the one it was encrypted with).
    public static func renew(_ r: RenewRequest) async throws(OfflineError) -> [String] {
        var m = try manifest(r.dir)
        guard !m.keys.isEmpty else { return ["\(r.dir): no keys to renew (the download is clear)"] }
        let sealing: (seal: @Sendable ([UInt8]) -> [UInt8]?, open: @Sendable ([UInt8]) -> [UInt8]?)
        do { sealing = try KeyVault.sealing(at: r.vaultPath) } catch { throw OfflineError("\(error)") }
        // The process's one event-loop group (DECISIONS.md, "One event-loop group").
        let group = MultiThreadedEventLoopGroup.singleton
        let client: UpstreamClient
        do { client = try UpstreamClient(group: group, options: r.upstream) } catch { throw OfflineError("\(error)") }
        defer { client.shutdown() }
        let now = Date().timeIntervalSince1970
        var lines: [String] = []
        for i in m.keys.indices {
            let k = m.keys[i]
            let resp: UpstreamResponse
            do { resp = try await client.get(k.uri, secret: true, whole: true) } catch {
                throw OfflineError("key \(k.fingerprint.prefix(4))… (\(k.uri)): \(error.detail)")
            }
            guard resp.head.status == 200 else { throw OfflineError("key \(k.fingerprint.prefix(4))… (\(k.uri)): \(resp.head.statusLine)") }
            let key: [UInt8]
            do { key = try KeyMaterial.decode(resp.body).key } catch { throw OfflineError("key \(k.uri): \(error.description)") }
            guard KeyMaterial.fingerprint(key) == k.fingerprint else {
                throw OfflineError(
                    "key \(k.fingerprint.prefix(4))… (\(k.uri)): the origin now serves another key (\(KeyMaterial.fingerprint(key).prefix(4))…); the stored media needs the old one: download again"
                )
            }
            guard let sealed = sealing.seal(key) else { throw OfflineError("key \(k.fingerprint.prefix(4))… could not be sealed") }
            let path = r.dir + "/" + k.file
            do { try Data(sealed).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                throw OfflineError("\(path): \(error.localizedDescription)")
            }
            chmod(path, 0o600)
            m.keys[i].fetched = now
            m.keys[i].firstPlay = nil
            if let s = r.storageDuration { m.keys[i].storageDuration = s }
            if let p = r.playbackDuration { m.keys[i].playbackDuration = p }
            lines.append("key \(k.fingerprint.prefix(4))… renewed: \(m.keys[i].countdown(now: now))")
        }
        try save(m, to: r.dir)
        return lines
    }

    /// Deletes a download folder (only one `hlstui download` made) and forgets it.
    public static func remove(_ dir: String, registry: OfflineRegistry = OfflineRegistry()) throws(OfflineError) -> String {
        let path = URL(fileURLWithPath: dir).standardizedFileURL.path
        if !FileManager.default.fileExists(atPath: path) {
            guard registry.folders.contains(path) else { throw OfflineError("\(dir): no such download") }
            try? registry.remove(path)
            return "forgot \(path) (it was already gone)"
        }
        let m = try manifest(path)
        do { try FileManager.default.removeItem(atPath: path) } catch { throw OfflineError("\(path): \(error.localizedDescription)") }
        try? registry.remove(path)
        return "removed \(path) (\(byteSize(m.bytes)))"
    }
}
