/// What a playlist line is, after RFC 8216bis §4.1: a tag, a comment, a URI or blank.
public enum LineKind: Sendable, Equatable {
    case tag
    case comment
    case uri
    case blank
}

/// One line of a playlist with its 1-based number; the text has the line terminator and trailing white space removed.
public struct Line: Sendable, Equatable {
    public var number: Int
    public var kind: LineKind
    public var text: Substring
    /// For tags, the name without `#` (e.g. `EXT-X-KEY`); empty otherwise.
    public var tagName: Substring
    /// For tags, the text after the first `:`; nil when the tag has no `:`.
    public var tagValue: Substring?
    /// Column (1-based) where `tagValue` starts.
    public var valueColumn: Int
    /// True when white space was trimmed from the line's start (RFC 8216bis §4.1 does not allow it).
    public var hadLeadingSpace: Bool
}

/// Splits playlist text into numbered lines, RFC 8216bis §4.1: LF or CRLF terminated, UTF-8, no BOM.
public enum Lexer {
    /// The lines of `text` and the diagnostics about encoding (BOM, control characters).
    public static func lines(_ text: String) -> (lines: [Line], diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" {
            diagnostics.append(Diagnostic(.error, line: 1, column: 1, rule: bis("4.1"),
                                          "playlist starts with a byte order mark; Playlist files MUST NOT contain a BOM"))
            body = body.dropFirst()
        }
        var lines: [Line] = []
        lines.reserveCapacity(body.utf8.count / 24)
        var number = 0
        var reportedControl = false
        let utf8 = body.utf8
        var start = utf8.startIndex
        let end = utf8.endIndex
        while start < end {
            number += 1
            var stop = start
            var sawControl = false
            while stop < end {
                let b = utf8[stop]
                if b == 0x0A || b == 0x0D { break }
                if b < 0x20 && b != 0x09 { sawControl = true }
                if b == 0x7F { sawControl = true }
                utf8.formIndex(after: &stop)
            }
            let raw = body[start..<stop]
            // Skip the terminator: LF, CRLF, or a lone CR (seen in the wild; tolerated).
            var next = stop
            if next < end {
                if utf8[next] == 0x0D {
                    utf8.formIndex(after: &next)
                    if next < end && utf8[next] == 0x0A { utf8.formIndex(after: &next) }
                } else {
                    utf8.formIndex(after: &next)
                }
            }
            start = next
            if sawControl && !reportedControl {
                reportedControl = true
                diagnostics.append(Diagnostic(.error, line: number, rule: bis("4.1"),
                                              "line contains a control character; Playlist files MUST NOT contain UTF-8 control characters other than CR and LF"))
            }
            lines.append(classify(raw, number: number))
        }
        return (lines, diagnostics)
    }

    /// Classifies one raw line (without terminator).
    static func classify(_ raw: Substring, number: Int) -> Line {
        var text = raw
        while let last = text.utf8.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        var leading = false
        while let first = text.utf8.first, first == 0x20 || first == 0x09 { text = text.dropFirst(); leading = true }
        if text.isEmpty {
            return Line(number: number, kind: .blank, text: text, tagName: "", tagValue: nil, valueColumn: 0, hadLeadingSpace: leading)
        }
        let u = text.utf8
        if u.first == 0x23 /* # */ {
            // "#EXT" starts a tag; anything else after # is a comment (§4.1).
            var i = u.index(after: u.startIndex)
            if u.count >= 4, u[i] == 0x45, u[u.index(i, offsetBy: 1)] == 0x58, u[u.index(i, offsetBy: 2)] == 0x54 {
                var colon: Substring.UTF8View.Index? = nil
                while i < u.endIndex {
                    if u[i] == 0x3A { colon = i; break }
                    u.formIndex(after: &i)
                }
                let nameStart = u.index(after: u.startIndex)
                let name = text[nameStart..<(colon ?? u.endIndex)]
                var value: Substring? = nil
                var column = 0
                if let colon {
                    let vs = u.index(after: colon)
                    value = text[vs...]
                    column = u.distance(from: u.startIndex, to: vs) + 1 + (raw.utf8.count - raw.drop(while: { $0 == " " || $0 == "\t" }).utf8.count)
                }
                return Line(number: number, kind: .tag, text: text, tagName: name, tagValue: value, valueColumn: column, hadLeadingSpace: leading)
            }
            return Line(number: number, kind: .comment, text: text, tagName: "", tagValue: nil, valueColumn: 0, hadLeadingSpace: leading)
        }
        return Line(number: number, kind: .uri, text: text, tagName: "", tagValue: nil, valueColumn: 0, hadLeadingSpace: leading)
    }
}
