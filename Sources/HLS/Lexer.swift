/// What a playlist line is, after RFC 8216bis §4.1: a tag, a comment, a URI or blank.
public enum LineKind: Sendable, Equatable {
    case tag
    case comment
    case uri
    case blank
}

/// One line of a playlist with its 1-based number; the text has the line terminator and surrounding white space removed.
public struct Line: Sendable, Equatable {
    public var number: Int
    public var kind: LineKind
    public var text: String
    /// For tags, which tag it is (`.other` for tags this library does not model).
    public var tag: TagKind
    /// Byte offset in `text` of the `:` ending the tag name, or nil.
    var colonOffset: Int?
    /// Column (1-based) where the tag value starts.
    public var valueColumn: Int
    /// True when white space was trimmed from the line's start (RFC 8216bis §4.1 does not allow it).
    public var hadLeadingSpace: Bool

    /// For tags, the name without `#` (e.g. `EXT-X-KEY`); empty otherwise.
    public var tagName: Substring {
        guard kind == .tag else { return "" }
        let u = text.utf8
        let start = u.index(after: u.startIndex)
        let end = colonOffset.map { u.index(u.startIndex, offsetBy: $0) } ?? u.endIndex
        return text[start..<end]
    }

    /// For tags, the text after the first `:`; nil when the tag has no `:`.
    public var tagValue: Substring? {
        guard kind == .tag, let c = colonOffset else { return nil }
        let u = text.utf8
        return text[u.index(u.startIndex, offsetBy: c + 1)...]
    }

    /// Calls `body` with the bytes of the tag value (empty when there is none), without copying.
    func withValueBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let c = colonOffset.map { $0 + 1 } ?? text.utf8.count
        if let r = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeBufferPointer(rebasing: $0[c...])) }) { return r }
        return Array(text.utf8).withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[c...])) }
    }
}

/// Splits playlist text into numbered lines, RFC 8216bis §4.1: LF or CRLF terminated, UTF-8, no BOM.
public enum Lexer {
    /// The lines of `text` and the diagnostics about encoding (BOM, control characters).
    public static func lines(_ text: String) -> (lines: [Line], diagnostics: [Diagnostic]) {
        var text = text
        text.makeContiguousUTF8()
        var diagnostics: [Diagnostic] = []
        var lines: [Line] = []
        text.utf8.withContiguousStorageIfAvailable { buf in
            let n = buf.count
            lines.reserveCapacity(n / 24)
            var i = 0
            if n >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF {
                diagnostics.append(Diagnostic(.error, line: 1, column: 1, rule: bis("4.1"),
                                              "playlist starts with a byte order mark; Playlist files MUST NOT contain a BOM"))
                i = 3
            }
            var number = 0
            var reportedControl = false
            while i < n {
                number += 1
                var stop = i
                var sawControl = false
                while stop < n {
                    let b = buf[stop]
                    if b < 0x20 || b == 0x7F {
                        if b == 0x0A || b == 0x0D { break }
                        if b != 0x09 { sawControl = true }
                    }
                    stop += 1
                }
                // Skip the terminator: LF, CRLF, or a lone CR (seen in the wild; tolerated).
                var next = stop
                if next < n {
                    if buf[next] == 0x0D {
                        next += 1
                        if next < n && buf[next] == 0x0A { next += 1 }
                    } else {
                        next += 1
                    }
                }
                if sawControl && !reportedControl {
                    reportedControl = true
                    diagnostics.append(Diagnostic(.error, line: number, rule: bis("4.1"),
                                                  "line contains a control character; Playlist files MUST NOT contain UTF-8 control characters other than CR and LF"))
                }
                // Trim white space at both ends.
                var a = i, e = stop
                while e > a && (buf[e - 1] == 0x20 || buf[e - 1] == 0x09) { e -= 1 }
                let leading = a < e && (buf[a] == 0x20 || buf[a] == 0x09)
                while a < e && (buf[a] == 0x20 || buf[a] == 0x09) { a += 1 }
                let sub = String(decoding: UnsafeBufferPointer(rebasing: buf[a..<e]), as: UTF8.self)
                var line = Line(number: number, kind: .uri, text: sub, tag: .other, colonOffset: nil, valueColumn: 0, hadLeadingSpace: leading)
                if a == e {
                    line.kind = .blank
                } else if buf[a] == 0x23 {
                    // "#EXT" starts a tag; anything else after # is a comment (§4.1).
                    if e - a >= 4 && buf[a + 1] == 0x45 && buf[a + 2] == 0x58 && buf[a + 3] == 0x54 {
                        line.kind = .tag
                        var c = a + 1
                        while c < e && buf[c] != 0x3A { c += 1 }
                        line.tag = TagKind.identify(UnsafeBufferPointer(rebasing: buf[(a + 1)..<c]))
                        if c < e {
                            line.colonOffset = c - a
                            line.valueColumn = c + 1 - i + 1
                        }
                    } else {
                        line.kind = .comment
                    }
                }
                lines.append(line)
                i = next
            }
        }
        return (lines, diagnostics)
    }
}
