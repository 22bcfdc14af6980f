import HLS
import JSONValue

/// The interstitials a media playlist schedules (RFC 8216bis Appendix D), with what their asset lists answered, as
/// `inspect` shows them (docs/EVENTS.md).
public enum InterstitialsReport {
    /// `lists`: each X-ASSET-LIST (as written) and what fetching it gave; one not there was not fetched.
    public static func text(_ m: MediaPlaylist, lists: [String: Result<AssetList, AssetListError>] = [:]) -> [String] {
        let all = Interstitial.schedule(m)
        guard !all.isEmpty else { return [] }
        var out = ["interstitials (\(all.count)):"]
        for i in all {
            out.append("  " + i.summary)
            guard let l = i.assetList, let answer = lists[l] else { continue }
            switch answer {
            case .success(let list) where list.assets.isEmpty:
                out.append("    asset list: empty (nothing plays; the primary resumes at once)" + answered(list))
            case .success(let list):
                out.append(
                    "    asset list: \(list.assets.count) asset\(list.assets.count == 1 ? "" : "s"), \(formatSeconds(list.duration)) s: "
                        + list.assets.map { "\($0.uri) \(formatSeconds($0.duration)) s" }.joined(separator: ", ") + answered(list))
                if let limit = i.playoutLimit, list.duration > limit {
                    out.append("    plays \(formatSeconds(limit)) s of \(formatSeconds(list.duration)) s (X-PLAYOUT-LIMIT)")
                }
            case .failure(let e): out.append("    asset list: \(e)")
            }
        }
        return out
    }

    /// How long the list took, when it was fetched: "; answered in 3.01 s".
    static func answered(_ list: AssetList) -> String { list.answeredIn.map { "; answered in \(fixed($0, 2)) s" } ?? "" }

    public static func json(_ m: MediaPlaylist, lists: [String: Result<AssetList, AssetListError>] = [:]) -> JSONValue {
        .array(
            Interstitial.schedule(m).map { i in
                var fields: [(String, JSONValue)] = [
                    ("id", .string(i.id)), ("startDate", .string(i.startDate?.iso8601Milliseconds)),
                    ("cue", .array(i.cue.sorted().map { .string($0) })),
                    ("assetUri", .string(i.assetURI)), ("assetList", .string(i.assetList)), ("resumeOffset", .double(i.resumeOffset)),
                    ("playoutLimit", .double(i.playoutLimit)), ("snap", .array(i.snap.sorted().map { .string($0) })),
                    ("restrict", .array(i.restrict.sorted().map { .string($0) })), ("timelineOccupies", .string(i.timelineOccupies)),
                    ("timelineStyle", .string(i.timelineStyle)), ("contentMayVary", .bool(i.contentMayVary)),
                ]
                if let l = i.assetList, let answer = lists[l] {
                    switch answer {
                    case .success(let list):
                        fields.append(
                            (
                                "assets",
                                .array(list.assets.map { .object([("uri", .string($0.uri)), ("duration", .double($0.duration))]) })
                            ))
                    case .failure(let e): fields.append(("assetListError", .string(e.description)))
                    }
                }
                return .object(fields)
            })
    }
}
