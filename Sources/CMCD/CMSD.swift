import RawStructuredFieldValues

/// Common Media Server Data (CTA-5006): what a server says of the object it sends (`CMSD-Static`, a dictionary set where
/// the object is made) and of the delivery now (`CMSD-Dynamic`, a list with one entry per server on the way, each named and
/// carrying its keys as parameters).
public struct CMSD: Sendable, Equatable {
    /// One server's `CMSD-Dynamic` entry.
    public struct Hop: Sendable, Equatable {
        /// The server's identifier (the list item).
        public var name: String
        public var values: [String: CMCDValue]

        public init(name: String, values: [String: CMCDValue]) {
            self.name = name
            self.values = values
        }

        /// Estimated throughput to the client, kbps.
        public var etp: Int? { values["etp"]?.int }
        /// Maximum suggested bitrate, kbps.
        public var mb: Int? { values["mb"]?.int }
        /// Estimated round-trip time, ms.
        public var rtt: Int? { values["rtt"]?.int }
        /// Response delay: how long the server held the response, ms.
        public var rd: Int? { values["rd"]?.int }
        /// The server is under duress.
        public var duress: Bool { values["du"]?.bool ?? false }
    }

    /// `CMSD-Static`'s keys.
    public var statics: [String: CMCDValue] = [:]
    /// `CMSD-Dynamic`'s entries, in the order the servers added them.
    public var hops: [Hop] = []
    /// What could not be read.
    public var findings: [CMCDFinding] = []

    public init(statics: [String: CMCDValue] = [:], hops: [Hop] = [], findings: [CMCDFinding] = []) {
        self.statics = statics
        self.hops = hops
        self.findings = findings
    }

    public var isEmpty: Bool { statics.isEmpty && hops.isEmpty && findings.isEmpty }

    /// The lowest maximum suggested bitrate any server on the way gave, in bits/s.
    public var maxSuggestedBitsPerSecond: Int? { hops.compactMap(\.mb).min().map { $0 * 1000 } }

    /// The estimated throughput of the server nearest the client (the last entry that has one), in bits/s.
    public var estimatedThroughputBitsPerSecond: Int? { hops.last { $0.etp != nil }?.etp.map { $0 * 1000 } }

    /// The static keys CTA-5006 defines, with their types.
    public static let staticKeys: [String: CMCDType] = [
        "at": .integer, "br": .integer, "d": .integer, "ht": .integer, "n": .string, "nor": .string, "nrr": .string, "ot": .token,
        "sf": .token, "st": .token, "su": .boolean, "v": .integer,
    ]
    /// The dynamic keys CTA-5006 defines, with their types.
    public static let dynamicKeys: [String: CMCDType] = [
        "du": .boolean, "etp": .integer, "mb": .integer, "rd": .integer, "rtt": .integer,
    ]

    /// Reads the CMSD headers of one response (names in any case); what cannot be read is a finding.
    public static func read(headers: [(name: String, value: String)]) -> CMSD {
        var out = CMSD()
        let field = { (name: String) -> String? in
            let lines = headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
            return lines.isEmpty ? nil : lines.joined(separator: ",")
        }
        if let text = field("CMSD-Static") {
            var parser = StructuredFieldValueParser(Array(text.utf8))
            if let map = try? parser.parseDictionaryFieldValue() {
                for (key, member) in map {
                    guard case .item(let item) = member, let v = CMCDRead.value(item.rfc9651BareItem) else { continue }
                    out.statics[key] = v
                    out.findings += typeFinding(key, v, staticKeys, header: "CMSD-Static")
                }
            } else {
                out.findings.append(CMCDFinding("syntax", .error, "CMSD-Static is not an RFC 8941 dictionary: \(text.prefix(120))"))
            }
        }
        if let text = field("CMSD-Dynamic") {
            var parser = StructuredFieldValueParser(Array(text.utf8))
            if let list = try? parser.parseListFieldValue() {
                for member in list {
                    guard case .item(let item) = member else { continue }
                    let name = CMCDRead.value(item.rfc9651BareItem)?.text ?? ""
                    var values: [String: CMCDValue] = [:]
                    for (key, p) in item.rfc9651Parameters {
                        guard let v = CMCDRead.value(p) else { continue }
                        values[key] = v
                        out.findings += typeFinding(key, v, dynamicKeys, header: "CMSD-Dynamic")
                    }
                    out.hops.append(Hop(name: name, values: values))
                }
            } else {
                out.findings.append(CMCDFinding("syntax", .error, "CMSD-Dynamic is not an RFC 8941 list: \(text.prefix(120))"))
            }
        }
        return out
    }

    static func typeFinding(_ key: String, _ v: CMCDValue, _ keys: [String: CMCDType], header: String) -> [CMCDFinding] {
        guard let want = keys[key] else { return [] }
        guard v.type != want else { return [] }
        return [CMCDFinding("type", .error, key: key, "\(header) \(key)=\(v): a \(v.type.rawValue) where CTA-5006 says \(want.rawValue)")]
    }

    /// The `CMSD-Static` header for `values` (keys in alphabetical order).
    public static func staticHeader(_ values: [String: CMCDValue]) -> String {
        var data = CMCDData()
        for (k, v) in values { data[k] = v }
        return CMCD.serialize(data)
    }

    /// One server's `CMSD-Dynamic` entry (a server adds its own after any it received).
    public static func dynamicEntry(_ hop: Hop) -> String {
        var params = OrderedMap<String, RFC9651BareItem>()
        for key in hop.values.keys.sorted() {
            guard let v = hop.values[key], let b = CMCD.bareItem(v) else { continue }
            params[key] = b
        }
        var serializer = StructuredFieldValueSerializer()
        let item = ItemOrInnerList.item(Item(bareItem: RFC9651BareItem.string(hop.name), parameters: params))
        guard let bytes = try? serializer.writeListFieldValue([item]) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One line for the request log: `mb 2000k etp 96000k rtt 2ms (edge)`.
    public var summary: String {
        var parts: [String] = []
        for hop in hops {
            var p: [String] = []
            if let mb = hop.mb { p.append("mb \(mb)k") }
            if let etp = hop.etp { p.append("etp \(etp)k") }
            if let rtt = hop.rtt { p.append("rtt \(rtt)ms") }
            if let rd = hop.rd { p.append("rd \(rd)ms") }
            if hop.duress { p.append("duress") }
            parts.append(p.joined(separator: " ") + (hop.name.isEmpty ? "" : " (\(hop.name))"))
        }
        if let ht = statics["ht"]?.int { parts.append("ht \(ht)s") }
        if let ot = statics["ot"]?.text { parts.append("ot \(ot)") }
        return parts.joined(separator: "; ")
    }
}
