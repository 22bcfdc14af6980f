import Foundation
import HLS

/// A steering manifest: the JSON a content steering server answers with (RFC 8216bis §4.4.6.6 names the server in
/// EXT-X-CONTENT-STEERING; docs/STEERING.md describes the manifest and how hlstui acts on it). Pure.
public struct SteeringManifest: Sendable, Equatable {
    /// Seconds until the manifest is to be reloaded.
    public var ttl: Double
    /// Where the next reload goes, already resolved against the URL this manifest came from.
    public var reloadURI: String?
    /// Pathway IDs, most preferred first.
    public var priority: [String]
    public var clones: [PathwayClone]

    public init(ttl: Double, reloadURI: String? = nil, priority: [String], clones: [PathwayClone] = []) {
        self.ttl = ttl
        self.reloadURI = reloadURI
        self.priority = priority
        self.clones = clones
    }

    /// The only VERSION defined.
    public static let version = 1

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
        if let bad = raw.priority.first(where: { !Pathways.isLegalID($0) }) { return .failure(.pathwayID(bad)) }
        if let twice = raw.priority.first(where: { id in raw.priority.filter { $0 == id }.count > 1 }) {
            return .failure(.field("PATHWAY-PRIORITY", "lists \"\(twice)\" twice"))
        }
        var clones: [PathwayClone] = []
        for c in raw.clones ?? [] {
            if let bad = [c.baseID, c.id].first(where: { !Pathways.isLegalID($0) }) { return .failure(.pathwayID(bad)) }
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

/// What is wrong with a steering manifest, in one line.
public enum SteeringError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case version(Int)
    case field(String, String)
    case pathwayID(String)

    public var description: String {
        switch self {
        case .notJSON: "the steering manifest is not a JSON object"
        case .version(let v): "the steering manifest's VERSION is \(v); only \(SteeringManifest.version) is defined"
        case .field(let f, let what): "the steering manifest's \(f) \(what)"
        case .pathwayID(let id): "the steering manifest names pathway \"\(id)\": only letters, digits, '.', '-' and '_' are allowed"
        }
    }
}

/// A pathway made by copying another's variants with their URIs rewritten (PATHWAY-CLONES).
public struct PathwayClone: Sendable, Equatable {
    public var baseID: String
    public var id: String
    public var replacement: URIReplacement

    public init(baseID: String, id: String, replacement: URIReplacement) {
        self.baseID = baseID
        self.id = id
        self.replacement = replacement
    }
}

/// How a clone's URIs differ from its base pathway's: a URI given for the variant's STABLE-VARIANT-ID (or the rendition's
/// STABLE-RENDITION-ID) is taken as it is; any other has its host replaced and query parameters added or replaced.
public struct URIReplacement: Sendable, Equatable {
    public var host: String?
    public var params: [String: String]
    public var perVariantURIs: [String: String]
    public var perRenditionURIs: [String: String]

    public init(
        host: String? = nil, params: [String: String] = [:], perVariantURIs: [String: String] = [:],
        perRenditionURIs: [String: String] = [:]
    ) {
        self.host = host
        self.params = params
        self.perVariantURIs = perVariantURIs
        self.perRenditionURIs = perRenditionURIs
    }

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

/// The pathways of a multivariant playlist and which one to use: the steering manifest's priority, a penalty box for the
/// pathways that failed (each retested once its penalty ends, never hammered and never dropped for good), and a pin.
/// Redundant variants without steering (the same variants listed again on another host) are pathways too. Pure: time
/// comes with each call.
public struct Pathways: Sendable, Equatable {
    /// The pathway of a variant that names none.
    public static let defaultID = "."

    /// Pathway IDs in the order the multivariant playlist first names them, clones after.
    public private(set) var known: [String]
    /// The manifest's priority; before any manifest, the playlist's own order with its PATHWAY-ID first.
    public private(set) var priority: [String]
    /// A pathway chosen by hand: used while it is healthy, whatever the manifest prefers.
    public var pinned: String?
    /// The pathway in use.
    public private(set) var current: String
    public private(set) var penalties: [String: Penalty] = [:]

    public struct Penalty: Sendable, Equatable {
        /// When the pathway may be tried again.
        public var until: Double
        public var cause: String
    }

    /// Why the pathway in use changed.
    public enum Cause: String, Sendable, Equatable {
        case manifest, failure, manual, recovered
    }

    public struct Change: Sendable, Equatable {
        public var from: String
        public var to: String
        public var cause: Cause

        public init(from: String, to: String, cause: Cause) {
            self.from = from
            self.to = to
            self.cause = cause
        }
    }

    /// Legal pathway IDs: letters, digits, '.', '-' and '_'.
    public static func isLegalID(_ id: String) -> Bool {
        !id.isEmpty
            && id.utf8.allSatisfy { b in
                let letter = (0x61...0x7A).contains(b | 0x20)
                let digit = (0x30...0x39).contains(b)
                return letter || digit || b == 0x2E || b == 0x2D || b == 0x5F
            }
    }

    /// The pathways `m` lists; steering starts on its EXT-X-CONTENT-STEERING PATHWAY-ID when it names one, else on the first.
    public init(_ m: MultivariantPlaylist) {
        var ids: [String] = []
        for v in m.variants where !ids.contains(v.pathwayID ?? Self.defaultID) { ids.append(v.pathwayID ?? Self.defaultID) }
        if ids.isEmpty { ids = [Self.defaultID] }
        known = ids
        let first = m.contentSteering?.pathwayID.flatMap { ids.contains($0) ? $0 : nil } ?? ids[0]
        priority = [first] + ids.filter { $0 != first }
        current = first
    }

    /// Adds the pathways `clones` make (a clone of an unknown pathway, or with an ID already known, is ignored).
    public mutating func add(clones: [PathwayClone]) {
        for c in clones where known.contains(c.baseID) && !known.contains(c.id) { known.append(c.id) }
    }

    /// True while `p` waits out its penalty at `now`.
    public func isPenalised(_ p: String, at now: Double) -> Bool { (penalties[p]?.until ?? -1) > now }

    /// The pathway to use at `now`: the pinned one while healthy, else the first of the priority that is known and not
    /// penalised; when every listed one is penalised, the one whose penalty ends first (something must be tried).
    public func best(at now: Double) -> String {
        if let pinned, known.contains(pinned), !isPenalised(pinned, at: now) { return pinned }
        let listed = priority.filter { known.contains($0) }
        if let p = listed.first(where: { !isPenalised($0, at: now) }) { return p }
        let candidates = listed.isEmpty ? known : listed
        return candidates.min { (penalties[$0]?.until ?? 0) < (penalties[$1]?.until ?? 0) } ?? current
    }

    /// A new manifest: its clones added, its priority taken; the change of pathway it makes, if any.
    public mutating func apply(_ m: SteeringManifest, at now: Double) -> Change? {
        add(clones: m.clones)
        priority = m.priority
        return move(to: best(at: now), cause: .manifest)
    }

    /// A request on `p` failed: `p` is penalised for `seconds` (the manifest's TTL, so it is retested once per TTL), and the
    /// change of pathway that makes, if any.
    public mutating func failed(_ p: String, cause: String, for seconds: Double, at now: Double) -> Change? {
        penalties[p] = Penalty(until: now + seconds, cause: cause)
        return move(to: best(at: now), cause: .failure)
    }

    /// A request on `p` answered: its penalty, if any, is lifted, and the change back to it if it is preferred.
    public mutating func answered(_ p: String, at now: Double) -> Change? {
        guard penalties.removeValue(forKey: p) != nil else { return nil }
        return move(to: best(at: now), cause: .recovered)
    }

    /// Pins `p` (nil: unpinned); the change that makes, if any.
    public mutating func pin(_ p: String?, at now: Double) -> Change? {
        pinned = p
        return move(to: best(at: now), cause: .manual)
    }

    /// The penalised pathway whose retest is due at `now` and that is preferred to the current one: the caller sends one
    /// request to it (a playlist read) and reports the outcome with `answered` or `failed`.
    public func retestDue(at now: Double) -> String? {
        let listed = priority.filter { known.contains($0) }
        guard let here = listed.firstIndex(of: current) else { return nil }
        return listed[..<here].first { p in penalties[p].map { $0.until <= now } ?? false }
    }

    private mutating func move(to p: String, cause: Cause) -> Change? {
        guard p != current else { return nil }
        let change = Change(from: current, to: p, cause: cause)
        current = p
        return change
    }
}

/// The steering client's requests and how it reads the answers (docs/STEERING.md). Pure.
public enum SteeringReload {
    /// `url` with `_HLS_pathway` (the pathway in use) and `_HLS_throughput` (bits per second, when measured) set.
    public static func url(_ url: String, pathway: String, throughput: Int?) -> String {
        guard var c = URLComponents(string: url) else { return url }
        var items = (c.queryItems ?? []).filter { $0.name != "_HLS_pathway" && $0.name != "_HLS_throughput" }
        items.append(URLQueryItem(name: "_HLS_pathway", value: pathway))
        if let throughput { items.append(URLQueryItem(name: "_HLS_throughput", value: String(throughput))) }
        c.queryItems = items
        return c.string ?? url
    }

    /// What to do after a reload answered `status`.
    public enum Next: Sendable, Equatable {
        /// Read the body as a manifest, reload after its TTL.
        case manifest
        /// 410: steering is over for this session; the last priority stays.
        case stop
        /// Keep the last manifest and try again after this many seconds (429's Retry-After, else the TTL).
        case retry(after: Double)
    }

    public static func next(status: Int, retryAfter: String?, ttl: Double) -> Next {
        switch status {
        case 200: return .manifest
        case 410: return .stop
        case 429:
            if let s = retryAfter.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), s >= 0 { return .retry(after: s) }
            return .retry(after: ttl)
        default: return .retry(after: ttl)
        }
    }

    /// The TTL before any manifest was read, and after one failed to parse with none before it.
    public static let defaultTTL = 300.0
}

extension PathwayClone {
    /// `m` (fetched from `base`) with this clone's variants added: a copy of each variant of the base pathway, with URIs
    /// rewritten (made absolute first) and its rendition groups copied under new GROUP-IDs (`group` + "/" + the clone's ID),
    /// their URIs rewritten likewise. Unchanged when the base pathway has no variant or the clone's ID is already used.
    public func expand(_ m: MultivariantPlaylist, base: String) -> MultivariantPlaylist {
        let pathway = { (v: Variant) in v.pathwayID ?? Pathways.defaultID }
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

extension Pathways {
    /// The indexes of `m`'s variants on pathway `p`, in playlist order.
    public static func variants(of p: String, in m: MultivariantPlaylist) -> [Int] {
        m.variants.indices.filter { (m.variants[$0].pathwayID ?? defaultID) == p }
    }

    /// The variant of pathway `p` that stands for variant `i` (on any pathway): the one with the same STABLE-VARIANT-ID, else
    /// the one with the same bandwidth and resolution, else the one at the same place in the pathway's list; nil when `p` has
    /// no variant.
    public static func equivalent(of i: Int, on p: String, in m: MultivariantPlaylist) -> Int? {
        guard m.variants.indices.contains(i) else { return nil }
        let v = m.variants[i]
        let mine = variants(of: p, in: m)
        if (v.pathwayID ?? defaultID) == p { return i }
        if let id = v.stableVariantID, let j = mine.first(where: { m.variants[$0].stableVariantID == id }) { return j }
        if let j = mine.first(where: { m.variants[$0].bandwidth == v.bandwidth && m.variants[$0].resolution == v.resolution }) {
            return j
        }
        let place = variants(of: v.pathwayID ?? defaultID, in: m).firstIndex(of: i) ?? 0
        return mine.isEmpty ? nil : mine[min(place, mine.count - 1)]
    }
}
