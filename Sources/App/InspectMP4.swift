import Foundation
import NIOConcurrencyHelpers
import JSONValue
import Loader
import MediaFormats
import NIOPosix

/// `hlstui inspect` on a progressive MP4 file or URL: where `moov` is, whether the media is fragmented, and the range
/// requests a player makes before its first frame — read with a few small range requests, never the whole file.
enum InspectMP4 {
    /// A path or URL whose name says MP4 (`.mp4`, `.m4v`, `.m4a`, `.mov`), or a file whose first box is `ftyp`.
    static func applies(_ source: String) -> Bool {
        if ProgressiveFile.named(source) { return true }
        guard !PlaylistSource.isURL(source), let h = FileHandle(forReadingAtPath: source) else { return false }
        defer { try? h.close() }
        return FragmentedMP4.startsLikeMP4([UInt8]((try? h.read(upToCount: 16)) ?? Data()))
    }

    /// Reads byte ranges of the file or URL.
    struct Reader {
        var size: Int
        var read: (Range<Int>) async throws(SourceError) -> [UInt8]
        /// Requests made (URLs) and bytes read.
        var counter: RequestCounter?
        var requests: Int { counter?.count ?? 0 }
        var bytes = 0
        /// A line when the origin answered 200 to a Range request.
        var ignoresRange = false
    }

    static func run(_ req: InspectRequest) async -> InspectOutcome {
        do throws(SourceError) {
            let (layout, reader) = try await scan(req)
            return report(layout, reader, req)
        } catch {
            return InspectOutcome(stdout: "", stderr: "hlstui inspect: \(error.description)\n", status: 2)
        }
    }

    static func scan(_ req: InspectRequest) async throws(SourceError) -> (MP4Layout, Reader) {
        let chunk = 65_536
        var reader: Reader
        var first: [UInt8]
        if PlaylistSource.isURL(req.source) {
            (reader, first) = try await urlReader(req, chunk: chunk)
        } else {
            let path = req.source.hasPrefix("file://") ? String(req.source.dropFirst(7)) : req.source
            guard let h = FileHandle(forReadingAtPath: path) else { throw SourceError("\(path): no such file, or it cannot be read") }
            let size = Int((try? h.seekToEnd()) ?? 0)
            reader = Reader(size: size) { r throws(SourceError) in
                do {
                    try h.seek(toOffset: UInt64(r.lowerBound))
                    return [UInt8](try h.read(upToCount: r.count) ?? Data())
                } catch {
                    throw SourceError("\(path): \(error.localizedDescription)")
                }
            }
            first = try await reader.read(0..<min(size, chunk))
            reader.bytes += first.count
        }
        var read = reader.bytes
        let layout = try await MP4Layout.scan(size: reader.size, first: first, chunk: chunk) { r throws(SourceError) in
            let bytes = try await reader.read(r)
            read += bytes.count
            return bytes
        }
        reader.bytes = read
        guard layout.startsLikeMP4 else {
            throw SourceError("\(req.source): not an MP4 file (no ftyp, moov or mdat box at its start)")
        }
        return (layout, reader)
    }

    /// A reader over HTTP with the Loader's client (headers, TLS trust), and the first `chunk` bytes.
    static func urlReader(_ req: InspectRequest, chunk: Int) async throws(SourceError) -> (Reader, [UInt8]) {
        var o = req.upstream
        o.connectTimeout = req.timeout
        o.readTimeout = req.timeout
        let client: UpstreamClient
        do {
            client = try UpstreamClient(group: MultiThreadedEventLoopGroup.singleton, options: o)
        } catch {
            throw SourceError("\(req.source): \(error)")
        }
        let url = req.source
        let counter = RequestCounter()
        @Sendable func get(_ r: Range<Int>) async throws(SourceError) -> (head: UpstreamHead, body: [UInt8]) {
            counter.add()
            do {
                let a = try await client.get(url, range: "bytes=\(r.lowerBound)-\(r.upperBound - 1)", keepBody: r.count)
                guard (200..<300).contains(a.head.status) else { throw SourceError("\(url): \(a.head.statusLine)") }
                return (a.head, a.body)
            } catch let e as SourceError {
                throw e
            } catch {
                throw SourceError((error as? UpstreamError)?.description ?? "\(url): \(error)")
            }
        }
        let (head, body) = try await get(0..<chunk)
        let size: Int
        var ignores = false
        if head.status == 206, let total = head.header("content-range")?.split(separator: "/").last.flatMap({ Int($0) }) {
            size = total
        } else {
            // 200: the origin sent the whole file to a Range request.
            ignores = true
            size = head.header("content-length").flatMap { Int($0) } ?? body.count
        }
        var reader = Reader(size: size) { r throws(SourceError) in
            let answer = try await get(r)
            guard answer.head.status == 206 else {
                throw SourceError("\(url): the origin answered \(answer.head.statusLine) to a Range request; it must honour Range")
            }
            return answer.body
        }
        reader.ignoresRange = ignores
        reader.bytes = body.count
        reader.counter = counter
        return (reader, body)
    }

    /// What a player's reading of this file costs, and the boxes, as text or JSON.
    static func report(_ layout: MP4Layout, _ reader: Reader, _ req: InspectRequest) -> InspectOutcome {
        var warnings: [String] = []
        if reader.ignoresRange {
            warnings.append("the origin answers Range requests with the whole file (200): a player cannot seek or resume")
        }
        if let m = layout.moov, layout.moovFirst == false {
            warnings.append(
                "moov at the end: a player needs a second round trip (bytes=\(m.offset)-\(m.offset + m.size - 1), \(size(m.size))) before its first frame; `ffmpeg -i IN -c copy -movflags +faststart OUT` moves it to the front"
            )
        }
        if layout.moov == nil && layout.complete { warnings.append("no moov box: no player can play this file") }
        if let b = layout.broken { warnings.append(b) }
        let requests = layout.playerRequests.map { r in
            r.upperBound == layout.size ? "bytes=\(r.lowerBound)-" : "bytes=\(r.lowerBound)-\(r.upperBound - 1)"
        }
        let position = layout.moovFirst.map { $0 ? "front" : "end" }
        let status: Int32 = layout.moov == nil || layout.broken != nil ? 1 : (req.strict && !warnings.isEmpty ? 1 : 0)
        let read = PlaylistSource.isURL(req.source) ? reader.requests : 0
        if req.json {
            let doc = JSONValue.object([
                ("source", .string(req.source)), ("format", .string("mp4")), ("size", .int(layout.size)), ("brand", .string(layout.brand)),
                (
                    "boxes",
                    .array(
                        layout.boxes.map { .object([("type", .string($0.type)), ("offset", .int($0.offset)), ("size", .int($0.size))]) })
                ),
                ("moov", .string(position)), ("fragmented", .bool(layout.fragmented)),
                ("playerRequests", .array(requests.map { .string($0) })), ("warnings", .array(warnings.map { .string($0) })),
                ("rangeRequests", .int(read)), ("bytesRead", .int(reader.bytes)),
            ])
            return InspectOutcome(stdout: doc.prettyText + "\n", stderr: "", status: status)
        }
        var lines = ["\(req.source): MP4, \(size(layout.size))\(layout.brand.map { ", brand \($0)" } ?? "")"]
        let shown = layout.boxes.prefix(12).map { "\($0.type) @\($0.offset) (\(size($0.size)))" }
        lines.append(
            "  boxes: " + shown.joined(separator: ", ") + (layout.boxes.count > 12 ? ", …" : "")
                + (layout.complete ? "" : ", … (not read further)"))
        switch (layout.moov, layout.moovFirst) {
        case (let m?, true?): lines.append("  moov: at the front (byte \(m.offset), \(size(m.size))), before the media")
        case (let m?, _): lines.append("  moov: at the end (byte \(m.offset) of \(layout.size), \(size(m.size))), after the media")
        default: lines.append("  moov: none found")
        }
        lines.append(
            "  fragmented: " + (layout.fragmented ? "yes (moof fragments: a player can start on the first one)" : "no (progressive)"))
        lines.append("  a player's requests before its first frame: " + requests.joined(separator: ", then "))
        if read > 0 {
            lines.append("  read with \(read) range request\(read == 1 ? "" : "s") (\(size(reader.bytes)) of \(size(layout.size)))")
        }
        for w in warnings { lines.append("  warning: \(w)") }
        return InspectOutcome(stdout: lines.joined(separator: "\n") + "\n", stderr: "", status: status)
    }

    static func size(_ n: Int) -> String {
        n >= 1_048_576
            ? String(format: "%.1f MB", Double(n) / 1_048_576) : n >= 1024 ? String(format: "%.1f kB", Double(n) / 1024) : "\(n) B"
    }
}

/// Counts a URL reader's requests (the reader's closure runs where the count cannot be kept in the value).
final class RequestCounter: Sendable {
    private let n = NIOLockedValueBox(0)
    func add() { n.withLockedValue { $0 += 1 } }
    var count: Int { n.withLockedValue { $0 } }
}
