/// One `NAME=value` pair of an attribute list (RFC 8216bis §4.2); `value` has its quotes removed.
public struct Attribute: Sendable, Hashable {
    public var name: String
    public var value: String
    public var quoted: Bool
    /// Column (1-based) of the attribute name on its line, 0 when unknown.
    public var column: Int

    public init(name: String, value: String, quoted: Bool, column: Int = 0) {
        self.name = name
        self.value = value
        self.quoted = quoted
        self.column = column
    }

    public static func == (a: Attribute, b: Attribute) -> Bool {
        a.name == b.name && a.value == b.value && a.quoted == b.quoted
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(value)
        h.combine(quoted)
    }
}

/// An ordered attribute list, RFC 8216bis §4.2, parsed by hand so quoted commas, empty strings and bad input are exact.
public struct AttributeList: Sendable, Equatable {
    public var attributes: [Attribute]

    public init(_ attributes: [Attribute] = []) { self.attributes = attributes }

    /// The first attribute called `name`.
    public subscript(name: String) -> Attribute? {
        let n = name.utf8.count
        for a in attributes where a.name.utf8.count == n && a.name == name { return a }
        return nil
    }

    /// Tokenizes `text` (which starts at `column` on `line`), reporting malformed input into `diagnostics`.
    public static func parse(_ text: Substring, line: Int, column: Int, diagnostics: inout [Diagnostic]) -> AttributeList {
        if let r = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0, line: line, column: column, diagnostics: &diagnostics) }) {
            return r
        }
        return Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0, line: line, column: column, diagnostics: &diagnostics) }
    }

    static func isNameByte(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D }

    static func parse(bytes u: UnsafeBufferPointer<UInt8>, line: Int, column: Int, diagnostics: inout [Diagnostic]) -> AttributeList {
        var out: [Attribute] = []
        out.reserveCapacity(8)
        let end = u.count
        var i = 0
        func str(_ a: Int, _ b: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: u[a..<b]), as: UTF8.self) }
        func report(_ sev: Severity, _ idx: Int, _ msg: String) {
            diagnostics.append(Diagnostic(sev, line: line, column: column + idx, rule: bis("4.2"), msg))
        }
        var spaceReported = false
        while i < end {
            // Tolerate (and report once) white space after a comma.
            var sawSpace = false
            while i < end, u[i] == 0x20 || u[i] == 0x09 { i += 1; sawSpace = true }
            if sawSpace && !spaceReported {
                spaceReported = true
                report(.warning, i, "white space inside an attribute list; attributes are separated by a comma alone")
            }
            if i == end { break }
            if u[i] == 0x2C { // empty entry ",,"
                report(.error, i, "empty attribute in attribute list")
                i += 1
                continue
            }
            let nameStart = i
            var validName = true
            while i < end, u[i] != 0x3D, u[i] != 0x2C {
                if !isNameByte(u[i]) { validName = false }
                i += 1
            }
            var name =
                validName ? AttributeNames.intern(UnsafeBufferPointer(rebasing: u[nameStart..<i])) ?? str(nameStart, i) : str(nameStart, i)
            if i == end || u[i] == 0x2C {
                report(.error, nameStart, "attribute \"\(name)\" has no value; an attribute list is NAME=value pairs")
                if i < end { i += 1 }
                continue
            }
            // Validate the AttributeName: [A-Z0-9-]+.
            if name.isEmpty {
                report(.error, nameStart, "attribute without a name before '='")
            } else if !validName {
                let upper = name.trimmingSpaces.uppercased()
                if upper.utf8.allSatisfy(isNameByte) {
                    report(.error, nameStart, "attribute name \"\(name)\" must use only A-Z, 0-9 and '-'; read as \(upper)")
                    name = upper
                } else {
                    report(.error, nameStart, "attribute name \"\(name)\" must use only A-Z, 0-9 and '-'")
                }
            }
            i += 1 // '='
            let value: String
            var quoted = false
            if i < end, u[i] == 0x22 {
                quoted = true
                let vs = i + 1
                var j = vs
                while j < end, u[j] != 0x22 { j += 1 }
                value = str(vs, j)
                if j == end {
                    report(.error, i, "quoted string of \(name) is not closed")
                    i = end
                } else {
                    i = j + 1
                    if i < end, u[i] != 0x2C {
                        let junkStart = i
                        while i < end, u[i] != 0x2C { i += 1 }
                        report(.error, junkStart, "unexpected \"\(str(junkStart, i))\" after the quoted value of \(name)")
                    }
                    if i < end { i += 1 }
                }
            } else {
                let vs = i
                while i < end, u[i] != 0x2C { i += 1 }
                value = str(vs, i)
                if vs == i { report(.error, vs, "attribute \(name) has an empty value") }
                if i < end { i += 1 }
            }
            if let dup = out.firstIndex(where: { $0.name == name }) {
                report(
                    .error, nameStart,
                    "attribute \(name) appears more than once; an AttributeName MUST NOT appear more than once in an attribute list (the last one is used)"
                )
                out.remove(at: dup)
            }
            out.append(Attribute(name: name, value: value, quoted: quoted, column: column + nameStart))
        }
        return AttributeList(out)
    }

    /// The attribute list written back as text, quoting what was quoted.
    public var text: String {
        var s = ""
        for (n, a) in attributes.enumerated() {
            if n > 0 { s += "," }
            s += a.name
            s += "="
            if a.quoted { s += "\""; s += a.value; s += "\"" } else { s += a.value }
        }
        return s
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

/// Typed reads of attribute values after RFC 8216bis §4.2's value types, reporting into a diagnostics list; remembers what was read.
final class AttributeReader {
    let list: AttributeList
    let line: Int
    let tag: String
    let section: String
    private var used: UInt64 = 0
    private var usedBeyond64: Set<Int> = []
    /// One bit per (length, last byte) of the names present, so most absent names are ruled out without comparing strings.
    private let present: UInt64

    init(_ list: AttributeList, line: Int, tag: String, section: String) {
        self.list = list
        self.line = line
        self.tag = tag
        self.section = section
        var p: UInt64 = 0
        for a in list.attributes { p |= AttributeReader.bit(a.name) }
        present = p
    }

    @inline(__always) static func bit(_ name: String) -> UInt64 {
        let u = name.utf8
        return 1 << UInt64((u.count &* 7 &+ Int(u.first ?? 0)) & 63)
    }

    /// The attribute called `name`, marked as read.
    func raw(_ name: String) -> Attribute? {
        guard present & AttributeReader.bit(name) != 0 else { return nil }
        let n = name.utf8.count
        let attrs = list.attributes
        for i in attrs.indices where attrs[i].name.utf8.count == n && attrs[i].name == name {
            if i < 64 { used |= 1 << UInt64(i) } else { usedBeyond64.insert(i) }
            return attrs[i]
        }
        return nil
    }

    /// True when the list has `name` (not marking it read).
    func has(_ name: String) -> Bool { list[name] != nil }

    private func report(_ d: inout [Diagnostic], _ sev: Severity, _ a: Attribute?, _ msg: String) {
        d.append(Diagnostic(sev, line: line, column: (a?.column ?? 0) > 0 ? a?.column : nil, rule: bis(section), msg))
    }

    /// Reports a missing required attribute and returns whether it is present.
    func require(_ name: String, _ d: inout [Diagnostic]) -> Bool {
        if has(name) { return true }
        report(&d, .error, nil, "\(tag) is missing its required \(name) attribute")
        return false
    }

    /// A decimal-integer (0 to 2^64-1, read into Int).
    func integer(_ name: String, _ d: inout [Diagnostic]) -> Int? {
        guard let a = raw(name) else { return nil }
        if a.quoted { report(&d, .warning, a, "\(tag) \(name) is a decimal-integer and must not be quoted") }
        if let v = parseDecimalInteger(a.value) { return v }
        // Tolerate "1280000.0" (seen in the wild) but report it.
        if let f = parseFloat(a.value), f >= 0, f == f.rounded(.down), f <= Double(decimalIntegerLimit) {
            report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a decimal-integer; read as \(Int(f))")
            return Int(f)
        }
        report(&d, .error, a, "\(tag) \(name)=\(a.value) \(decimalIntegerProblem(a.value))")
        return nil
    }

    /// A decimal-floating-point, or a signed-decimal-floating-point when `signed`.
    func float(_ name: String, signed: Bool = false, _ d: inout [Diagnostic]) -> Double? {
        guard let a = raw(name) else { return nil }
        if a.quoted { report(&d, .warning, a, "\(tag) \(name) is a number and must not be quoted") }
        guard let v = parseFloat(a.value, allowSign: signed) else {
            report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a \(signed ? "signed-" : "")decimal-floating-point")
            return nil
        }
        return v
    }

    /// A quoted-string.
    func string(_ name: String, _ d: inout [Diagnostic]) -> String? {
        guard let a = raw(name) else { return nil }
        if !a.quoted { report(&d, .warning, a, "\(tag) \(name) is a quoted-string and must be in double quotes") }
        return a.value
    }

    /// An enumerated-string, checked against `allowed` when given.
    func enumerated(_ name: String, allowed: [String]? = nil, _ d: inout [Diagnostic]) -> String? {
        guard let a = raw(name) else { return nil }
        if a.quoted { report(&d, .warning, a, "\(tag) \(name) is an enumerated-string and must not be quoted") }
        if let allowed, !allowed.contains(a.value) {
            report(&d, .error, a, "\(tag) \(name)=\(a.value) is not one of \(allowed.joined(separator: ", "))")
        }
        return a.value
    }

    /// A YES/NO enumerated-string; nil when absent.
    func bool(_ name: String, _ d: inout [Diagnostic]) -> Bool? {
        guard let a = raw(name) else { return nil }
        if a.value == "YES" { return true }
        if a.value == "NO" { return false }
        report(&d, .error, a, "\(tag) \(name)=\(a.value) must be YES or NO")
        return a.value.uppercased() == "YES"
    }

    /// A hexadecimal-sequence, returned as written (e.g. `0x1566B`).
    func hex(_ name: String, _ d: inout [Diagnostic]) -> String? {
        guard let a = raw(name) else { return nil }
        let u = Array(a.value.utf8)
        let ok = u.count > 2 && u[0] == 0x30 && (u[1] == 0x78 || u[1] == 0x58) && u[2...].allSatisfy(isHexDigit)
        if !ok { report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a hexadecimal-sequence (0x followed by hex digits)") }
        return a.value
    }

    /// A decimal-resolution `WxH`.
    func resolution(_ name: String, _ d: inout [Diagnostic]) -> Resolution? {
        guard let a = raw(name) else { return nil }
        if let r = Resolution(a.value) { return r }
        report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a decimal-resolution (WIDTHxHEIGHT)")
        return nil
    }

    /// Every attribute not read so far, kept so a rewrite round-trips.
    func extras() -> [Attribute] {
        var out: [Attribute] = []
        for (i, a) in list.attributes.enumerated() where i >= 64 ? !usedBeyond64.contains(i) : used & (1 << UInt64(i)) == 0 {
            out.append(a)
        }
        return out
    }
}

@inline(__always) func isHexDigit(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

/// Parses `[0-9]+` into an Int, nil on anything else or overflow.
func parseDecimalInteger<S: StringProtocol>(_ s: S) -> Int? {
    var v = 0
    var any = false
    for b in s.utf8 {
        guard b >= 0x30 && b <= 0x39 else { return nil }
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (r, o2) = m.addingReportingOverflow(Int(b - 0x30))
        if o1 || o2 || r > decimalIntegerLimit { return nil }
        v = r
        any = true
    }
    return any ? v : nil
}

/// The largest decimal-integer read: 2^53. RFC 8216bis §4.2 allows up to 2^64-1, but no media sequence number, duration,
/// byte offset or bit rate comes near 2^53, and below it every sum and small multiple the rules take stays in 64 bits (a
/// playlist at Int.max with two segments numbered them past it: DECISIONS.md, "Decimal-integers up to 2^53").
let decimalIntegerLimit = 1 << 53

/// Why `s` is not read as a decimal-integer: not one (RFC 8216bis §4.2: digits, 0 to 2^64-1), or past `decimalIntegerLimit`.
func decimalIntegerProblem<S: StringProtocol>(_ s: S) -> String {
    s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) && UInt64(String(s)) != nil
        ? "is past 2^53 (\(decimalIntegerLimit)), more than any stream counts" : "is not a decimal-integer"
}

/// Parses `-?[0-9]+(.[0-9]*)?` (or `.5`) as a Double, nil on anything else (no exponents, no nan/inf).
func parseFloat<S: StringProtocol>(_ s: S, allowSign: Bool = false) -> Double? {
    if let r = s.utf8.withContiguousStorageIfAvailable({ parseFloat(bytes: $0, allowSign: allowSign) }) { return r }
    return Array(s.utf8).withUnsafeBufferPointer { parseFloat(bytes: $0, allowSign: allowSign) }
}

/// `parseFloat` over raw bytes; correctly rounded (mantissa / 10^k when exact, strtod otherwise).
func parseFloat(bytes: UnsafeBufferPointer<UInt8>, allowSign: Bool = false) -> Double? {
    var i = 0
    var negative = false
    if allowSign, bytes.count > 0, bytes[0] == 0x2D { negative = true; i = 1 }
    var mantissa: UInt64 = 0
    var digits = 0
    var fracDigits = 0
    var inFrac = false
    while i < bytes.count {
        let b = bytes[i]
        i += 1
        if b == 0x2E {
            if inFrac { return nil }
            inFrac = true
            continue
        }
        guard b >= 0x30 && b <= 0x39 else { return nil }
        if digits > 0 || b != 0x30 || inFrac { digits += 1 }
        if digits <= 19 { mantissa = mantissa &* 10 &+ UInt64(b - 0x30) }
        if inFrac { fracDigits += 1 }
    }
    // At least one digit must have been seen (zeros count).
    if digits == 0 && !(bytes.contains(0x30)) { return nil }
    let v: Double
    if digits <= 15 && fracDigits < powersOfTen.count {
        v = Double(mantissa) / powersOfTen[fracDigits]
    } else {
        guard let d = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[(negative ? 1 : 0)...]), as: UTF8.self)) else {
            return nil
        }
        v = d
    }
    return negative ? -v : v
}

/// 10^0 … 10^22, all exact in a Double.
let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

/// A decimal-resolution, RFC 8216bis §4.2.
public struct Resolution: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `WxH` (an `X` is tolerated).
    public init?(_ text: String) {
        var w = 0, h = 0, seenX = false, digitsW = 0, digitsH = 0
        for b in text.utf8 {
            if b == 0x78 || b == 0x58 {
                if seenX { return nil }
                seenX = true
            } else if b >= 0x30 && b <= 0x39 {
                if seenX { h = h &* 10 &+ Int(b - 0x30); digitsH += 1 } else { w = w &* 10 &+ Int(b - 0x30); digitsW += 1 }
                if digitsW > 9 || digitsH > 9 { return nil }
            } else {
                return nil
            }
        }
        guard seenX, digitsW > 0, digitsH > 0 else { return nil }
        width = w
        height = h
    }

    public var description: String { "\(width)x\(height)" }
}

/// Every attribute name RFC 8216bis defines, so the tokenizer can reuse one String per name instead of making one per attribute.
enum AttributeNames {
    static let all = [
        "BANDWIDTH", "AVERAGE-BANDWIDTH", "SCORE", "CODECS", "SUPPLEMENTAL-CODECS", "RESOLUTION", "FRAME-RATE", "HDCP-LEVEL", "ALLOWED-CPC",
        "VIDEO-RANGE", "REQ-VIDEO-LAYOUT", "STABLE-VARIANT-ID", "AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS", "PATHWAY-ID",
        "PROGRAM-ID",
        "URI", "TYPE", "GROUP-ID", "LANGUAGE", "ASSOC-LANGUAGE", "NAME", "STABLE-RENDITION-ID", "DEFAULT", "AUTOSELECT", "FORCED",
        "INSTREAM-ID", "BIT-DEPTH", "SAMPLE-RATE", "CHARACTERISTICS", "CHANNELS", "METHOD", "IV", "KEYFORMAT", "KEYFORMATVERSIONS",
        "BYTERANGE", "DURATION", "INDEPENDENT", "GAP", "ID", "CLASS", "START-DATE", "CUE", "END-DATE", "PLANNED-DURATION", "END-ON-NEXT",
        "SKIPPED-SEGMENTS", "RECENTLY-REMOVED-DATERANGES", "BYTERANGE-START", "BYTERANGE-LENGTH", "LAST-MSN", "LAST-PART",
        "DATA-ID", "VALUE", "FORMAT", "SERVER-URI", "TIME-OFFSET", "PRECISE", "IMPORT", "QUERYPARAM", "PART-TARGET",
        "CAN-SKIP-UNTIL", "CAN-SKIP-DATERANGES", "HOLD-BACK", "PART-HOLD-BACK", "CAN-BLOCK-RELOAD",
    ]

    /// Names grouped by length, as bytes and as the String to hand out.
    static let table: [[([UInt8], String)]] = {
        var t = Array(repeating: [([UInt8], String)](), count: 32)
        for n in all { t[n.utf8.count].append((Array(n.utf8), n)) }
        return t
    }()

    /// The shared String for a known name, or nil.
    static func intern(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count < table.count else { return nil }
        for (b, s) in table[bytes.count] where b.elementsEqual(bytes) { return s }
        return nil
    }
}
