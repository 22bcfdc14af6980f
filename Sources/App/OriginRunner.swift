import Foundation
import NIOConcurrencyHelpers
import HLS
import HLSReport
import Origin

/// What `hlstui origin` / `hlstui demo` ask for.
public struct OriginOptions: Sendable {
    public var port: Int = 0
    public var tls = false
    public var tlsPort = 0
    public var scenarios: [String] = []
    public var keyLatencyMs = 0
    public var cache: String?
    public var duration: Double?
    public var quiet = false
    public init() {}
}

/// Runs the embedded origin from the command line: makes or loads the media, serves, prints URLs and the request log.
public enum OriginRunner {
    /// Loads media and starts the server, telling progress on stderr.
    public static func start(_ o: OriginOptions, log: (@Sendable (RequestRecord) -> Void)? = nil) throws -> OriginServer {
        let cache = o.cache.map { URL(fileURLWithPath: $0) } ?? MediaLibrary.defaultCache
        let media = try MediaLibrary.load(cache: cache) { line in
            FileHandle.standardError.write(Data("hlstui: \(line)\n".utf8))
        }
        if media.generationSeconds > 0 {
            FileHandle.standardError.write(
                Data(String(format: "hlstui: media made in %.1f s, cached in %@\n", media.generationSeconds, media.directory.path).utf8))
        }
        let state = OriginState(startedAt: Date().timeIntervalSince1970, keyLatencyMs: o.keyLatencyMs, onRequest: log)
        return try OriginServer.start(router: OriginRouter(media: media, state: state), port: o.port, tls: o.tls, tlsPort: o.tlsPort)
    }

    /// The lines `hlstui origin` prints about where it serves.
    public static func banner(_ server: OriginServer, scenarios: [String]) -> [String] {
        var lines = ["hlstui origin on \(server.httpBase)" + (server.httpsBase.map { " and \($0)" } ?? "")]
        if let id = server.identity {
            lines.append("TLS: self-signed certificate, SHA-256 fingerprint \(id.fingerprint)")
            lines.append("TLS: public-key pin (for --pin-sha256) \(id.spkiPin)")
        }
        let chosen = scenarios.isEmpty ? Scenario.all : Scenario.all.filter { scenarios.contains($0.name) }
        for s in chosen {
            let q = s.name == "define" ? "?token=demo" : ""
            lines.append("  \(server.httpBase)/\(s.name)/master.m3u8\(q)  \(s.summary)")
            if let b = server.httpsBase { lines.append("  \(b)/\(s.name)/master.m3u8\(q)") }
        }
        if scenarios.isEmpty || scenarios.contains("live-ts") {
            lines.append(
                "  \(server.httpBase)/steered/master.m3u8  live-ts on two CDNs (pathways on \(OriginServer.hosts[0]) and \(OriginServer.hosts[1])), content steering"
            )
        }
        lines.append("control: \(server.httpBase)/control/fault?kind=status&status=404&target=segment  (see \(server.httpBase)/ for all)")
        return lines
    }

    /// Blocks until SIGINT/SIGTERM or `duration` seconds.
    public static func wait(duration: Double?) async {
        var sources: [any DispatchSourceSignal] = []
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            let resume: @Sendable () -> Void = { if once.set() { c.resume() } }
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                src.setEventHandler(handler: resume)
                src.resume()
                sources.append(src)
            }
            if let duration { DispatchQueue.global().asyncAfter(deadline: .now() + duration, execute: resume) }
        }
        // The signals stay ignored: the caller is stopping.
        for src in sources { src.cancel() }
    }
}

/// A flag that can be set once, from any thread.
final class OnceFlag: Sendable {
    private let done = NIOLockedValueBox(false)
    /// True the first time only.
    func set() -> Bool {
        done.withLockedValue { d in
            defer { d = true }
            return !d
        }
    }
}
