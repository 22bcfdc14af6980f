import HLS
import Testing
@testable import Loader

@Suite("The key store over a long session")
struct KeyStoreTests {
    @Test("700 keys asked for: the newest are kept, each fetched once; one left long ago is forgotten, fetched again if asked")
    func bounded() async throws {
        let uris = (0..<700).map { "https://keys.example.invalid/k\($0).key" }
        var overrides: [String: [UInt8]] = [:]
        for (i, u) in uris.enumerated() { overrides[u] = Array(repeating: UInt8(i % 256), count: 16) }
        let client = try ClientOrigins.client()
        defer { client.shutdown() }
        let store = KeyStore(client: client, overrides: overrides, command: nil, emit: { _ in }, clock: { 0 })
        func ask(_ u: String) async -> [UInt8]? {
            try? await store.key(u, method: .aes128, keyFormat: "identity", msns: nil, prefetch: false).get()
        }
        for u in uris { _ = await ask(u) }
        let kept = await store.entries.count
        #expect(kept >= 512 && kept <= 640, "\(kept) keys kept")
        let recent = await ask(uris[699])
        let recentFetches = await store.fetchCount[uris[699]]
        #expect(recent == overrides[uris[699]] && recentFetches == 1, "a recent key: cached")
        let oldestKept = await store.has(uris[0])
        #expect(!oldestKept, "the oldest is forgotten")
        let again = await ask(uris[0])
        let keptAgain = await store.has(uris[0])
        #expect(again == overrides[uris[0]] && keptAgain, "asked again, it is fetched again")
    }
}
