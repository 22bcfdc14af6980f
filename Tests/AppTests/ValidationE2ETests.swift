import Foundation
import Origin
import Testing

/// The reload rules of a live playlist checked as a stream plays (docs/VALIDATION.md): `monitor`'s `violation` events,
/// through real libmpv, on the embedded origin's faults.
@Suite("Live playlists that break the reload rules: one violation event per rule broken, none on a clean stream")
struct ValidationE2ETests {
    var state: OriginState { CueOrigin.server.router.state }

    @Test("segments renamed under their MSNs, then the media sequence restarted: each said once with its rule and section")
    func renamedThenRestarted() async throws {
        let (client, renamed) = ClientFault.later(state, 4, .uriswap, target: .playlist, status: 0, on: "cam-a", for: 6)
        let r = try await MonitorRun.run(["\(CueOrigin.base)/cam-a/cam-a/index.m3u8?client=\(client)", "--duration", "14"])
        renamed.cancel()
        _ = await renamed.value
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
        let (client, reset) = ClientFault.later(state, 4, .reset, target: .playlist, status: 0, on: "cam-b", for: 30)
        let r = try await MonitorRun.run(["\(CueOrigin.base)/cam-b/cam-b/index.m3u8?client=\(client)", "--duration", "10"])
        reset.cancel()
        _ = await reset.value
        let v = r.named("violation")
        #expect(v.map { $0["rule"] as? String } == ["msn-backwards"], "\(v)")
        #expect((v.first?["message"] as? String)?.hasSuffix("to 0 (a new numbering: the stream restarted without ending)") == true)
        let clean = try await MonitorRun.run(["\(CueOrigin.base)/cam-a/cam-a/index.m3u8", "--duration", "8"])
        #expect(clean.named("violation").isEmpty, "\(clean.named("violation"))")
    }
}
