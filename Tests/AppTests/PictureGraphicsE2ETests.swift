import Foundation
import TestSupport
import Testing

/// hlstui in a real pseudo-terminal (util-linux `script`), keys typed at set moments: every byte it writes to the terminal,
/// and its exit status, holding one of the shared player slots while it runs. (tmux draws sixel and kitty images itself or
/// not at all; these tests read what hlstui sends.)
func ptyRun(_ command: String, keys: [(after: Double, key: String)], columns: Int = 100, rows: Int = 30) async throws -> (
    output: [UInt8], status: Int32
) {
    await PlayerSlots.shared.acquire(1, "picture graphics")
    defer { Task { await PlayerSlots.shared.release(1, "picture graphics") } }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-pty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    var env = ProcessInfo.processInfo.environment
    env["TERM"] = "xterm-256color"
    env["NO_COLOR"] = nil
    let p = try RunningChild(
        URL(fileURLWithPath: "/usr/bin/script"), ["-q", "-f", "-e", "-c", "stty cols \(columns) rows \(rows); exec \(command)", file.path],
        environment: env, stdin: true)
    // Each key at its moment: a person typing into a running dashboard.
    for k in keys {
        try await Task.sleep(for: .seconds(k.after))
        p.write(k.key)
    }
    var end = await p.exit(timeout: 60)
    if end == nil { end = await p.stop() }
    return ((try? [UInt8](Data(contentsOf: file))) ?? [], end?.status ?? -1)
}

extension Array where Element == UInt8 {
    /// The ranges of every occurrence of `needle`.
    func occurrences(of needle: String) -> [Int] {
        let n = Array(needle.utf8)
        guard n.count <= count else { return [] }
        return (0...(count - n.count)).filter { i in self[i] == n[0] && Array(self[i..<(i + n.count)]) == n }
    }
}

@Suite("The picture as sixel or kitty graphics in a real pseudo-terminal", .serialized)
struct PictureGraphicsE2ETests {
    var base: String { AppOrigin.base }
    var hlstui: String { CLI.binary.path }

    @Test(
        "--picture sixel: v sends the frame as sixel images inside the picture panel, new ones as the video moves; v again repaints the screen; q exits 0"
    )
    func sixel() async throws {
        let (out, status) = try await ptyRun(
            "\(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null --picture sixel --picture-fps 2",
            keys: [(8, "v"), (6, "v"), (1, "q")])
        #expect(status == 0)
        let starts = out.occurrences(of: "\u{1B}P0;1;0q\"1;1;")
        #expect(starts.count >= 3, "\(starts.count) sixel images")
        // Each image: raster size within the panel and never more than the sampled frame (480×270 at most), placed at a saved
        // cursor position, ended with ST.
        var images: [[UInt8]] = []
        for s in starts {
            let end = try #require(Array(out[s...]).occurrences(of: "\u{1B}\\").first)
            let seq = Array(out[s..<(s + end)])
            images.append(seq)
            let head = String(decoding: seq.prefix(40), as: UTF8.self)
            let size = head.split(separator: "\"")[1].split(separator: "#")[0].split(separator: ";").compactMap { Int($0) }
            #expect(size.count == 4 && size[2] > 100 && size[2] <= 480 && size[3] > 50 && size[3] <= 270, "\(head)")
            let before = String(decoding: out[Swift.max(0, s - 16)..<s], as: UTF8.self)
            #expect(before.contains("\u{1B}7\u{1B}["), "placed at a saved cursor position: \(before.debugDescription)")
        }
        #expect(Set(images).count >= 2, "the picture changes as the video plays")
        // v again: the whole screen drawn anew (clear), so no sixel pixels stay under the log.
        let last = try #require(starts.last)
        #expect(!Array(out[last...]).occurrences(of: "\u{1B}[H\u{1B}[2J").isEmpty, "a full repaint after the last image")
        #expect(!Array(out.suffix(400)).occurrences(of: "\u{1B}[?1049l").isEmpty, "the terminal restored")
    }

    @Test("--picture kitty: v sends the frame as kitty images placed over the panel's cells; v again deletes them; q exits 0")
    func kitty() async throws {
        let (out, status) = try await ptyRun(
            "\(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null --picture kitty --picture-fps 2",
            keys: [(8, "v"), (6, "v"), (1, "q")])
        #expect(status == 0)
        let sends = out.occurrences(of: "\u{1B}_Ga=T,f=24,")
        #expect(sends.count >= 3, "\(sends.count) kitty images")
        let last = try #require(sends.last)
        let head = String(decoding: out[last..<(last + 80)], as: UTF8.self)
        #expect(head.contains(",c=") && head.contains(",r=") && head.contains(",C=1,"), "placed over cells, cursor kept: \(head)")
        #expect(!Array(out[last...]).occurrences(of: "\u{1B}_Ga=d,d=I,i=1").isEmpty, "deleted when the log comes back")
    }

    @Test("--picture auto on a terminal whose DA1 answer lists sixel (parameter 4): the picture is drawn in sixel")
    func autoSixel() async throws {
        // The terminal's answers, typed as a terminal would send them: the cell size, then DA1.
        let (out, status) = try await ptyRun(
            "\(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null --picture-fps 2",
            keys: [(1, "\u{1B}[6;16;8t\u{1B}[?63;1;2;4;6;9;15;22c"), (7, "v"), (3, "q")])
        #expect(status == 0)
        #expect(out.occurrences(of: "\u{1B}P0;1;0q").count >= 2, "drawn in sixel")
        #expect(out.occurrences(of: "▀").isEmpty, "not in half blocks")
    }

    @Test("--picture auto on a terminal that does not answer: cells, after waiting for the answer at most 1.5 s")
    func autoWithoutAnswer() async throws {
        let (out, status) = try await ptyRun(
            "\(hlstui) \(base)/cam-a/cam-a/index.m3u8 --video none --ao null", keys: [(8, "v"), (3, "q")])
        #expect(status == 0)
        #expect(!out.occurrences(of: "\u{1B}[c").isEmpty, "the terminal was asked")
        #expect(out.occurrences(of: "\u{1B}P0;1;0q").isEmpty && out.occurrences(of: "\u{1B}_Ga=T").isEmpty)
        #expect(!out.occurrences(of: "▀").isEmpty, "the picture in half blocks")
    }
}
