/// Variable substitution, RFC 8216bis §4.3: `{$name}` in URI lines, quoted-string and hexadecimal-sequence values.
struct Variables {
    var values: [String: String] = [:]

    /// True when `s` contains a variable reference.
    @inline(__always) static func mayContainReference<S: StringProtocol>(_ s: S) -> Bool {
        if let r = s.utf8.withContiguousStorageIfAvailable({ buf -> Bool in
            guard buf.count > 1 else { return false }
            for i in 0..<(buf.count - 1) where buf[i] == 0x7B && buf[i + 1] == 0x24 { return true }
            return false
        }) {
            return r
        }
        var prev: UInt8 = 0
        for b in s.utf8 {
            if prev == 0x7B && b == 0x24 { return true }
            prev = b
        }
        return false
    }

    /// Valid variable names: `[a-zA-Z0-9-_]+`.
    static func isValidName(_ s: String) -> Bool {
        !s.isEmpty
            && s.utf8.allSatisfy {
                ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// `s` with every defined reference replaced; each undefined one is an error naming it.
    func substitute(_ s: String, line: Int, diagnostics: inout [Diagnostic]) -> String {
        guard Variables.mayContainReference(s) else { return s }
        let b = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == 0x7B, i + 1 < b.count, b[i + 1] == 0x24, let close = b[(i + 2)...].firstIndex(of: 0x7D) {
                let name = String(decoding: b[(i + 2)..<close], as: UTF8.self)
                if Variables.isValidName(name) {
                    if let v = values[name] {
                        out += Array(v.utf8)
                    } else {
                        diagnostics.append(
                            Diagnostic(
                                .error, line: line, rule: bis("4.3"),
                                "variable {$\(name)} is not defined by an EXT-X-DEFINE tag before this line"))
                        out += b[i...close]
                    }
                    i = close + 1
                    continue
                }
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The query parameters of a URL string, decoded (for EXT-X-DEFINE QUERYPARAM, RFC 8216bis §4.4.2.3).
public func queryParameters(ofURL url: String) -> [String: String] {
    guard let q = url.firstIndex(of: "?") else { return [:] }
    var query = url[url.index(after: q)...]
    if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
    var out: [String: String] = [:]
    for pair in query.split(separator: "&") {
        let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let k = percentDecode(String(kv[0]))
        if out[k] == nil { out[k] = kv.count > 1 ? percentDecode(String(kv[1])) : "" }
    }
    return out
}

/// Decodes `%XX` escapes and `+` as space.
func percentDecode(_ s: String) -> String {
    var bytes: [UInt8] = []
    var it = Array(s.utf8)[...]
    while let b = it.popFirst() {
        if b == 0x25, it.count >= 2, let h = hexValue(it[it.startIndex]), let l = hexValue(it[it.startIndex + 1]) {
            bytes.append(h << 4 | l)
            it = it.dropFirst(2)
        } else if b == 0x2B {
            bytes.append(0x20)
        } else {
            bytes.append(b)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

@inline(__always) func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: return b - 0x30
    case 0x41...0x46: return b - 0x37
    case 0x61...0x66: return b - 0x57
    default: return nil
    }
}
