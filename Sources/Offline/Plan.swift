import Foundation
import HLS

/// Why a download cannot go on in the folder it was given, in one line.
public struct FolderRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What a download folder allows (docs/DOWNLOAD.md): a new download, the continuation of an unfinished one of the same
/// stream, or a refusal naming why.
public enum DownloadFolder {
    /// The unfinished download to continue, nil for a new one. `manifest`: the bytes of the folder's manifest, nil when it
    /// has none; `holdsFiles`: the folder holds anything at all.
    public static func previous(out: String, manifest: Data?, holdsFiles: Bool, source: String) throws(FolderRefusal)
        -> DownloadManifest?
    {
        let path = out + "/" + DownloadManifest.fileName
        guard let data = manifest else {
            if holdsFiles { throw FolderRefusal("\(out) is not empty and holds no download; choose an empty or new folder") }
            return nil
        }
        guard let m = try? JSONDecoder().decode(DownloadManifest.self, from: data) else {
            throw FolderRefusal("\(path) cannot be read; remove the folder or choose another --out")
        }
        guard m.source == source else { throw FolderRefusal("\(out) holds a download of \(m.source); choose another --out") }
        if m.complete {
            throw FolderRefusal(
                "\(out) is complete (\(m.renditions.count) renditions, \(byteSize(m.bytes))); `hlstui offline renew` fetches its keys again"
            )
        }
        return m
    }

    /// A continued download keeps the renditions it started with: the same sources, in the same order.
    public static func sameRenditions(_ previous: DownloadManifest?, _ chosen: [StoredRendition], out: String) throws(FolderRefusal) {
        guard let old = previous, old.renditions.map(\.source) != chosen.map(\.source) else { return }
        throw FolderRefusal(
            "\(out) holds other renditions of this stream (\(old.renditions.map(\.name).joined(separator: ", "))); choose another --out")
    }
}

/// The folder names of a download's renditions: each the last folder of its playlist's path, letters, digits, `-` and `_`
/// kept, made unique (`v360`, `v360-2`); `keys` is taken.
public struct RenditionFolders: Sendable {
    var used: Set<String> = ["keys"]
    public init() {}

    public mutating func name(for url: String, fallback: String) -> String {
        let path = URLComponents(string: url)?.path ?? url
        let parts = path.split(separator: "/").dropLast()
        var name = parts.last.map(String.init)?.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } ?? ""
        if name.isEmpty { name = fallback }
        var unique = name
        var n = 2
        while used.contains(unique) {
            unique = "\(name)-\(n)"
            n += 1
        }
        used.insert(unique)
        return unique
    }

    /// The renditions of the chosen variant's groups that were not stored, each a line for the manifest's `leftOut`
    /// (closed captions travel in the video; `kept` were stored, `muxed` are in the variant's own segments).
    public static func notChosen(_ m: MultivariantPlaylist, variant v: Variant, kept: [Int], muxed: Set<Int>) -> [String] {
        m.renditions.enumerated().compactMap { i, rend in
            guard rend.type != "CLOSED-CAPTIONS", !kept.contains(i), !muxed.contains(i),
                rend.groupID == v.audio || rend.groupID == v.subtitles
            else { return nil }
            return "\(rend.type.lowercased()) \(rend.name)\(rend.language.map { " (\($0))" } ?? ""): not chosen"
        }
    }
}

/// A byte count as a reader would say it ("512 B", "68 kB", "12.3 MB", "1.05 GB").
public func byteSize(_ n: Int) -> String {
    if n >= 1 << 30 { return String(format: "%.2f GB", Double(n) / Double(1 << 30)) }
    if n >= 1 << 20 { return String(format: "%.1f MB", Double(n) / Double(1 << 20)) }
    if n >= 1 << 10 { return String(format: "%.0f kB", Double(n) / Double(1 << 10)) }
    return "\(n) B"
}
