import Foundation
import LoaderCore
import NIOConcurrencyHelpers

/// A progressive file in the disk cache, kept by byte ranges as the player reads it, in any order (DECISIONS.md "Progressive
/// files"): a sparse body written at each range's offset and, in its record, the ranges it holds. The record is saved after the
/// bytes it names are on disk (at most 0.2 s after them, by a task the Loader owns, and at each piece's end), so after a crash
/// it may hold less than the body, never more.
final class SpanFile: Sendable {
    let cache: DiskCache
    let name: String
    /// The body's file (-1 once a write failed), its record, and whether a save of the record is due.
    struct State {
        var fd: Int32
        var meta: CacheMeta
        var saving = false
    }
    private let state: NIOLockedValueBox<State>

    init(cache: DiskCache, name: String, fd: Int32, meta: CacheMeta) {
        (self.cache, self.name) = (cache, name)
        state = NIOLockedValueBox(State(fd: fd, meta: meta))
    }

    /// The file's length, once an answer said it.
    var length: Int? { state.withLockedValue { $0.meta.length } }
    var spans: SpanSet { state.withLockedValue { $0.meta.spans ?? SpanSet() } }
    var contentType: String? { state.withLockedValue { $0.meta.headerPairs.first { $0.0.lowercased() == "content-type" }?.1 } }

    /// Records the file's length and the head the origin gave (from its first answer); a length that differs from the one kept
    /// means the file changed upstream: what was held is dropped.
    func learn(length: Int, headers: [(String, String)]) {
        state.withLockedValue { s in
            if let known = s.meta.length, known != length {
                s.meta.spans = SpanSet()
                _ = ftruncate(s.fd, 0)
            }
            s.meta.length = length
            s.meta.headers = headers.filter { ["content-type", "etag", "last-modified"].contains($0.0.lowercased()) }.map { [$0.0, $0.1] }
        }
    }

    /// The bytes of `r`, when they are all held.
    func read(_ r: Range<Int>) -> [UInt8]? {
        state.withLockedValue { s in
            guard s.fd >= 0, (s.meta.spans ?? SpanSet()).covers(r) else { return nil }
            return DiskCache.read(s.fd, count: r.count, at: r.lowerBound)
        }
    }

    /// Writes bytes that start at `offset`; a write that fails (a full disk) stops keeping this file, the player is still served.
    /// True when a save of the record became due: the caller starts `delayedSave` as a task it owns.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        state.withLockedValue { s in
            guard s.fd >= 0, bytes.count > 0 else { return false }
            var done = 0
            while done < bytes.count {
                let n = pwrite(s.fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
                guard n > 0 else {
                    close(s.fd)
                    s.fd = -1
                    return false
                }
                done += n
            }
            var spans = s.meta.spans ?? SpanSet()
            spans.insert(offset..<(offset + bytes.count))
            s.meta.spans = spans
            defer { s.saving = true }
            return !s.saving
        }
    }

    /// The save a write made due: 0.2 s later, or at once when its task is cancelled (its Loader stopped).
    func delayedSave() async {
        try? await Task.sleep(for: .milliseconds(200))
        save()
    }

    /// Saves the record (the ranges held) and tells the cache how much it holds.
    func save() {
        let (m, held) = state.withLockedValue { s -> (CacheMeta, Int) in
            s.saving = false
            let held = s.meta.spans?.total ?? 0
            s.meta.complete = s.meta.length.map { held >= $0 } ?? false
            return (s.meta, held)
        }
        try? cache.write(m, name)
        cache.stored(name, bytes: held)
    }
}

extension DiskCache {
    /// The progressive file at `url`, opened (created when new) for this session.
    func spanFile(_ url: String) -> SpanFile? {
        let name = CachePolicy.fileName(key(url, span: .whole(asRange: false)) + "#spans")
        if let open = index.withLockedValue({ $0.spanFiles[name] }) { return open }
        var meta =
            FileManager.default.contents(atPath: path(name, "meta")).flatMap { try? JSONDecoder().decode(CacheMeta.self, from: $0) }
            ?? CacheMeta(
                url: url, status: 200, headers: [], length: nil, complete: false, final: false, sealed: false, etag: nil, lastModified: nil,
                spans: SpanSet())
        if meta.spans == nil { meta.spans = SpanSet() }
        let fd = open(path(name, "body"), O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { return nil }
        let file = SpanFile(cache: self, name: name, fd: fd, meta: meta)
        return index.withLockedValue { i in
            if let other = i.spanFiles[name] {
                close(fd)
                return other
            }
            i.spanFiles[name] = file
            return file
        }
    }
}
