import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HLS
@testable import Origin
import TestSupport

/// One origin for the whole test process: real ffmpeg media (cached under .build), real HTTP and HTTPS on 127.0.0.1.
enum TestOrigin {
    static let packageRoot = TestPackage.root
    static let cache = TestPackage.mediaCache

    static let server = TestOrigins.start(tls: true)

    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

struct HTTPResult {
    var status: Int
    var body: [UInt8]
    var headers: [String: String]
    var seconds: Double
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A GET over real HTTP with a fresh session (no shared caches), throwing on transport errors.
func get(_ url: String, headers: [String: String] = [:], timeout: Double = 10) async throws -> HTTPResult {
    let config = URLSessionConfiguration.ephemeral
    config.timeoutIntervalForRequest = timeout
    config.timeoutIntervalForResource = timeout
    config.requestCachePolicy = .reloadIgnoringLocalCacheData
    let session = URLSession(configuration: config)
    defer { session.finishTasksAndInvalidate() }
    var req = URLRequest(url: URL(string: url)!)
    for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
    let start = Date()
    let (data, resp) = try await session.data(for: req)
    let http = resp as! HTTPURLResponse
    var h: [String: String] = [:]
    for (k, v) in http.allHeaderFields { h[String(describing: k).lowercased()] = String(describing: v) }
    return HTTPResult(status: http.statusCode, body: [UInt8](data), headers: h, seconds: Date().timeIntervalSince(start))
}

/// `ref` resolved against `base` (RFC 3986), as a player would.
func resolve(_ ref: String, against base: String) -> String {
    URL(string: ref, relativeTo: URL(string: base)!)!.absoluteString
}

/// Runs a program found on PATH and returns its exit status and output (`ChildProcess`).
func runProcess(_ exe: String, _ args: [String], timeout: Double = 60) async throws -> (status: Int32, output: String) {
    let r = try await ChildProcess.run(tool: exe, args, timeout: timeout)
    return (r.status, r.output)
}
