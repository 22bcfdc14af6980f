// Content steering: the steering manifest's model and the choice of pathway (docs/STEERING.md). Pure: no I/O, no Foundation.

/// A steering manifest: the JSON a content steering server answers with (RFC 8216bis §4.4.6.6 names the server in
/// EXT-X-CONTENT-STEERING; docs/STEERING.md describes the manifest and how hlstui acts on it). Read from JSON by `parse` (LoaderCore).
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
}

/// What is wrong with a steering manifest, in one line.
public enum SteeringError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case version(Int)
    case field(String, String)
    case pathwayID(String)
    /// SERVER-URI's in-line manifest (a `data:` URI) cannot be read: why.
    case inline(String)

    public var description: String {
        switch self {
        case .inline(let why): "the steering manifest in SERVER-URI cannot be read: \(why)"
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
}

/// The pathways a multivariant playlist's variants belong to (EXT-X-STREAM-INF's PATHWAY-ID, RFC 8216bis §4.4.6.2): what the playlist says,
/// no choice between them (that is the Session's `Pathways`). Pure.
public enum PathwayIDs {
    /// The pathway of a variant that names none.
    public static let defaultID = "."

    /// Legal pathway IDs: letters, digits, '.', '-' and '_'.
    public static func isLegalID(_ id: String) -> Bool {
        !id.isEmpty
            && id.utf8.allSatisfy { b in
                let letter = (0x61...0x7A).contains(b | 0x20)
                let digit = (0x30...0x39).contains(b)
                return letter || digit || b == 0x2E || b == 0x2D || b == 0x5F
            }
    }

    /// Redundant streams as pathways (docs/STEERING.md): when no variant names a PATHWAY-ID and a variant (the same
    /// BANDWIDTH, RESOLUTION and CODECS) is listed more than once, the nth listing of each belongs to the nth copy, and each
    /// copy is a pathway named after the host its URIs share (a port joined with '-', as IDs allow no ':'), else `copy-n`.
    /// `m` unchanged when there is no second copy or a variant names its pathway.
    public static func namingRedundantCopies(_ m: MultivariantPlaylist) -> MultivariantPlaylist {
        guard !m.variants.isEmpty, m.variants.allSatisfy({ $0.pathwayID == nil }) else { return m }
        var seen: [String: Int] = [:]
        var copy: [Int] = []
        for v in m.variants {
            let key = "\(v.bandwidth ?? -1) \(v.resolution?.description ?? "-") \(v.codecs ?? "-")"
            copy.append(seen[key, default: 0])
            seen[key, default: 0] += 1
        }
        let copies = (copy.max() ?? 0) + 1
        guard copies > 1 else { return m }
        var names: [String] = []
        for n in 0..<copies {
            let hosts = Set(m.variants.indices.filter { copy[$0] == n }.map { host(of: m.variants[$0].uri) })
            names.append(hosts.count == 1 ? hosts.first.flatMap { $0 } ?? "" : "")
        }
        if names.contains("") || Set(names).count < copies { names = (1...copies).map { "copy-\($0)" } }
        var out = m
        for i in out.variants.indices { out.variants[i].pathwayID = names[copy[i]] }
        return out
    }

    /// The host (and port) of an absolute URI as a legal pathway ID; nil for a relative one.
    static func host(of uri: String) -> String? {
        let chars = Array(uri)
        guard let colon = chars.firstIndex(of: ":"), chars.count > colon + 2, chars[colon + 1] == "/", chars[colon + 2] == "/"
        else { return nil }
        var authority = chars[(colon + 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let id = String(authority.map { $0 == ":" ? "-" : $0 }).lowercased()
        return isLegalID(id) ? id : nil
    }

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

/// What a steering reload came back with.
public enum SteeringAnswer: Sendable, Equatable {
    case manifest(SteeringManifest)
    /// An answer other than 200 (410, 429 with its Retry-After, …).
    case status(Int, retryAfter: String?)
    /// A 200 whose body is not a valid manifest.
    case invalid(SteeringError)
    /// No answer (connection, timeout, TLS), in one line.
    case unreachable(String)
}

/// Renditions that stand for each other in two groups — the copies of one rendition group on two pathways (docs/STEERING.md). Pure.
public enum RenditionCounterparts {
    /// Whether `b` stands for `a`: the same TYPE, and the same STABLE-RENDITION-ID (RFC 8216bis §4.4.6.1), or, where
    /// neither names one, the same NAME and LANGUAGE.
    public static func stands(_ b: Rendition, for a: Rendition) -> Bool {
        guard a.type == b.type else { return false }
        if a.stableRenditionID != nil || b.stableRenditionID != nil { return a.stableRenditionID == b.stableRenditionID }
        return a.name == b.name && a.language == b.language
    }

    /// Each rendition of group `from` with the one of group `to` (of the same TYPE) that stands for it; nil unless both
    /// groups have the same renditions one for one. The same group (or none on both sides) pairs each with itself.
    public static func pairs(from: String?, to: String?, type: String, in renditions: [Rendition]) -> [(Rendition, Rendition)]? {
        let a = from.map { g in renditions.filter { $0.groupID == g && $0.type == type } } ?? []
        let b = to.map { g in renditions.filter { $0.groupID == g && $0.type == type } } ?? []
        guard a.count == b.count, (from == nil) == (to == nil) else { return nil }
        var out: [(Rendition, Rendition)] = []
        for r in a {
            let match = b.filter { stands($0, for: r) }
            guard match.count == 1 else { return nil }
            out.append((r, match[0]))
        }
        return out
    }
}
