import Foundation
import HLS

/// Reading an interstitial's X-ASSET-LIST answer (RFC 8216bis Appendix D.2): `{"ASSETS": [{"URI": …, "DURATION": …}]}`.
extension AssetList {
    /// The list in `body`, fetched from `url` (each URI resolved against it); a line naming the first thing wrong.
    public static func parse(_ body: [UInt8], from url: String) -> Result<AssetList, AssetListError> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let top = object as? [String: Any] else {
            return .failure(AssetListError("not a JSON object"))
        }
        guard let raw = top["ASSETS"] else { return .failure(AssetListError("has no ASSETS")) }
        guard let list = raw as? [Any] else { return .failure(AssetListError("ASSETS is not an array")) }
        var assets: [Asset] = []
        for (i, item) in list.enumerated() {
            guard let a = item as? [String: Any] else { return .failure(AssetListError("ASSETS[\(i)] is not an object")) }
            guard let uri = a["URI"] as? String, !uri.isEmpty else { return .failure(AssetListError("ASSETS[\(i)] has no URI")) }
            guard let d = (a["DURATION"] as? NSNumber)?.doubleValue, !(a["DURATION"] is Bool) else {
                return .failure(AssetListError("ASSETS[\(i)] has no DURATION (a number of seconds)"))
            }
            guard d >= 0, d.isFinite else { return .failure(AssetListError("ASSETS[\(i)] has DURATION \(d)")) }
            assets.append(Asset(uri: VirtualPlaylists.resolve(uri, against: url), duration: d))
        }
        return .success(AssetList(assets: assets))
    }

    /// The X-ASSET-LIST URL as a player asks it (Apple's HLS Interstitials): with `_HLS_primary_id`, the playback session's
    /// identifier, and `_HLS_start_offset`, how far into the interstitial the viewer joins (live, past its start).
    public static func request(_ url: String, primaryID: String, startOffset: Double?) -> String {
        var q = ["_HLS_primary_id=\(primaryID)"]
        if let o = startOffset, o > 0 { q.append("_HLS_start_offset=\(fixed(o, 3))") }
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        let base = url[..<hash]
        return base + (base.contains("?") ? "&" : "?") + q.joined(separator: "&") + url[hash...]
    }
}
