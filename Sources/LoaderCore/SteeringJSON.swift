import Foundation
import HLS

/// Reading a steering manifest from its JSON (docs/STEERING.md).
extension SteeringManifest {
    /// The manifest in `body`, fetched from `url`; a typed failure naming the first thing wrong.
    public static func parse(_ body: [UInt8], from url: String) -> Result<SteeringManifest, SteeringError> {
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: Data(body))
        } catch let DecodingError.typeMismatch(_, c), let DecodingError.valueNotFound(_, c) {
            guard !c.codingPath.isEmpty else { return .failure(.notJSON) }
            return .failure(.field(c.codingPath.map(\.stringValue).joined(separator: "."), "has the wrong type"))
        } catch let DecodingError.keyNotFound(k, c) {
            return .failure(.field((c.codingPath.map(\.stringValue) + [k.stringValue]).joined(separator: "."), "is missing"))
        } catch {
            return .failure(.notJSON)
        }
        guard raw.version == version else { return .failure(.version(raw.version)) }
        guard raw.ttl > 0, raw.ttl.isFinite else { return .failure(.field("TTL", "must be a positive number of seconds")) }
        guard !raw.priority.isEmpty else { return .failure(.field("PATHWAY-PRIORITY", "is empty")) }
        if let bad = raw.priority.first(where: { !PathwayIDs.isLegalID($0) }) { return .failure(.pathwayID(bad)) }
        if let twice = raw.priority.first(where: { id in raw.priority.filter { $0 == id }.count > 1 }) {
            return .failure(.field("PATHWAY-PRIORITY", "lists \"\(twice)\" twice"))
        }
        var clones: [PathwayClone] = []
        for c in raw.clones ?? [] {
            if let bad = [c.baseID, c.id].first(where: { !PathwayIDs.isLegalID($0) }) { return .failure(.pathwayID(bad)) }
            let r = c.replacement
            clones.append(
                PathwayClone(
                    baseID: c.baseID, id: c.id,
                    replacement: URIReplacement(
                        host: r?.host, params: r?.params ?? [:], perVariantURIs: r?.perVariant ?? [:],
                        perRenditionURIs: r?.perRendition ?? [:])))
        }
        let reload = raw.reloadURI.map { VirtualPlaylists.resolve($0, against: url) }
        return .success(SteeringManifest(ttl: raw.ttl, reloadURI: reload, priority: raw.priority, clones: clones))
    }

    private struct Raw: Decodable {
        var version: Int
        var ttl: Double
        var reloadURI: String?
        var priority: [String]
        var clones: [RawClone]?
        enum CodingKeys: String, CodingKey {
            case version = "VERSION", ttl = "TTL", reloadURI = "RELOAD-URI", priority = "PATHWAY-PRIORITY", clones = "PATHWAY-CLONES"
        }
    }

    private struct RawClone: Decodable {
        var baseID: String
        var id: String
        var replacement: RawReplacement?
        enum CodingKeys: String, CodingKey { case baseID = "BASE-ID", id = "ID", replacement = "URI-REPLACEMENT" }
    }

    private struct RawReplacement: Decodable {
        var host: String?
        var params: [String: String]?
        var perVariant: [String: String]?
        var perRendition: [String: String]?
        enum CodingKeys: String, CodingKey {
            case host = "HOST", params = "PARAMS", perVariant = "PER-VARIANT-URIS", perRendition = "PER-RENDITION-URIS"
        }
    }
}

extension URIReplacement {
    /// The clone's URI for `uri` (absolute), `given` being the URI the manifest states for this variant or rendition.
    public func apply(to uri: String, given: String?) -> String {
        if let given { return given }
        guard var c = URLComponents(string: uri) else { return uri }
        if let host {
            // HOST is a host name, optionally with a port.
            let parts = host.split(separator: ":", maxSplits: 1)
            c.host = String(parts[0])
            if parts.count == 2, let port = Int(parts[1]) { c.port = port }
        }
        if !params.isEmpty {
            var items = (c.queryItems ?? []).filter { params[$0.name] == nil }
            items += params.keys.sorted().map { URLQueryItem(name: $0, value: params[$0]) }
            c.queryItems = items
        }
        return c.string ?? uri
    }
}

/// A steering manifest's reload request (docs/STEERING.md).
public enum SteeringRequest {
    /// `url` with `_HLS_pathway` (the pathway in use) and `_HLS_throughput` (bits per second, when measured) set.
    public static func url(_ url: String, pathway: String, throughput: Int?) -> String {
        guard var c = URLComponents(string: url) else { return url }
        var items = (c.queryItems ?? []).filter { $0.name != "_HLS_pathway" && $0.name != "_HLS_throughput" }
        items.append(URLQueryItem(name: "_HLS_pathway", value: pathway))
        if let throughput { items.append(URLQueryItem(name: "_HLS_throughput", value: String(throughput))) }
        c.queryItems = items
        return c.string ?? url
    }
}

extension PathwayClone {
    /// `m` (fetched from `base`) with this clone's variants added: a copy of each variant of the base pathway, with URIs
    /// rewritten (made absolute first) and its rendition groups copied under new GROUP-IDs (`group` + "/" + the clone's ID),
    /// their URIs rewritten likewise. Unchanged when the base pathway has no variant or the clone's ID is already used.
    public func expand(_ m: MultivariantPlaylist, base: String) -> MultivariantPlaylist {
        let pathway = { (v: Variant) in v.pathwayID ?? PathwayIDs.defaultID }
        let from = m.variants.filter { pathway($0) == baseID }
        guard !from.isEmpty, !m.variants.contains(where: { pathway($0) == id }) else { return m }
        var out = m
        let groups = Set(from.flatMap { [$0.audio, $0.video, $0.subtitles].compactMap { $0 } })
        let renamed = { (g: String?) in g.map { groups.contains($0) ? "\($0)/\(id)" : $0 } }
        for r in m.renditions where groups.contains(r.groupID) {
            var c = r
            c.groupID = "\(r.groupID)/\(id)"
            c.uri = r.uri.map { uri in
                replacement.apply(
                    to: VirtualPlaylists.resolve(uri, against: base),
                    given: r.stableRenditionID.flatMap { replacement.perRenditionURIs[$0] })
            }
            out.renditions.append(c)
        }
        for v in from {
            var c = v
            c.pathwayID = id
            c.uri = replacement.apply(
                to: VirtualPlaylists.resolve(v.uri, against: base), given: v.stableVariantID.flatMap { replacement.perVariantURIs[$0] })
            (c.audio, c.video, c.subtitles) = (renamed(v.audio), renamed(v.video), renamed(v.subtitles))
            c.leadingLines = []
            out.variants.append(c)
        }
        return out
    }
}
