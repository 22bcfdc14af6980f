/// What a playlist line is, after RFC 8216bis §4.1: a tag, a comment, a URI or blank.
public enum LineKind: Sendable, Equatable {
    case tag
    case comment
    case uri
    case blank
}

/// The bytes of a whole playlist, shared by its lines so no line copies its text until asked.
final class LineStorage: Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// One line of a playlist with its 1-based number; the text has the line terminator and surrounding white space removed.
public struct Line: Sendable, Equatable {
    public var number: Int
    public var kind: LineKind
    /// For tags, which tag it is (`.other` for tags this library does not model).
    public var tag: TagKind
    let storage: LineStorage
    /// Byte range of the trimmed line in `storage`.
    let start: Int
    let end: Int
    /// Byte offset (from `start`) of the `:` ending the tag name, or nil.
    var colonOffset: Int?
    /// Column (1-based) where the tag value starts.
    public var valueColumn: Int
    /// True when white space was trimmed from the line's start (RFC 8216bis §4.1 does not allow it).
    public var hadLeadingSpace: Bool

    public static func == (a: Line, b: Line) -> Bool {
        a.number == b.number && a.kind == b.kind && a.tag == b.tag && a.text == b.text
    }

    func string(_ a: Int, _ b: Int) -> String {
        storage.bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[a..<b]), as: UTF8.self) }
    }

    /// The line's text.
    public var text: String { string(start, end) }

    /// For tags, the name without `#` (e.g. `EXT-X-KEY`); empty otherwise.
    public var tagName: Substring {
        guard kind == .tag else { return "" }
        return Substring(string(start + 1, colonOffset.map { start + $0 } ?? end))
    }

    /// For tags, the text after the first `:`; nil when the tag has no `:`.
    public var tagValue: Substring? {
        guard kind == .tag, let c = colonOffset else { return nil }
        return Substring(string(start + c + 1, end))
    }

    /// Calls `body` with the bytes of the tag value (empty when there is none), without copying.
    func withValueBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let c = colonOffset.map { start + $0 + 1 } ?? end
        return storage.bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[c..<end])) }
    }
}

/// Splits playlist text into numbered lines, RFC 8216bis §4.1: LF or CRLF terminated, UTF-8, no BOM.
public enum Lexer {
    /// The lines of `text` and the diagnostics about encoding (BOM, control characters).
    public static func lines(_ text: String, strict: Bool = true) -> (lines: [Line], diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        var lines: [Line] = []
        scan(LineStorage(Array(text.utf8)), strict: strict, diagnostics: &diagnostics) {
            lines.append($0); return true
        }
        return (lines, diagnostics)
    }

    /// Calls `body` with each line in order until it returns false; encoding problems go to `diagnostics`. A BOM is an error
    /// when `strict` (§4.1: clients SHOULD fail to parse such a playlist), a warning otherwise (the rest is read as usual).
    static func scan(_ storage: LineStorage, strict: Bool = true, diagnostics: inout [Diagnostic], _ body: (Line) -> Bool) {
        storage.bytes.withUnsafeBufferPointer { buf in
            let n = buf.count
            var i = 0
            if n >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF {
                diagnostics.append(
                    Diagnostic(
                        strict ? .error : .warning, line: 1, column: 1, rule: bis("4.1"),
                        "playlist starts with a byte order mark (EF BB BF); Playlist files MUST NOT contain a BOM and clients SHOULD fail to parse them"
                            + (strict ? "" : " (read anyway; --strict rejects it)")))
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
                    diagnostics.append(
                        Diagnostic(
                            .error, line: number, rule: bis("4.1"),
                            "line contains a control character; Playlist files MUST NOT contain UTF-8 control characters other than CR and LF"
                        ))
                }
                // Trim white space at both ends.
                var a = i, e = stop
                while e > a && (buf[e - 1] == 0x20 || buf[e - 1] == 0x09) { e -= 1 }
                let leading = a < e && (buf[a] == 0x20 || buf[a] == 0x09)
                while a < e && (buf[a] == 0x20 || buf[a] == 0x09) { a += 1 }
                var line = Line(
                    number: number, kind: .uri, tag: .other, storage: storage, start: a, end: e, colonOffset: nil, valueColumn: 0,
                    hadLeadingSpace: leading)
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
                if !body(line) { return }
                i = next
            }
        }
    }
}
