import Foundation
import LoaderEvents
import Testing
@testable import Recording
import NIOConcurrencyHelpers

@Suite("Recordings: one SQLite file per session, read back as written")
struct RecorderTests {
    func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-rec-\(UUID().uuidString).sqlite").path
    }

    func exchange(
        _ url: String, at sent: Double, status: Int? = 200, body: [UInt8], secret: Bool = false, failure: String? = nil, attempt: Int = 0
    ) -> UpstreamExchange {
        UpstreamExchange(
            url: url, range: nil, attempt: attempt, secret: secret, sent: sent, status: status, headers: [("Content-Type", "video/mp2t")],
            ttfb: status == nil ? nil : 0.012, seconds: 0.05, bytes: body.count, failure: failure, detail: failure.map { "\(url): \($0)" },
            body: body)
    }

    @Test("exchanges, events and commands come back in order; a body is stored once; a key's bytes never")
    func roundTrip() throws {
        let file = path()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        let r = try Recorder(path: file, meta: [("command", "monitor"), ("urls", "[\"http://o/a.m3u8\"]")], started: started) { _ in }
        let seg = [UInt8](repeating: 0x47, count: 5000)
        let tap = r.tap(pane: 0)
        tap(exchange("http://o/seg1.ts", at: 1_800_000_001, status: 500, body: Array("oops".utf8)))
        tap(exchange("http://o/seg1.ts", at: 1_800_000_001.5, body: seg, attempt: 1))
        tap(exchange("http://o/seg1.ts", at: 1_800_000_002, body: seg))
        tap(exchange("http://o/seg2.ts", at: 1_800_000_003, body: Array(seg.prefix(1000)), failure: "truncated"))
        tap(exchange("http://o/key1", at: 1_800_000_004, body: [UInt8](repeating: 7, count: 16), secret: true))
        tap(exchange("http://o/seg3.ts", at: 1_800_000_005, status: nil, body: [], failure: "connect"))
        r.event(t: 1.2, name: "player", pane: 0, json: #"{"event":"player","t":1.2}"#)
        r.input(t: 3, pane: nil, command: "pin(1)")
        r.close()

        let f = try RecordingFile(path: file)
        let meta = try f.meta()
        #expect(meta["format"] == "hlstui-recording" && meta["version"] == "1" && meta["command"] == "monitor")
        #expect(meta["started"]?.hasPrefix("2027-01-15T08:00:00") == true, "\(meta["started"] ?? "")")
        let xs = try f.exchanges()
        #expect(
            xs.map(\.url) == [
                "http://o/seg1.ts", "http://o/seg1.ts", "http://o/seg1.ts", "http://o/seg2.ts", "http://o/key1", "http://o/seg3.ts",
            ])
        #expect(xs.map(\.status) == [500, 200, 200, 200, 200, nil])
        #expect(xs.map(\.attempt) == [0, 1, 0, 0, 0, 0])
        #expect(xs.map(\.failure) == [nil, nil, nil, "truncated", nil, "connect"])
        #expect(abs(xs[0].t - 1) < 0.001 && abs(xs[5].t - 5) < 0.001)
        #expect(xs[1].body == xs[2].body && xs[1].body != nil, "the same bytes, one body")
        #expect(try f.body(xs[1].body!) == seg)
        #expect(try f.body(xs[3].body!) == Array(seg.prefix(1000)), "what came before the cut")
        #expect(xs[4].secret && xs[4].body == nil && xs[4].bytes == 16, "a key: its size, never its bytes")
        let storage = try f.storage()
        #expect(storage.bodies == 3 && storage.bytes == 4 + 5000 + 1000)
        #expect(try f.events().map(\.name) == ["player"])
        #expect(try f.inputs().map(\.command) == ["pin(1)"])
        // Nothing in the file holds the key's bytes.
        let raw = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(raw.range(of: Data(repeating: 7, count: 16)) == nil)
    }

    @Test("an existing file is never written over; a file that is not a recording says so")
    func refusals() throws {
        let file = path()
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("not sqlite".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: RecordingError.self) { try Recorder(path: file, meta: []) { _ in } }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not sqlite", "left as it was")
        do {
            _ = try RecordingFile(path: file)
            Issue.record("opened a file that is not a recording")
        } catch {
            #expect(error.description.contains("is not an hlstui recording"), "\(error)")
        }
        #expect(throws: RecordingError.self) { try RecordingFile(path: file + ".missing") }
    }

    @Test("a disk that fills up stops the recording with one line naming the cause; the caller goes on")
    func diskFull() throws {
        let file = path()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let said = Said()
        let r = try Recorder(path: file, meta: [], started: Date(), maxPages: 40) { said.add($0) }
        let tap = r.tap(pane: 0)
        for i in 0..<20 {
            tap(exchange("http://o/seg\(i).ts", at: Date().timeIntervalSince1970, body: [UInt8](repeating: UInt8(i), count: 50_000)))
        }
        r.close()
        tap(exchange("http://o/late.ts", at: Date().timeIntervalSince1970, body: [1]))
        #expect(said.lines.count == 1, "\(said.lines)")
        #expect(said.lines.first?.contains("stopped: database or disk is full") == true, "\(said.lines)")
        #expect(said.lines.first?.contains(file) == true)
    }
}

final class Said: Sendable {
    private let all = NIOLockedValueBox<[String]>([])
    func add(_ s: String) { all.withLockedValue { $0.append(s) } }
    var lines: [String] { all.withLockedValue { $0 } }
}
