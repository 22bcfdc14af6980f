import Foundation
import HLS
import LoaderCore
import LoaderEvents

/// An interstitial's X-ASSET-LIST read as a player asks it (RFC 8216bis Appendix D.2; docs/EVENTS.md, "Interstitials
/// played"): timed in the request log like any other request, never served to the player.
extension LoaderServer {
    /// The list at `url` (resolved), asked with `_HLS_primary_id` and, when given, `_HLS_start_offset`; a line naming what
    /// is wrong with it otherwise.
    public func assetList(_ url: String, primaryID: String, startOffset: Double?) async -> Result<AssetList, AssetListError> {
        let t0 = now
        do throws(UpstreamError) {
            let r = try await readOwn(.assetList, AssetList.request(url, primaryID: primaryID, startOffset: startOffset))
            guard r.head.status == 200 else { return .failure(AssetListError("answered \(r.head.statusLine)")) }
            return AssetList.parse(r.body, from: r.head.url).map { list in
                var l = list
                l.answeredIn = now - t0
                return l
            }
        } catch {
            return .failure(AssetListError("cannot be read: \(error.description)"))
        }
    }
}
