import Foundation
import RawStructuredFieldValues

/// One CMCD or CMSD value, as RFC 8941 types it.
public enum CMCDValue: Sendable, Equatable, CustomStringConvertible {
    case integer(Int)
    case decimal(Double)
    case string(String)
    case token(String)
    case boolean(Bool)

    public var type: CMCDType {
        switch self {
        case .integer: .integer
        case .decimal: .decimal
        case .string: .string
        case .token: .token
        case .boolean: .boolean
        }
    }

    /// As a structured field would show it (`12`, `1.5`, `"x"`, `v`, `?1`).
    public var description: String {
        switch self {
        case .integer(let i): String(i)
        case .decimal(let d): String(format: "%g", d)
        case .string(let s): "\"\(s)\""
        case .token(let t): t
        case .boolean(let b): b ? "?1" : "?0"
        }
    }

    public var int: Int? { if case .integer(let i) = self { i } else { nil } }
    public var double: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .decimal(let d): d
        default: nil
        }
    }
    public var text: String? {
        switch self {
        case .string(let s), .token(let s): s
        default: nil
        }
    }
    public var bool: Bool? { if case .boolean(let b) = self { b } else { nil } }
}

/// Where a CMCD key arrived: in one of the four headers, or in the `CMCD` query argument.
public enum CMCDPlacement: Sendable, Equatable, CustomStringConvertible {
    case header(CMCDShard)
    case query

    public var description: String {
        switch self {
        case .header(let s): s.rawValue
        case .query: "query"
        }
    }
}

/// The CMCD of one request: keys (CTA-5004's and custom ones) to values, in the order they were written.
public struct CMCDData: Sendable, Equatable {
    public private(set) var keys: [String] = []
    public private(set) var values: [String: CMCDValue] = [:]

    public init() {}

    public subscript(key: String) -> CMCDValue? {
        get { values[key] }
        set {
            if newValue == nil {
                keys.removeAll { $0 == key }
            } else if values[key] == nil {
                keys.append(key)
            }
            values[key] = newValue
        }
    }

    public subscript(key: CMCDKey) -> CMCDValue? {
        get { self[key.rawValue] }
        set { self[key.rawValue] = newValue }
    }

    public var isEmpty: Bool { keys.isEmpty }
}

/// How CMCD travels with a request (CTA-5004): four headers, or one query argument.
public enum CMCDMode: String, Sendable, Equatable, CaseIterable {
    case header
    case query
}

/// Writing and reading CMCD (CTA-5004) as RFC 8941 dictionaries: in headers or the `CMCD` query argument.
public enum CMCD {
    /// The query argument's name.
    public static let queryName = "CMCD"

    /// `data` as one dictionary: keys in alphabetical order (CTA-5004 asks for it, to narrow fingerprinting), a true Boolean
    /// as its bare key, a false one left out, Decimals to RFC 8941's three fractional digits.
    /// Members are joined by a bare comma, as CTA-5004 writes them (RFC 8941 allows the space its serializer puts after one).
    public static func serialize(_ data: CMCDData, keys: [String]? = nil) -> String {
        var members: [String] = []
        for key in (keys ?? data.keys).sorted() {
            guard let value = data[key], let item = bareItem(value) else { continue }
            var map = OrderedMap<String, ItemOrInnerList>()
            map[key] = .item(Item(bareItem: item, parameters: OrderedMap<String, RFC9651BareItem>()))
            var serializer = StructuredFieldValueSerializer()
            guard let bytes = try? serializer.writeDictionaryFieldValue(map) else { continue }
            members.append(String(decoding: bytes, as: UTF8.self))
        }
        return members.joined(separator: ",")
    }

    static func bareItem(_ v: CMCDValue) -> RFC9651BareItem? {
        switch v {
        case .integer(let i): return .integer(Int64(i))
        case .decimal(let d):
            guard let p = try? PseudoDecimal((d * 1000).rounded() / 1000) else { return nil }
            return .decimal(p)
        case .string(let s): return .string(s)
        case .token(let t): return .token(t)
        case .boolean(let b): return b ? .bool(true) : nil
        }
    }

    /// The headers carrying `data`: each key in its own header (custom keys in CMCD-Request), a header with no key not sent.
    public static func headers(_ data: CMCDData) -> [(name: String, value: String)] {
        CMCDShard.allCases.compactMap { s in
            let keys = data.keys.filter { shard(for: $0) == s && !(data[$0] == .boolean(false)) }
            guard !keys.isEmpty else { return nil }
            let text = serialize(data, keys: keys)
            return text.isEmpty ? nil : (s.rawValue, text)
        }
    }

    /// The header a key belongs in; a custom key goes with the requests.
    public static func shard(for key: String) -> CMCDShard {
        CMCDKey(rawValue: key)?.shard ?? .request
    }

    /// `url` with `data` added as the `CMCD` query argument (percent-encoded as JavaScript's `encodeURIComponent` does, as
    /// the players that send CMCD do).
    public static func adding(_ data: CMCDData, to url: String) -> String {
        let text = serialize(data)
        guard !text.isEmpty else { return url }
        let (base, fragment) = split(url, at: "#")
        let separator = base.contains("?") ? "&" : "?"
        return base + separator + queryName + "=" + percentEncode(text) + (fragment.map { "#" + $0 } ?? "")
    }

    static func split(_ s: String, at c: Character) -> (String, String?) {
        guard let i = s.firstIndex(of: c) else { return (s, nil) }
        return (String(s[..<i]), String(s[s.index(after: i)...]))
    }

    /// What `encodeURIComponent` leaves as it is.
    public static let unreservedCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")

    public static func percentEncode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: unreservedCharacters) ?? s
    }

    /// `url` without its `CMCD` query argument (what a cache keys on, what the origin serves).
    public static func removingQuery(from url: String) -> String {
        let (base, fragment) = split(url, at: "#")
        let (path, query) = split(base, at: "?")
        guard let query else { return url }
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter {
            !$0.hasPrefix(queryName + "=") && $0 != queryName
        }
        return path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + (fragment.map { "#" + $0 } ?? "")
    }

    // MARK: reading

    /// Reads the CMCD of one request: its four headers (names in any case) and its `CMCD` query argument. Each key is kept with
    /// where it arrived; what cannot be read is a finding, not a failure.
    public static func read(headers: [(name: String, value: String)], url: String?) -> CMCDRead {
        var out = CMCDRead()
        for shard in CMCDShard.allCases {
            let lines = headers.filter { $0.name.lowercased() == shard.rawValue.lowercased() }.map(\.value)
            guard !lines.isEmpty else { continue }
            // Repeated header lines are one field, joined by commas (RFC 9110 §5.3).
            out.take(lines.joined(separator: ","), from: .header(shard))
        }
        if let url, let value = queryValue(url) {
            out.take(value, from: .query)
        }
        return out
    }

    /// The `CMCD=…` argument of `url` as it was written, if it has one.
    public static func rawQueryArgument(_ url: String) -> String? {
        let (base, _) = split(url, at: "#")
        guard let query = split(base, at: "?").1 else { return nil }
        return query.split(separator: "&").first { $0 == queryName || $0.hasPrefix(queryName + "=") }.map(String.init)
    }

    /// The percent-decoded value of the `CMCD` query argument of `url`, if it has one.
    public static func queryValue(_ url: String) -> String? {
        let (base, _) = split(url, at: "#")
        guard let query = split(base, at: "?").1 else { return nil }
        for arg in query.split(separator: "&") where arg == queryName || arg.hasPrefix(queryName + "=") {
            let raw = arg.dropFirst(queryName.count + 1)
            // A `+` is a space only in forms; CMCD is percent-encoded.
            return String(raw).removingPercentEncoding ?? String(raw)
        }
        return nil
    }
}

/// A problem with some CMCD or CMSD: its rule, how bad, and one line saying what and why.
public struct CMCDFinding: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Equatable, Comparable {
        case info, warning, error
        public static func < (a: Self, b: Self) -> Bool {
            let order: [Self] = [.info, .warning, .error]
            return order.firstIndex(of: a)! < order.firstIndex(of: b)!
        }
    }

    public var rule: String
    public var severity: Severity
    /// The key it is about, if one.
    public var key: String?
    public var message: String

    public init(_ rule: String, _ severity: Severity, key: String? = nil, _ message: String) {
        self.rule = rule
        self.severity = severity
        self.key = key
        self.message = message
    }

    public var description: String { "\(severity.rawValue): \(message) [\(rule)]" }
}

/// The CMCD read from one request.
public struct CMCDRead: Sendable, Equatable {
    public var data = CMCDData()
    /// Where each key arrived.
    public var placement: [String: CMCDPlacement] = [:]
    /// What could not be read: a field that is no RFC 8941 dictionary, a key sent twice.
    public var findings: [CMCDFinding] = []
    /// Per place, the keys in the order they were written (for the alphabetical-order check).
    public var written: [(place: CMCDPlacement, keys: [String])] = []

    public init() {}

    public var isEmpty: Bool { data.isEmpty && findings.isEmpty }

    public static func == (a: Self, b: Self) -> Bool {
        a.data == b.data && a.placement == b.placement && a.findings == b.findings
            && a.written.map { "\($0.place)" + $0.keys.joined(separator: ",") }
                == b.written.map { "\($0.place)" + $0.keys.joined(separator: ",") }
    }

    mutating func take(_ text: String, from place: CMCDPlacement) {
        var parser = StructuredFieldValueParser(Array(text.utf8))
        let map: OrderedMap<String, ItemOrInnerList>
        do {
            map = try parser.parseDictionaryFieldValue()
        } catch {
            findings.append(
                CMCDFinding(
                    "syntax", .error,
                    "\(place) is not an RFC 8941 dictionary (\(Self.reason(error))): \(text.prefix(120))"))
            return
        }
        var keys: [String] = []
        for (key, member) in map {
            keys.append(key)
            if let earlier = placement[key] {
                findings.append(CMCDFinding("duplicate", .error, key: key, "\(key) sent twice: in \(earlier) and in \(place)"))
                continue
            }
            guard case .item(let item) = member, let value = Self.value(item.rfc9651BareItem) else {
                findings.append(CMCDFinding("type", .error, key: key, "\(key) is an inner list or a byte sequence: CMCD values are items"))
                continue
            }
            data[key] = value
            placement[key] = place
        }
        written.append((place, keys))
    }

    static func value(_ b: RFC9651BareItem) -> CMCDValue? {
        switch b {
        case .bool(let v): .boolean(v)
        case .integer(let i): .integer(Int(i))
        case .decimal(let d): .decimal(Double(d))
        case .string(let s): .string(s)
        case .token(let t): .token(t)
        case .displayString(let s): .string(s)
        case .undecodedByteSequence, .date: nil
        }
    }

    /// The parser's error, named.
    static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        // `StructuredHeaderError(base: …invalidKey)`: the case's name is what says something.
        if let dot = text.lastIndex(of: "."), text.hasSuffix(")") {
            return String(text[text.index(after: dot)..<text.index(before: text.endIndex)])
        }
        return text
    }
}
