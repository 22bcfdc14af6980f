import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a playlist could not be read, in one line naming the cause.
public struct SourceError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Reads playlist text from a file path or an http(s) URL.
public enum PlaylistSource {
    /// True when `s` is an http or https URL.
    public static func isURL(_ s: String) -> Bool { s.hasPrefix("http://") || s.hasPrefix("https://") }

    /// The text at `pathOrURL`, or a one-line error.
    public static func load(_ pathOrURL: String, timeout: TimeInterval = 10) async throws(SourceError) -> String {
        let data: Data
        if isURL(pathOrURL) {
            data = try await fetch(pathOrURL, timeout: timeout)
        } else {
            let path = pathOrURL.hasPrefix("file://") ? String(pathOrURL.dropFirst(7)) : pathOrURL
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw SourceError("\(path): no such file")
            }
            guard !isDir.boolValue else { throw SourceError("\(path): is a directory, not a playlist") }
            guard let d = FileManager.default.contents(atPath: path) else { throw SourceError("\(path): cannot be read (permission denied?)") }
            data = d
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SourceError("\(pathOrURL): not UTF-8 text; RFC 8216bis §4.1 requires playlists to be UTF-8")
        }
        return text
    }

    static func fetch(_ url: String, timeout: TimeInterval) async throws(SourceError) -> Data {
        guard let u = URL(string: url) else { throw SourceError("\(url): not a valid URL") }
        var request = URLRequest(url: u, timeoutInterval: timeout)
        request.setValue("hlstui", forHTTPHeaderField: "User-Agent")
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: config)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (data, response) = try await session.data(for: request)
            if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                throw SourceError("\(url): HTTP \(http.statusCode) \(HTTPURLResponse.localizedString(forStatusCode: http.statusCode))")
            }
            return data
        } catch let e as SourceError {
            throw e
        } catch let e as URLError {
            throw SourceError("\(url): \(describe(e))")
        } catch {
            throw SourceError("\(url): \(error.localizedDescription)")
        }
    }

    static func describe(_ e: URLError) -> String {
        switch e.code {
        case .timedOut: return "timed out"
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost: return "host not found"
        case .notConnectedToInternet, .networkConnectionLost: return "network unreachable or connection lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "TLS failure (\(e.localizedDescription))"
        default: return e.localizedDescription
        }
    }
}
