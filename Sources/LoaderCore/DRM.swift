import HLS

/// Whether hlstui can play segments under a key, and why.
public struct KeyCapability: Sendable, Equatable {
    public var system: KeySystem
    public var method: KeyMethod
    public var playable: Bool
    /// One sentence: what happens to this key here.
    public var reason: String
}

/// Names the key systems a stream uses and says which rungs Linux and FFmpeg can play (FairPlay needs Apple's CDM, which Linux has not).
public enum DRMExplainer {
    /// What hlstui can do with `key` on this platform.
    public static func capability(_ key: Key) -> KeyCapability {
        let system = key.system
        switch (system, key.method) {
        case (.clear, _):
            return KeyCapability(system: system, method: key.method, playable: true, reason: "clear")
        case (.identity, .aes128):
            return KeyCapability(
                system: system, method: key.method, playable: true,
                reason: "AES-128: hlstui fetches the key and decrypts each segment itself")
        case (.identity, .sampleAES):
            return KeyCapability(
                system: system, method: key.method, playable: true,
                reason: "SAMPLE-AES: FFmpeg decrypts the samples with the key hlstui serves it")
        case (.fairPlay, _):
            return KeyCapability(
                system: system, method: key.method, playable: false,
                reason: "FairPlay Streaming needs Apple's CDM and an SPC/CKC exchange with the license server; only Apple platforms have it"
            )
        case (.widevine, _):
            return KeyCapability(
                system: system, method: key.method, playable: false,
                reason: "Widevine needs Google's CDM and a license server; FFmpeg and mpv on Linux have neither")
        case (.playReady, _):
            return KeyCapability(
                system: system, method: key.method, playable: false,
                reason: "PlayReady needs Microsoft's CDM and a license server; FFmpeg and mpv on Linux have neither")
        case (.clearKey, _):
            return KeyCapability(
                system: system, method: key.method, playable: false,
                reason: "ClearKey (\(key.method.rawValue)) needs a JSON license exchange hlstui does not implement")
        default:
            return KeyCapability(
                system: system, method: key.method, playable: false,
                reason: "\(key.method.rawValue) with KEYFORMAT \"\(key.effectiveKeyFormat)\" is not a scheme FFmpeg can decrypt")
        }
    }

    /// True when every encrypted segment has at least one key hlstui can use.
    public static func playable(_ media: MediaPlaylist) -> Bool {
        media.segments.allSatisfy { s in s.keys.isEmpty || s.keys.contains { capability($0).playable } }
    }

    /// The key systems a media playlist uses, in order of first appearance.
    public static func systems(_ media: MediaPlaylist) -> [KeyCapability] {
        var out: [KeyCapability] = []
        for s in media.segments {
            for k in s.keys {
                let c = capability(k)
                if !out.contains(where: { $0.system == c.system && $0.method == c.method }) { out.append(c) }
            }
        }
        return out
    }

    /// One line per problem: which rungs need a key system hlstui cannot use here, why, and which rungs play instead.
    public static func explain(rungs: [(name: String, media: MediaPlaylist)]) -> [String] {
        var lines: [String] = []
        var blocked: [String: (KeyCapability, [String])] = [:]
        var order: [String] = []
        for (name, media) in rungs where !playable(media) {
            for c in systems(media) where !c.playable {
                let k = "\(c.system.rawValue)/\(c.method.rawValue)"
                if blocked[k] == nil { order.append(k); blocked[k] = (c, []) }
                blocked[k]?.1.append(name)
            }
        }
        let alternatives = rungs.filter { playable($0.media) }.map(\.name)
        for k in order {
            guard let (c, names) = blocked[k] else { continue }
            let alt =
                alternatives.isEmpty
                ? "no clear or AES-128 rung exists, so this stream cannot play here"
                : "playable instead: \(alternatives.joined(separator: ", "))"
            lines.append(
                "\(names.joined(separator: ", ")) need\(names.count == 1 ? "s" : "") \(c.system.rawValue) (\(c.method.rawValue)): \(c.reason); \(alt)"
            )
        }
        return lines
    }
}
