import Foundation
import Origin
import Testing

/// The reload rules of a live playlist checked as a stream plays (docs/VALIDATION.md): `monitor`'s `violation` events,
/// through real libmpv, on the embedded origin's faults.
@Suite("Live playlists that break the reload rules: one violation event per rule broken, none on a clean stream")
struct ValidationE2ETests {
    var state: OriginState { CueOrigin.server.router.state }

    /// `camera` played `seconds`, its playlist given `kind` for this run alone from 4 s after its first request, `lasting` s.
    func run(_ camera: String, _ kind: Fault.Kind, lasting: Double, seconds: Int) async throws -> MonitorRun {
        let (client, fault) = ClientFault.later(state, 4, kind, target: .playlist, status: 0, on: camera, for: lasting)
        let r = try await MonitorRun.run(["\(CueOrigin.base)/\(camera)/\(camera)/index.m3u8?client=\(client)", "--duration", "\(seconds)"])
        fault.cancel()
        _ = await fault.value
        return r
    }

    @Test("segments renamed under their MSNs for 6 s: said when renamed and when named back, with its rule and section")
    func renamed() async throws {
        let r = try await run("cam-a", .uriswap, lasting: 6, seconds: 14)
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let v = r.named("violation")
        let rules = v.compactMap { $0["rule"] as? String }
        // Renamed when the fault begins, and back when it ends: a reload each time, every listed segment in one event.
        #expect(rules == ["uri-changed", "uri-changed"], "\(v)")
        #expect(v.allSatisfy { $0["severity"] as? String == "must" && $0["section"] as? String == "RFC 8216bis §6.2.1" })
        #expect((v.first?["message"] as? String)?.contains("?renamed=1") == true, "\(v)")
        // Played on: the same media under other names.
        #expect(r.named("error").isEmpty && r.named("skip").isEmpty, "\(r.named("skip"))")
    }

    @Test("an encoder that restarts its media sequence at 0: msn-backwards; a clean camera: nothing")
    func restarted() async throws {
        let r = try await run("cam-b", .reset, lasting: 30, seconds: 10)
        let v = r.named("violation")
        #expect(v.map { $0["rule"] as? String } == ["msn-backwards"], "\(v)")
        #expect((v.first?["message"] as? String)?.hasSuffix("to 0 (a new numbering: the stream restarted without ending)") == true)
        let clean = try await MonitorRun.run(["\(CueOrigin.base)/cam-a/cam-a/index.m3u8", "--duration", "8"])
        #expect(clean.named("violation").isEmpty, "\(clean.named("violation"))")
    }

    @Test("a playlist frozen for 6 s: playlist-stale, once, with its rule's section; nothing else")
    func frozen() async throws {
        let r = try await run("cam-a", .freeze, lasting: 6, seconds: 14)
        let v = r.named("violation")
        #expect(v.map { $0["rule"] as? String } == ["playlist-stale"], "\(v)")
        #expect(v.first?["section"] as? String == "RFC 8216bis §6.3.4" && v.first?["severity"] as? String == "should", "\(v)")
    }

    @Test("a camera listing two segments, four seconds, under three target durations: window-short, once")
    func shortWindow() async throws {
        let r = try await MonitorRun.run(["\(CueOrigin.base)/cam-a/cam-a/index.m3u8?window=2", "--duration", "8"])
        let v = r.named("violation")
        #expect(v.map { $0["rule"] as? String } == ["window-short"], "\(v)")
        #expect(v.first?["section"] as? String == "RFC 8216bis §6.2.2" && v.first?["severity"] as? String == "must", "\(v)")
    }
}
