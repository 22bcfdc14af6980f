import Foundation
import Origin
import Recording
import Testing

/// An origin of its own: the recorded session's faults touch no other suite.
enum RecordOrigin {
    static let server = AppOrigin.own()
    static var base: String { server.httpBase }
    static var state: OriginState { server.router.state }
}

@Suite("--record: a faulty session into one SQLite file, as the origin saw it", .serialized)
struct RecordTests {
    @Test("monitor --record keeps every exchange (500 twice, 404 once, a truncated body), every event line and the commands")
    func faultySession() async throws {
        let state = RecordOrigin.state
        state.clearFaults()
        defer { state.clearFaults() }
        let dir = try CLI.directory(["cmds": "3 pin 1\n"])
        let file = dir.appendingPathComponent("session.sqlite").path
        func fault(_ kind: Fault.Kind, status: Int, msn: Int, count: Int) {
            _ = state.add(
                Fault(
                    id: 0, kind: kind, target: .segment, status: status, ms: 0, scenario: "vod-ts", rendition: nil, msn: msn,
                    remaining: count, since: 0))
        }
        fault(.status, status: 500, msn: 1, count: 2)
        fault(.status, status: 404, msn: 3, count: 1)
        fault(.truncate, status: 200, msn: 5, count: 1)
        let mark = state.log().count
        let r = try await MonitorRun.run([
            "\(RecordOrigin.base)/vod-ts/master.m3u8", "--duration", "8", "--record", file, "--commands",
            dir.appendingPathComponent("cmds").path,
        ])
        #expect(r.status == 0, "\(r.stderr.suffix(400))")
        let f = try RecordingFile(path: file)
        let meta = try f.meta()
        #expect(meta["command"] == "monitor" && meta["urls"]?.contains("/vod-ts/master.m3u8") == true, "\(meta)")
        // Every request the origin answered is in the recording, in the same order for each URL, with the same status.
        let origin = state.log().dropFirst(mark)
        let recorded = try f.exchanges()
        func byPath(_ rows: [(String, Int?)]) -> [String: [Int?]] { Dictionary(grouping: rows, by: \.0).mapValues { $0.map(\.1) } }
        let seen = byPath(origin.map { ($0.path, Optional($0.status)) })
        let kept = byPath(recorded.map { (URLComponents(string: $0.url)?.path ?? $0.url, $0.status) })
        #expect(kept == seen, "recorded \(kept.count) URLs, the origin answered \(seen.count)")
        let failures = recorded.filter { $0.status != 200 || $0.failure != nil }.map { "\($0.status ?? 0) \($0.failure ?? "-")" }
        #expect(failures.filter { $0.hasPrefix("500") }.count == 2 && failures.contains("404 -"), "\(failures)")
        #expect(failures.contains("200 truncated"), "the cut body is kept as cut: \(failures)")
        // Bodies: each segment's bytes are what the origin served.
        let seg = try #require(recorded.first { $0.url.hasSuffix(".ts") && [200, 206].contains($0.status) && $0.failure == nil })
        let served = [UInt8](try CLI.tool("curl", ["-s", seg.url] + (seg.range.map { ["-H", "Range: \($0)"] } ?? [])))
        #expect(try f.body(#require(seg.body)) == served)
        // The events are the lines the monitor wrote; the command is kept with its time.
        let events = try f.events()
        #expect(events.count == r.events.count, "\(events.count) recorded, \(r.events.count) written")
        #expect(Set(events.map(\.name)) == Set(r.events.compactMap { $0["event"] as? String }))
        let inputs = try f.inputs()
        #expect(inputs.count == 1 && inputs[0].command.contains("pin") && abs(inputs[0].t - 3) < 0.5, "\(inputs)")
        // A standard tool reads it.
        let sql = try CLI.runTool("sqlite3", [file, "SELECT count(*) FROM exchange WHERE status = 500"])
        #expect(sql.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(sql)")
        // A second run never writes over it.
        let again = try await MonitorRun.run(["\(RecordOrigin.base)/vod-ts/master.m3u8", "--duration", "2", "--record", file])
        #expect(again.status == 2)
        #expect(again.named("error").contains { ($0["message"] as? String)?.contains("exists") == true }, "\(again.events.prefix(2))")
        #expect(try RecordingFile(path: file).events().count == events.count, "the first recording is left as it was")
    }
}
