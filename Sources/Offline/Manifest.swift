import Foundation

/// `hlstui-download.json` in a download folder: what was asked for, what was chosen and why, what is stored, and the keys'
/// clocks (DECISIONS.md "Offline downloads"). Key bytes are never here: each key is a file sealed under the user's vault key.
public struct DownloadManifest: Codable, Sendable, Equatable {
    public static let fileName = "hlstui-download.json"

    public var version = 1
    /// The URL downloaded.
    public var source: String
    /// Unix seconds.
    public var created: Double
    /// The playlist that plays the download, relative to the folder.
    public var entry: String
    /// A live or EVENT capture (its playlists list only what was stored).
    public var live: Bool
    /// Every listed segment is stored (a VOD), or the capture ended.
    public var complete: Bool
    /// Why these renditions: one line each.
    public var choice: [String]
    /// Renditions seen and not stored, with why (DRM, not chosen).
    public var leftOut: [String]
    public var renditions: [StoredRendition]
    public var keys: [StoredKey]

    public init(source: String, created: Double, entry: String, live: Bool) {
        self.source = source
        self.created = created
        self.entry = entry
        self.live = live
        complete = false
        choice = []
        leftOut = []
        renditions = []
        keys = []
    }

    public var bytes: Int { renditions.reduce(0) { $0 + $1.bytes } }
}

public struct StoredRendition: Codable, Sendable, Equatable {
    /// VIDEO (a variant), AUDIO, SUBTITLES.
    public var type: String
    public var name: String
    public var language: String?
    /// The media playlist downloaded.
    public var source: String
    /// Its rewritten copy, relative to the folder.
    public var playlist: String
    public var segments: Int
    public var stored: Int
    public var bytes: Int
    public var duration: Double

    public init(type: String, name: String, language: String?, source: String, playlist: String) {
        self.type = type
        self.name = name
        self.language = language
        self.source = source
        self.playlist = playlist
        segments = 0
        stored = 0
        bytes = 0
        duration = 0
    }
}

/// A key kept with a download, sealed, with two clocks as persistable content keys have: storage from when it was fetched,
/// playback from the download's first play.
public struct StoredKey: Codable, Sendable, Equatable {
    /// The key's URI in the source playlists.
    public var uri: String
    /// The sealed file, relative to the folder; the rewritten playlists name `keys/ID.key`.
    public var file: String
    public var id: String
    public var method: String
    /// A short digest of the key (never the key).
    public var fingerprint: String
    /// Unix seconds.
    public var fetched: Double
    public var storageDuration: Double?
    public var playbackDuration: Double?
    /// Unix seconds of the first play that used the download, once played.
    public var firstPlay: Double?

    public init(uri: String, file: String, id: String, method: String, fingerprint: String, fetched: Double) {
        self.uri = uri
        self.file = file
        self.id = id
        self.method = method
        self.fingerprint = fingerprint
        self.fetched = fetched
    }

    public var storageExpires: Double? { storageDuration.map { fetched + $0 } }
    public var playbackExpires: Double? { firstPlay.flatMap { f in playbackDuration.map { f + $0 } } }
}

/// Why a key may not play.
public struct KeyExpiry: Sendable, Equatable, CustomStringConvertible {
    public enum Clock: String, Sendable { case storage, playback }
    public var fingerprint: String
    public var clock: Clock
    public var at: Double
    public var description: String {
        "key \(fingerprint.prefix(4))… expired (\(clock.rawValue)) at \(Self.date(at))"
    }

    /// ISO 8601 in UTC, to the second.
    public static func date(_ t: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: t))
    }
}

extension StoredKey {
    /// The first clock past at `now`, or nil when the key may play.
    public func expiry(now: Double) -> KeyExpiry? {
        if let s = storageExpires, now >= s { return KeyExpiry(fingerprint: fingerprint, clock: .storage, at: s) }
        if let p = playbackExpires, now >= p { return KeyExpiry(fingerprint: fingerprint, clock: .playback, at: p) }
        return nil
    }

    /// "storage 6d 23h, playback 47h 59m" / "playback 48h from first play" / "no expiry".
    public func countdown(now: Double) -> String {
        var parts: [String] = []
        if let s = storageExpires { parts.append("storage " + (now >= s ? "expired" : span(s - now))) }
        if let d = playbackDuration {
            if let p = playbackExpires {
                parts.append("playback " + (now >= p ? "expired" : span(p - now)))
            } else {
                parts.append("playback \(span(d)) from first play")
            }
        }
        return parts.isEmpty ? "no expiry" : parts.joined(separator: ", ")
    }
}

extension DownloadManifest {
    /// The first key that may not play at `now`.
    public func expired(now: Double) -> KeyExpiry? { keys.lazy.compactMap { $0.expiry(now: now) }.first }

    /// Arms every key's playback clock at the download's first play (a no-op once armed).
    public mutating func armPlayback(now: Double) {
        for i in keys.indices where keys[i].firstPlay == nil { keys[i].firstPlay = now }
    }
}

/// "6d 23h", "47h 59m", "12m 5s", "8s".
public func span(_ seconds: Double) -> String {
    let s = Int(seconds.rounded(.down))
    if s >= 86400 { return "\(s / 86400)d \(s % 86400 / 3600)h" }
    if s >= 3600 { return "\(s / 3600)h \(s % 3600 / 60)m" }
    if s >= 60 { return "\(s / 60)m \(s % 60)s" }
    return "\(max(0, s))s"
}
