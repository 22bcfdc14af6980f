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
        for a in attributes where a.name == name { return a }
        return nil
    }

    /// Tokenizes `text` (which starts at `column` on `line`), reporting malformed input into `diagnostics`.
    public static func parse(_ text: Substring, line: Int, column: Int, diagnostics: inout [Diagnostic]) -> AttributeList {
        var out: [Attribute] = []
        out.reserveCapacity(8)
        let u = text.utf8
        var i = u.startIndex
        let end = u.endIndex
        func col(_ idx: Substring.UTF8View.Index) -> Int { column + u.distance(from: u.startIndex, to: idx) }
        func report(_ sev: Severity, _ idx: Substring.UTF8View.Index, _ msg: String) {
            diagnostics.append(Diagnostic(sev, line: line, column: col(idx), rule: bis("4.2"), msg))
        }
        var spaceReported = false
        while i < end {
            // Tolerate (and report once) white space after a comma.
            var sawSpace = false
            while i < end, u[i] == 0x20 || u[i] == 0x09 { u.formIndex(after: &i); sawSpace = true }
            if sawSpace && !spaceReported {
                spaceReported = true
                report(.warning, i, "white space inside an attribute list; attributes are separated by a comma alone")
            }
            if i == end { break }
            if u[i] == 0x2C { // empty entry ",,"
                report(.error, i, "empty attribute in attribute list")
                u.formIndex(after: &i)
                continue
            }
            let nameStart = i
            while i < end, u[i] != 0x3D, u[i] != 0x2C { u.formIndex(after: &i) }
            var name = String(text[nameStart..<i])
            if i == end || u[i] == 0x2C {
                report(.error, nameStart, "attribute \"\(name)\" has no value; an attribute list is NAME=value pairs")
                if i < end { u.formIndex(after: &i) }
                continue
            }
            // Validate the AttributeName: [A-Z0-9-]+.
            if name.isEmpty {
                report(.error, nameStart, "attribute without a name before '='")
            } else if !name.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) {
                let trimmed = name.trimmingSpaces
                let upper = trimmed.uppercased()
                if upper.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) {
                    report(.error, nameStart, "attribute name \"\(name)\" must use only A-Z, 0-9 and '-'; read as \(upper)")
                    name = upper
                } else {
                    report(.error, nameStart, "attribute name \"\(name)\" must use only A-Z, 0-9 and '-'")
                }
            }
            u.formIndex(after: &i) // '='
            var value: String
            var quoted = false
            if i < end, u[i] == 0x22 {
                quoted = true
                let vs = u.index(after: i)
                var j = vs
                while j < end, u[j] != 0x22 { u.formIndex(after: &j) }
                value = String(text[vs..<j])
                if j == end {
                    report(.error, i, "quoted string of \(name) is not closed")
                    i = end
                } else {
                    i = u.index(after: j)
                    if i < end, u[i] != 0x2C {
                        let junkStart = i
                        while i < end, u[i] != 0x2C { u.formIndex(after: &i) }
                        report(.error, junkStart, "unexpected \"\(text[junkStart..<i])\" after the quoted value of \(name)")
                    }
                    if i < end { u.formIndex(after: &i) }
                }
            } else {
                let vs = i
                while i < end, u[i] != 0x2C { u.formIndex(after: &i) }
                value = String(text[vs..<i])
                if value.isEmpty { report(.error, vs, "attribute \(name) has an empty value") }
                if i < end { u.formIndex(after: &i) }
            }
            if let dup = out.firstIndex(where: { $0.name == name }) {
                report(.error, nameStart, "attribute \(name) appears more than once; an AttributeName MUST NOT appear more than once in an attribute list (the last one is used)")
                out.remove(at: dup)
            }
            out.append(Attribute(name: name, value: value, quoted: quoted, column: col(nameStart)))
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

/// Typed reads of attribute values after RFC 8216bis §4.2's value types, reporting into a diagnostics list.
struct AttributeReader {
    var list: AttributeList
    var line: Int
    var tag: String
    var section: String

    init(_ list: AttributeList, line: Int, tag: String, section: String) {
        self.list = list
        self.line = line
        self.tag = tag
        self.section = section
    }

    private func report(_ d: inout [Diagnostic], _ sev: Severity, _ a: Attribute?, _ msg: String) {
        d.append(Diagnostic(sev, line: line, column: (a?.column ?? 0) > 0 ? a?.column : nil, rule: bis(section), msg))
    }

    /// Reports a missing required attribute and returns whether it is present.
    func require(_ name: String, _ d: inout [Diagnostic]) -> Bool {
        if list[name] != nil { return true }
        report(&d, .error, nil, "\(tag) is missing its required \(name) attribute")
        return false
    }

    /// A decimal-integer (0 to 2^64-1, read into Int).
    func integer(_ name: String, _ d: inout [Diagnostic]) -> Int? {
        guard let a = list[name] else { return nil }
        if a.quoted { report(&d, .warning, a, "\(tag) \(name) is a decimal-integer and must not be quoted") }
        if let v = parseDecimalInteger(a.value) { return v }
        // Tolerate "1280000.0" (seen in the wild) but report it.
        if let f = parseFloat(a.value), f >= 0, f == f.rounded(.down), f < 9.2e18 {
            report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a decimal-integer; read as \(Int(f))")
            return Int(f)
        }
        report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a decimal-integer")
        return nil
    }

    /// A decimal-floating-point, or a signed-decimal-floating-point when `signed`.
    func float(_ name: String, signed: Bool = false, _ d: inout [Diagnostic]) -> Double? {
        guard let a = list[name] else { return nil }
        if a.quoted { report(&d, .warning, a, "\(tag) \(name) is a number and must not be quoted") }
        guard let v = parseFloat(a.value, allowSign: signed) else {
            report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a \(signed ? "signed-" : "")decimal-floating-point")
            return nil
        }
        return v
    }

    /// A quoted-string.
    func string(_ name: String, _ d: inout [Diagnostic]) -> String? {
        guard let a = list[name] else { return nil }
        if !a.quoted { report(&d, .warning, a, "\(tag) \(name) is a quoted-string and must be in double quotes") }
        return a.value
    }

    /// An enumerated-string, checked against `allowed` when given.
    func enumerated(_ name: String, allowed: [String]? = nil, _ d: inout [Diagnostic]) -> String? {
        guard let a = list[name] else { return nil }
        if a.quoted { report(&d, .warning, a, "\(tag) \(name) is an enumerated-string and must not be quoted") }
        if let allowed, !allowed.contains(a.value) {
            report(&d, .error, a, "\(tag) \(name)=\(a.value) is not one of \(allowed.joined(separator: ", "))")
        }
        return a.value
    }

    /// A YES/NO enumerated-string; nil when absent.
    func bool(_ name: String, _ d: inout [Diagnostic]) -> Bool? {
        guard let a = list[name] else { return nil }
        if a.value == "YES" { return true }
        if a.value == "NO" { return false }
        report(&d, .error, a, "\(tag) \(name)=\(a.value) must be YES or NO")
        return a.value.uppercased() == "YES"
    }

    /// A hexadecimal-sequence, returned as written (e.g. `0x1566B`).
    func hex(_ name: String, _ d: inout [Diagnostic]) -> String? {
        guard let a = list[name] else { return nil }
        let u = Array(a.value.utf8)
        let ok = u.count > 2 && u[0] == 0x30 && (u[1] == 0x78 || u[1] == 0x58) && u[2...].allSatisfy(isHexDigit)
        if !ok { report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a hexadecimal-sequence (0x followed by hex digits)") }
        return a.value
    }

    /// A decimal-resolution `WxH`.
    func resolution(_ name: String, _ d: inout [Diagnostic]) -> Resolution? {
        guard let a = list[name] else { return nil }
        if let r = Resolution(a.value) { return r }
        report(&d, .error, a, "\(tag) \(name)=\(a.value) is not a decimal-resolution (WIDTHxHEIGHT)")
        return nil
    }

    /// Every attribute not in `known`, kept so a rewrite round-trips.
    func extras(known: Set<String>) -> [Attribute] {
        list.attributes.filter { !known.contains($0.name) }
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
        if o1 || o2 { return nil }
        v = r
        any = true
    }
    return any ? v : nil
}

/// Parses `-?[0-9]+(.[0-9]*)?` (or `.5`) as a Double, nil on anything else (no exponents, no nan/inf).
func parseFloat<S: StringProtocol>(_ s: S, allowSign: Bool = false) -> Double? {
    var it = s.utf8.makeIterator()
    var negative = false
    var intPart: Double = 0
    var frac: Double = 0
    var scale: Double = 1
    var digits = 0
    var inFrac = false
    var first = true
    while let b = it.next() {
        if first && b == 0x2D && allowSign { negative = true; first = false; continue }
        first = false
        if b == 0x2E {
            if inFrac { return nil }
            inFrac = true
            continue
        }
        guard b >= 0x30 && b <= 0x39 else { return nil }
        digits += 1
        if inFrac {
            scale *= 10
            frac = frac * 10 + Double(b - 0x30)
        } else {
            intPart = intPart * 10 + Double(b - 0x30)
        }
    }
    if digits == 0 { return nil }
    let v = intPart + frac / scale
    return negative ? -v : v
}

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
        let parts = text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        let p = parts.count == 2 ? parts : text.split(separator: "X", maxSplits: 1, omittingEmptySubsequences: false)
        guard p.count == 2, let w = parseDecimalInteger(p[0]), let h = parseDecimalInteger(p[1]) else { return nil }
        width = w
        height = h
    }

    public var description: String { "\(width)x\(height)" }
}
