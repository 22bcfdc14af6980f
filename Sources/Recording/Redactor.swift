import Foundation

/// What `--redact` takes out of a recording so it can be attached to a ticket: the values of token-like query parameters
/// (and of those named), user names and passwords in URLs, and cookies and credentials in headers. The same rule is applied
/// to URLs, playlist text and event lines, so a redacted recording still replays: the player asks for the redacted URLs the
/// redacted playlists list. Pure.
public struct Redactor: Sendable {
    /// Query parameters whose values are tokens wherever they appear (CDN signatures, expiries, session ids), lowercased.
    public static let tokenParameters: Set<String> = [
        "token", "access_token", "auth", "authorization", "exp", "expires", "signature", "sig", "policy", "key-pair-id", "hdnts",
        "hdnea", "session", "sessionid", "jwt", "apikey", "api_key",
    ]
    public static let secretHeaders: Set<String> = ["set-cookie", "cookie", "authorization", "proxy-authorization"]
    public static let mark = "REDACTED"

    public let parameters: Set<String>

    /// `parameters`: more names to redact, besides `tokenParameters`.
    public init(parameters: [String] = []) {
        self.parameters = Self.tokenParameters.union(parameters.map { $0.lowercased() })
    }

    /// A URL with its secrets' values replaced.
    public func url(_ url: String) -> String { text(url) }

    /// Any text (a playlist, a JSON line): every `name=value` of a redacted parameter after `?` or `&`, and every
    /// `scheme://user:password@`, has its secret replaced.
    public func text(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "?" || c == "&" {
                out.append(c)
                let nameStart = text.index(after: i)
                var j = nameStart
                while j < text.endIndex, text[j] != "=", !Self.ends(text[j]) { j = text.index(after: j) }
                let name = text[nameStart..<j]
                if j < text.endIndex, text[j] == "=", !name.isEmpty, parameters.contains(name.lowercased()) {
                    out += name + "=" + Self.mark
                    var k = text.index(after: j)
                    while k < text.endIndex, !Self.ends(text[k]), text[k] != "&" { k = text.index(after: k) }
                    i = k
                } else {
                    out += name
                    i = j
                }
                continue
            }
            if c == "/", text[i...].hasPrefix("//"), let at = userinfo(in: text, after: text.index(i, offsetBy: 2)) {
                out += "//" + Self.mark + "@"
                i = text.index(after: at)
                continue
            }
            out.append(c)
            i = text.index(after: i)
        }
        return out
    }

    /// Headers with cookies and credentials replaced.
    public func headers(_ headers: [(String, String)]) -> [(String, String)] {
        headers.map { Self.secretHeaders.contains($0.0.lowercased()) ? ($0.0, Self.mark) : $0 }
    }

    /// Where the `@` of `user:password@host` ends the user information starting at `from`, if the authority has one.
    func userinfo(in text: String, after from: String.Index) -> String.Index? {
        var j = from
        while j < text.endIndex, !Self.ends(text[j]), text[j] != "/", text[j] != "?" {
            if text[j] == "@" { return j > from ? j : nil }
            j = text.index(after: j)
        }
        return nil
    }

    /// Characters that end a URL or a query value inside playlist text or JSON.
    static func ends(_ c: Character) -> Bool { c.isWhitespace || c == "\"" || c == "," || c == "#" || c == "'" || c == "<" || c == ">" }
}
