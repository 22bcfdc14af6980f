/// How serious a diagnostic is: errors break a MUST of the RFC, warnings a SHOULD or a known interoperability trap.
public enum Severity: String, Sendable, Comparable, CaseIterable {
    case info, warning, error

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    private var rank: Int { self == .info ? 0 : self == .warning ? 1 : 2 }
}

/// One finding about a playlist, located by line (1-based) and, where it helps, column (1-based).
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public var severity: Severity
    public var line: Int?
    public var column: Int?
    /// The rule broken, e.g. `"RFC 8216bis §4.4.3.1"` or `"lint"`.
    public var rule: String
    public var message: String

    public init(_ severity: Severity, line: Int?, column: Int? = nil, rule: String, _ message: String) {
        self.severity = severity
        self.line = line
        self.column = column
        self.rule = rule
        self.message = message
    }

    /// `line 12:5: error: message (rule)`, the one-line form shown to people.
    public var description: String {
        var where_ = ""
        if let line { where_ = "line \(line)" + (column.map { ":\($0)" } ?? "") + ": " }
        return "\(where_)\(severity.rawValue): \(message) (\(rule))"
    }
}

/// Thrown in strict mode at the first error diagnostic.
public struct PlaylistError: Error, Sendable, CustomStringConvertible {
    public var diagnostic: Diagnostic
    public var description: String { diagnostic.description }
}

/// Shorthand for a section of draft-pantos-hls-rfc8216bis.
@inline(__always) func bis(_ section: String) -> String { "RFC 8216bis §" + section }
