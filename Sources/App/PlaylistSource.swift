import Foundation
import HLS
import Loader
import NIOPosix

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
    /// `client`: the run's own (one for all its reads); nil: one for this read.
    public static func load(
        _ pathOrURL: String, timeout: TimeInterval = 10, upstream: UpstreamOptions = UpstreamOptions(), client: UpstreamClient? = nil
    ) async throws(SourceError) -> String {
        let data: Data
        if isURL(pathOrURL) {
            data = try await fetch(pathOrURL, timeout: timeout, upstream: upstream, client: client)
        } else {
            let path = pathOrURL.hasPrefix("file://") ? String(pathOrURL.dropFirst(7)) : pathOrURL
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw SourceError("\(path): no such file")
            }
            guard !isDir.boolValue else { throw SourceError("\(path): is a directory, not a playlist") }
            guard let d = FileManager.default.contents(atPath: path) else {
                throw SourceError("\(path): cannot be read (permission denied?)")
            }
            data = d
        }
        // Decoded as it is: Foundation's UTF-8 decoding drops a leading BOM, which the parser must see (RFC 8216bis §4.1).
        guard let text = String(validating: data, as: UTF8.self) else {
            throw SourceError("\(pathOrURL): not UTF-8 text; RFC 8216bis §4.1 requires playlists to be UTF-8")
        }
        return text
    }

    /// Fetches with the Loader's client, so inspect trusts, pins, sends headers and names failures exactly as playback does.
    /// `range`: those bytes only (an origin that answers the whole file with 200 has them cut out of it).
    static func fetch(
        _ url: String, range: ByteRange? = nil, timeout: TimeInterval, upstream: UpstreamOptions, client shared: UpstreamClient? = nil
    ) async throws(SourceError) -> Data {
        let client: UpstreamClient
        if let shared {
            client = shared
        } else {
            do { client = try makeClient(timeout: timeout, upstream: upstream) } catch { throw SourceError("\(url): \(error)") }
        }
        defer { if shared == nil { client.shutdown() } }
        do {
            let r = try await client.get(url, range: range.map { "bytes=\($0.offset)-\($0.offset + $0.length - 1)" }, whole: true)
            guard (200..<300).contains(r.head.status) else {
                throw SourceError("\(url): \(r.head.statusLine)")
            }
            if let range, r.head.status == 200 {
                guard range.offset + range.length <= r.body.count else {
                    throw SourceError("\(url): shorter than the range \(range.length)@\(range.offset)")
                }
                return Data(r.body[range.offset..<(range.offset + range.length)])
            }
            return Data(r.body)
        } catch let e as SourceError {
            throw e
        } catch let e as UpstreamError {
            throw SourceError(e.cause == .timeout ? "\(url): timed out (no data for \(Int(timeout)) s)" : e.description)
        } catch {
            throw SourceError("\(url): \(error)")
        }
    }

    /// A client with the Loader's options and `timeout` for connecting and reading, on the process's one event-loop group
    /// (DECISIONS.md, "One event-loop group").
    static func makeClient(timeout: TimeInterval, upstream: UpstreamOptions) throws -> UpstreamClient {
        var o = upstream
        o.connectTimeout = timeout
        o.readTimeout = timeout
        return try UpstreamClient(group: MultiThreadedEventLoopGroup.singleton, options: o)
    }
}
