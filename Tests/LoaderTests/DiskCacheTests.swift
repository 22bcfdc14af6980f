import Crypto
import Foundation
import NIOConcurrencyHelpers
import TestSupport
import Testing
@testable import Loader
@testable import LoaderCore
@testable import Origin
import NIOCore
import LoaderEvents

@Suite("Cache policy: keys, spans, sizes, eviction, the head a stored answer is served with")
struct CachePolicyTests {
    @Test("a Range is the whole resource, a tail or a span; anything else is not cached")
    func spans() {
        #expect(RequestedSpan(range: nil) == .whole(asRange: false))
        #expect(RequestedSpan(range: "bytes=0-") == .whole(asRange: true))
        #expect(RequestedSpan(range: "bytes=100-") == .from(100))
        #expect(RequestedSpan(range: "bytes=10-19") == .span(10, 19))
        #expect(RequestedSpan(range: "bytes=0-1,5-9") == nil && RequestedSpan(range: "bytes=-500") == nil)
        #expect(RequestedSpan(range: "bytes=19-10") == nil)
        #expect(RequestedSpan.span(10, 19).bounds(length: 15) == 10..<15 && RequestedSpan.from(20).bounds(length: 15) == nil)
    }

    @Test("Content-Range is read and written as RFC 9110 §14.4 spells it")
    func contentRange() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(first: 100, last: 199, total: 1000))
        #expect(ContentRange("bytes 0-9/*")?.total == nil && ContentRange("bytes */1000") == nil)
        #expect(ContentRange(first: 0, last: 9, total: 10).header == "bytes 0-9/10")
    }

    @Test("the key leaves out the named query parameters, and names a span")
    func keys() {
        let a = CachePolicy.key(url: "http://h/s.ts?token=abc&v=2&exp=9", span: .whole(asRange: true), ignoring: ["token", "exp"])
        let b = CachePolicy.key(url: "http://h/s.ts?token=xyz&v=2&exp=1", span: .whole(asRange: false), ignoring: ["token", "exp"])
        #expect(a == b && a == "http://h/s.ts?v=2")
        #expect(CachePolicy.key(url: "http://h/s.ts?token=a", span: .whole(asRange: false), ignoring: ["token"]) == "http://h/s.ts")
        #expect(CachePolicy.key(url: "http://h/s.ts?token=a", span: .whole(asRange: false), ignoring: []) == "http://h/s.ts?token=a")
        #expect(CachePolicy.key(url: "http://h/s.mp4", span: .span(0, 99), ignoring: []) == "http://h/s.mp4#bytes=0-99")
        #expect(CachePolicy.fileName(a).count == 64 && !CachePolicy.fileName(a).contains("s.ts"))
    }

    @Test("sizes in binary units")
    func sizes() {
        #expect(CachePolicy.size("2G") == 2 * 1_073_741_824 && CachePolicy.size("500M") == 500 * 1_048_576)
        #expect(CachePolicy.size("64k") == 65_536 && CachePolicy.size("1.5GiB") == 1_610_612_736 && CachePolicy.size("4096") == 4096)
        #expect(CachePolicy.size("0") == nil && CachePolicy.size("big") == nil && CachePolicy.size("-1G") == nil)
    }

    @Test("eviction takes the least recently used first, never one being written, until the rest fits")
    func eviction() {
        let stored = [
            CachePolicy.Stored(name: "old", bytes: 40, lastUse: 1), CachePolicy.Stored(name: "mid", bytes: 40, lastUse: 2),
            CachePolicy.Stored(name: "new", bytes: 40, lastUse: 3),
        ]
        #expect(CachePolicy.evict(stored, limit: 120).isEmpty)
        #expect(CachePolicy.evict(stored, limit: 100) == ["old"])
        #expect(CachePolicy.evict(stored, limit: 50) == ["old", "mid"])
        #expect(CachePolicy.evict(stored, limit: 50, keep: ["old"]) == ["mid", "new"])
    }

    @Test("a stored body is served 200 without Range and 206 with its Content-Range with one")
    func heads() {
        let origin = [("Content-Type", "video/mp2t"), ("Content-Length", "1000"), ("Content-Range", "bytes 0-999/1000")]
        let plain = CachePolicy.head(headers: origin, length: 1000, span: .whole(asRange: false))
        #expect(plain?.status == 200 && plain?.headers.contains { $0 == ("Content-Range", "bytes 0-999/1000") } == false)
        #expect(plain?.headers.contains { $0 == ("Content-Length", "1000") } == true)
        let tail = CachePolicy.head(headers: origin, length: 1000, span: .from(600))
        #expect(tail?.status == 206 && tail?.headers.contains { $0 == ("Content-Range", "bytes 600-999/1000") } == true)
        #expect(tail?.headers.contains { $0 == ("Content-Length", "400") } == true)
        #expect(CachePolicy.head(headers: origin, length: 1000, span: .from(1000)) == nil)
    }

    @Test("sealed key bytes open only with the same vault key")
    func sealing() throws {
        let vault = SymmetricKeyBytes.make()
        let key: [UInt8] = Array(0..<16)
        let sealed = try KeySeal.seal(key, with: vault)
        #expect(sealed.count > 16 && !sealed.contains(run: key))
        #expect(try KeySeal.open(sealed, with: vault) == key)
        #expect(throws: (any Error).self) { try KeySeal.open(sealed, with: SymmetricKeyBytes.make()) }
    }
}

@Suite("The disk cache in the upstream client, against the embedded origin over real sockets", .serialized)
struct DiskCacheTests {
    static let origin = TestOrigins.start(startedAt: 0)
    var base: String { Self.origin.httpBase }
    var state: OriginState { Self.origin.router.state }

    static func cache(limit: Int = 1 << 30, ignoring: Set<String> = [], offline: Bool = false, in dir: String? = nil) throws -> (
        DiskCache, String
    ) {
        let d = dir ?? FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-cache-\(UUID().uuidString)").path
        let c = try DiskCache(
            CacheOptions(directory: d, limit: limit, ignoredQuery: ignoring, offline: offline, vaultPath: d + "-vault/vault.key"))
        return (c, d)
    }

    func client(_ cache: DiskCache) throws -> UpstreamClient {
        var o = UpstreamOptions()
        o.retryBackoff = 0.05
        o.retries = 0
        o.cache = cache
        return try UpstreamClient(group: ClientOrigins.group, options: o)
    }

    func requests(since mark: Int, _ suffix: String) -> [String] {
        state.log(since: mark).filter { $0.path.hasSuffix(suffix) }.map { $0.range ?? "-" }
    }

    @Test("a second GET is a hit: nothing reaches the origin, the same bytes, 200 without Range and 206 with bytes=0-")
    func hits() async throws {
        let (cache, _) = try Self.cache()
        let c = try client(cache)
        defer { c.shutdown() }
        let url = "\(base)/vod-ts/v144/seg1.ts"
        let first = try await c.get(url, range: "bytes=0-", cache: .media)
        #expect(first.head.status == 206 && first.head.cache == .miss)
        let mark = state.log().count
        let streamed = NIOLockedValueBox([UInt8]())
        let again = try await c.get(url, cache: .media, onBody: { b in streamed.withLockedValue { $0 += b.readableBytesView } })
        #expect(again.head.cache == .hit && again.head.status == 200 && again.head.savedBytes == first.body.count)
        #expect(again.body == first.body && streamed.withLockedValue { $0 } == first.body)
        let ranged = try await c.get(url, range: "bytes=0-", cache: .media)
        #expect(ranged.head.status == 206 && ranged.head.header("content-range") == "bytes 0-\(first.body.count - 1)/\(first.body.count)")
        // A span is cut out of the whole.
        let span = try await c.get(url, range: "bytes=188-375", cache: .media)
        #expect(span.head.status == 206 && span.body == Array(first.body[188...375]) && span.head.cache == .hit)
        #expect(requests(since: mark, "seg1.ts").isEmpty, "the origin was asked again: \(requests(since: mark, "seg1.ts"))")
    }

    @Test("a body cut off is resumed with Range for the rest only, and the whole is what the origin serves")
    func resume() async throws {
        defer { state.clearFaults() }
        let (cache, _) = try Self.cache()
        let c = try client(cache)
        defer { c.shutdown() }
        let url = "\(base)/vod-fmp4/v240/seg2.m4s"
        _ = state.add(
            Fault(
                id: 0, kind: .truncate, target: .segment, status: 200, ms: 0, scenario: "vod-fmp4", rendition: "v240", msn: 2, remaining: 1,
                since: 0))
        let mark = state.log().count
        await #expect(throws: UpstreamError.self) { _ = try await c.get(url, range: "bytes=0-", cache: .media) }
        let whole = try await c.get(url, range: "bytes=0-", cache: .media)
        #expect(whole.head.cache == .resumed && whole.head.savedBytes > 0, "\(String(describing: whole.head.cache))")
        #expect(whole.head.status == 206 && whole.body.count == whole.bytes)
        let asked = requests(since: mark, "seg2.m4s")
        #expect(asked == ["bytes=0-", "bytes=\(whole.head.savedBytes)-"], "\(asked)")
        // What the player got is the origin's body, byte for byte; and it is now whole in the cache.
        var o = UpstreamOptions()
        o.retries = 0
        let plain = try UpstreamClient(group: ClientOrigins.group, options: o)
        defer { plain.shutdown() }
        #expect(whole.body == (try await plain.get(url)).body)
        let hit = try await c.get(url, cache: .media)
        #expect(hit.head.cache == .hit && hit.body == whole.body)
    }

    @Test("keys are kept sealed: no key byte (raw or hex) in the cache, the vault owner-only, the key back on a hit")
    func keys() async throws {
        let (cache, dir) = try Self.cache()
        let c = try client(cache)
        defer { c.shutdown() }
        let url = "\(base)/keys/aes-vod/k0.key"
        let first = try await c.get(url, secret: true, cache: .key)
        #expect(first.head.status == 200 && first.body.count == 16)
        let hit = try await c.get(url, secret: true, cache: .key)
        #expect(hit.head.cache == .hit && hit.body == first.body)
        let hex = first.body.map { String(format: "%02x", $0) }.joined()
        for f in try FileManager.default.contentsOfDirectory(atPath: dir + "/v1") {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/v1/" + f)))
            #expect(!bytes.contains(run: first.body), "\(f) holds the key")
            #expect(!String(decoding: bytes, as: UTF8.self).lowercased().contains(hex), "\(f) holds the key as hex")
        }
        let perms = try FileManager.default.attributesOfItem(atPath: dir + "-vault/vault.key")[.posixPermissions] as? Int
        #expect(perms == 0o600)
    }

    @Test("least recently used out first, by size")
    func lru() async throws {
        var o = UpstreamOptions()
        o.retries = 0
        let plain = try UpstreamClient(group: ClientOrigins.group, options: o)
        defer { plain.shutdown() }
        var size: [Int] = []
        for i in 0..<5 { size.append(try await plain.get("\(base)/vod-ts/v144/seg\(i).ts").body.count) }
        // Room for all five but one byte: the fifth pushes out exactly the least recently used.
        let limit = size.reduce(0, +) - 1
        let (cache, _) = try Self.cache(limit: limit)
        let c = try client(cache)
        defer { c.shutdown() }
        for i in 0..<4 { _ = try await c.get("\(base)/vod-ts/v144/seg\(i).ts", cache: .media) }
        // seg0 used again: seg1 is now the least recently used.
        #expect(try await c.get("\(base)/vod-ts/v144/seg0.ts", cache: .media).head.cache == .hit)
        _ = try await c.get("\(base)/vod-ts/v144/seg4.ts", cache: .media)
        #expect(cache.usage.bytes <= limit && cache.usage.entries == 4, "\(cache.usage), limit \(limit)")
        for i in [0, 2, 3, 4] { #expect(try await c.get("\(base)/vod-ts/v144/seg\(i).ts", cache: .media).head.cache == .hit, "seg\(i)") }
        #expect(try await c.get("\(base)/vod-ts/v144/seg1.ts", cache: .media).head.cache == .miss)
    }

    @Test("--cache-ignore-query: another token is the same entry")
    func ignoredQuery() async throws {
        let (cache, _) = try Self.cache(ignoring: ["token"])
        let c = try client(cache)
        defer { c.shutdown() }
        #expect(try await c.get("\(base)/vod-ts/v144/seg2.ts?token=a", cache: .media).head.cache == .miss)
        #expect(try await c.get("\(base)/vod-ts/v144/seg2.ts?token=b", cache: .media).head.cache == .hit)
    }

    @Test("playlists: a VOD's (ENDLIST) is a hit, a live one is asked again; offline serves both and names what is missing")
    func playlistsAndOffline() async throws {
        let (cache, dir) = try Self.cache()
        let c = try client(cache)
        defer { c.shutdown() }
        let vod = "\(base)/vod-ts/v144/index.m3u8"
        let live = "\(base)/live-ts/v144/index.m3u8"
        _ = try await c.get(vod, cache: .playlist)
        _ = try await c.get(live, cache: .playlist)
        #expect(try await c.get(vod, cache: .playlist).head.cache == .hit)
        #expect(try await c.get(live, cache: .playlist).head.cache == .miss)
        let (offline, _) = try Self.cache(offline: true, in: dir)
        let o = try client(offline)
        defer { o.shutdown() }
        let mark = state.log().count
        #expect(try await o.get(live, cache: .playlist).head.cache == .hit)
        do {
            _ = try await o.get("\(base)/vod-ts/v144/seg9.ts", cache: .media)
            Issue.record("a segment never fetched was served offline")
        } catch {
            #expect(error.cause == .offline && error.description.contains("seg9.ts") && error.description.contains("not in the cache"))
        }
        #expect(state.log(since: mark).isEmpty, "offline asked the origin")
    }
}

/// Random vault keys for the sealing tests.
enum SymmetricKeyBytes {
    static func make() -> SymmetricKey { SymmetricKey(size: .bits256) }
}

extension Array where Element == UInt8 {
    /// True when `run` appears in these bytes, contiguous.
    func contains(run: [UInt8]) -> Bool {
        guard !run.isEmpty, run.count <= count else { return run.isEmpty }
        return (0...(count - run.count)).contains { i in self[i..<(i + run.count)].elementsEqual(run) }
    }
}
