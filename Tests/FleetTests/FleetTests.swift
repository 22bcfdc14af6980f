import Testing

@testable import Fleet

/// The fleet file, the restart backoff and the shards (pure: no player, no network; docs/FLEET.md).
@Suite("Fleet file, restart backoff and shards")
struct FleetTests {
    @Test("a fleet file: names, one URL or up to four, options with their defaults")
    func parse() throws {
        let c = try FleetConfig.parse(
            """
            metrics: 0.0.0.0:9500
            streams:
              - name: news
                url: https://example.com/news/master.m3u8
              - name: cams.2-a_b
                urls: [http://a/1.m3u8, http://b/2.m3u8]
                video: false
                maxResolution: 720
                insecure: true
                latency: 12.5
              - name: wall
                url: http://c/3.m3u8
                latency: auto
            """)
        #expect(c.metrics == "0.0.0.0:9500")
        #expect(c.streams.map(\.name) == ["news", "cams.2-a_b", "wall"])
        #expect(c.streams.map(\.latency) == [nil, .seconds(12.5), .auto])
        #expect(c.streams[0].urls == ["https://example.com/news/master.m3u8"] && c.streams[0].video && !c.streams[0].insecure)
        #expect(c.streams[0].maxResolution == nil)
        #expect(c.streams[1].urls.count == 2 && !c.streams[1].video && c.streams[1].maxResolution == 720 && c.streams[1].insecure)
    }

    @Test(
        "every problem in a fleet file is one line naming the stream and what is wrong",
        arguments: [
            ("streams: []", "fleet file: no streams"),
            ("metrics: 1", "fleet file: no streams"),
            ("streams:\n  - url: http://a/x.m3u8", "fleet file: stream 1 has no name"),
            (
                "streams:\n  - name: a b\n    url: http://a/x.m3u8",
                "fleet file: stream 1: name \"a b\" may hold only letters, digits, _ . -"
            ),
            (
                "streams:\n  - name: a\n    url: http://a/x.m3u8\n  - name: a\n    url: http://b/x.m3u8",
                "fleet file: two streams are named a"
            ),
            ("streams:\n  - name: a", "fleet file: a has no url"),
            (
                "streams:\n  - name: a\n    urls: [http://1, http://2, http://3, http://4, http://5]",
                "fleet file: a lists 5 urls, at most four"
            ),
            ("streams:\n  - name: a\n    url: ftp://a/x.m3u8", "fleet file: a: ftp://a/x.m3u8 is not an http(s) URL"),
            (
                "streams:\n  - name: a\n    url: http://a/x.m3u8\n    maxResolution: 0",
                "fleet file: a: maxResolution takes a height in lines, got 0"
            ),
            ("streams:\n  - name: a\n    url: http://a/x.m3u8\n    video: maybe", "fleet file: streams.[1].video: expected Bool"),
            (
                "streams:\n  - name: a\n    url: http://a/x.m3u8\n    latency: soon",
                "fleet file: a: latency takes seconds behind the wall clock (0 to 86400) or auto, got soon"
            ),
        ])
    func problems(text: String, message: String) {
        #expect(throws: FleetError.self) { try FleetConfig.parse(text) }
        do {
            _ = try FleetConfig.parse(text)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test("restarts wait 1 s, doubling to a minute; a session that ran a minute starts the count again")
    func backoff() {
        var b = RestartBackoff()
        let delays = (0..<9).map { _ in b.delay(after: 2) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(b.delay(after: 61) == 1)
        #expect(b.delay(after: 3) == 2)
    }

    @Test(
        "--shard K/N, or a StatefulSet pod's name for K; anything else is one line naming it",
        arguments: [
            ("0/3", 0, 3), ("2/3", 2, 3), ("0/1", 0, 1), ("hlstui-fleet-2/3", 2, 3), ("fleet-0/1", 0, 1),
        ])
    func shardParse(text: String, k: Int, n: Int) throws {
        let s = try FleetShard.parse(text)
        #expect(s.index == k && s.count == n && s.description == "\(k)/\(n)")
    }

    @Test(
        "refused shards",
        arguments: [
            ("3/3", "--shard 3/3: K counts from 0 and must be below N"),
            ("0/0", "--shard 0/0: N is the number of shards, at least 1"),
            ("1", #"--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got "1""#),
            ("-1/3", #"--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got "-1/3""#),
            ("a/3", #"--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got "a/3""#),
            ("fleet-/3", #"--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got "fleet-/3""#),
            ("1/3/4", #"--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got "1/3/4""#),
            ("1/+3", #"--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got "1/+3""#),
        ])
    func shardRefused(text: String, message: String) {
        #expect(throws: FleetError(description: message)) { try FleetShard.parse(text) }
    }

    @Test("the weight is SHA-256 of \"K/NAME\", its first eight bytes big-endian: any tool computes the same owner")
    func shardVectors() {
        // Python: int.from_bytes(hashlib.sha256(b"0/news").digest()[:8], "big")
        #expect(FleetShard.weight("news", shard: 0) == 0xe9c4_2f40_c77f_28ec)
        #expect(FleetShard.weight("radio", shard: 0) == 0x668e_f4ff_1377_134a)
        #expect((1...5).map { FleetShard.owner(of: "radio", count: $0) } == [0, 1, 2, 2, 2])
        #expect((1...5).map { FleetShard.owner(of: "s02", count: $0) } == [0, 1, 2, 2, 4])
    }

    @Test("every stream is played by exactly one shard, for one to eight shards")
    func shardExactlyOnce() throws {
        let names = (0..<500).map { "stream-\($0)" }
        for n in 1...8 {
            let shards = try (0..<n).map { try FleetShard(index: $0, count: n) }
            for name in names { #expect(shards.filter { $0.plays(name) }.count == 1, "\(name) over \(n) shards") }
        }
    }

    @Test("going from N to N+1 shards moves streams only to the new shard, about 1/(N+1) of them")
    func shardMoves() {
        let names = (0..<10_000).map { "stream-\($0)" }
        // Each name's weights for shards 0…7, computed once: the owner of N shards is the first highest of the first N.
        let weights = names.map { name in (0..<8).map { FleetShard.weight(name, shard: $0) } }
        func owner(_ i: Int, _ n: Int) -> Int { (0..<n).reduce(0) { weights[i][$1] > weights[i][$0] ? $1 : $0 } }
        for i in stride(from: 0, to: names.count, by: 97) {
            for n in 1...8 { #expect(owner(i, n) == FleetShard.owner(of: names[i], count: n)) }
        }
        for n in 1...7 {
            var moved = 0
            for (i, name) in names.enumerated() {
                let (before, after) = (owner(i, n), owner(i, n + 1))
                if before != after {
                    moved += 1
                    #expect(after == n, "\(name) moved from \(before) to \(after), not to the new shard \(n)")
                }
            }
            let share = Double(moved) / Double(names.count)
            #expect(abs(share - 1 / Double(n + 1)) < 0.02, "\(n) → \(n + 1): \(share) of the streams moved")
        }
        // The thirty streams of the end-to-end test: 3 → 4 shards moves at most a third (4 of them).
        let thirty = (1...30).map { "s" + ($0 < 10 ? "0" : "") + "\($0)" }
        #expect(thirty.filter { FleetShard.owner(of: $0, count: 3) != FleetShard.owner(of: $0, count: 4) }.count <= 10)
    }

    @Test("a shard's share keeps the file's order and options; the shares of all shards are the file")
    func shardShare() throws {
        let config = try FleetConfig.parse(
            (1...12).map { "  - name: s\($0)\n    url: http://o/\($0).m3u8\n    video: false\n" }.reduce("streams:\n", +))
        let shares = try (0..<3).map { try FleetShard(index: $0, count: 3).share(of: config) }
        #expect(shares.map(\.streams.count).reduce(0, +) == 12)
        #expect(Set(shares.flatMap { $0.streams.map(\.name) }) == Set(config.streams.map(\.name)))
        for share in shares {
            #expect(share.streams.map(\.name) == config.streams.map(\.name).filter { n in share.streams.contains { $0.name == n } })
            #expect(share.streams.allSatisfy { !$0.video })
        }
    }
}
