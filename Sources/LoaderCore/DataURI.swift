import Foundation

/// A `data:` URI (RFC 2397): `data:[<media type>][;base64],<data>`. HLS Content Steering lets EXT-X-CONTENT-STEERING's
/// SERVER-URI carry the first steering manifest in-line this way (docs/STEERING.md).
public enum DataURI {
    /// True when `uri` uses the data scheme (case-insensitive, RFC 3986 §3.1).
    public static func isData(_ uri: String) -> Bool { uri.prefix(5).lowercased() == "data:" }

    /// The bytes `uri` carries, or why they cannot be read, in one line.
    public static func decode(_ uri: String) -> Result<[UInt8], DataURIError> {
        guard isData(uri) else { return .failure(.notData) }
        guard let comma = uri.firstIndex(of: ",") else { return .failure(.noComma) }
        let header = uri[uri.index(uri.startIndex, offsetBy: 5)..<comma]
        let payload = String(uri[uri.index(after: comma)...])
        let base64 = header.split(separator: ";").contains { $0.lowercased() == "base64" }
        // Both forms may be percent-encoded in a playlist's quoted-string.
        guard let text = payload.removingPercentEncoding else { return .failure(.percentEncoding) }
        if base64 {
            // Some writers drop the base64 padding: it is put back (a multiple of four characters).
            let bare = text.filter { !$0.isWhitespace }
            let padded = bare + String(repeating: "=", count: (4 - bare.count % 4) % 4)
            guard let d = Data(base64Encoded: padded) else { return .failure(.base64) }
            return .success([UInt8](d))
        }
        return .success(Array(text.utf8))
    }
}

/// Why a `data:` URI could not be read.
public enum DataURIError: Error, Sendable, Equatable, CustomStringConvertible {
    case notData, noComma, percentEncoding, base64

    public var description: String {
        switch self {
        case .notData: "not a data: URI"
        case .noComma: "the data: URI has no ',' before its data (RFC 2397)"
        case .percentEncoding: "the data: URI's data is not valid percent-encoding"
        case .base64: "the data: URI's base64 data is not valid base64"
        }
    }
}
