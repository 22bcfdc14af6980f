import Crypto

/// One process's share of a fleet file (docs/FLEET.md, "Shards"): `K/N`, the K-th of N processes, counted from 0.
///
/// A stream is played by the shard whose weight for it is highest — rendezvous (highest-random-weight) hashing: shard
/// `i`'s weight for a stream is the first eight bytes of SHA-256 of `"i/NAME"`, read big-endian. Every process computes the
/// same owner for every stream from the file alone, so each stream is played by exactly one of N processes without them
/// talking, and going from N to N+1 shards moves only the streams shard N now wins: about 1/(N+1) of them
/// (DECISIONS.md, "Fleet shards by rendezvous hashing").
public struct FleetShard: Sendable, Equatable, CustomStringConvertible {
    /// K: which shard this process is, 0 ..< count.
    public let index: Int
    /// N: how many processes share the file.
    public let count: Int

    public init(index: Int, count: Int) throws(FleetError) {
        guard count >= 1 else { throw FleetError(description: "--shard \(index)/\(count): N is the number of shards, at least 1") }
        guard (0..<count).contains(index) else {
            throw FleetError(description: "--shard \(index)/\(count): K counts from 0 and must be below N")
        }
        (self.index, self.count) = (index, count)
    }

    /// `K/N` — K a number, or the name of a StatefulSet's pod (`hlstui-fleet-2`), whose ordinal is what follows its last `-`
    /// (deploy/kubernetes passes `$(POD_NAME)/N`).
    public static func parse(_ text: String) throws(FleetError) -> FleetShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let usage = FleetError(description: "--shard takes K/N, shard K of N counted from 0 (or POD-NAME-K/N), got \"\(text)\"")
        func number(_ s: Substring) -> Int? { !s.isEmpty && s.allSatisfy(\.isASCII) && s.allSatisfy(\.isNumber) ? Int(s) : nil }
        guard parts.count == 2, let n = number(parts[1]) else { throw usage }
        // The ordinal after a pod name's last "-", or the whole K.
        let ordinal = parts[0].lastIndex(of: "-").map { parts[0][parts[0].index(after: $0)...] } ?? parts[0]
        guard let k = number(ordinal), ordinal.startIndex == parts[0].startIndex || parts[0].first != "-" else { throw usage }
        return try FleetShard(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// Shard `shard`'s weight for the stream named `name`.
    static func weight(_ name: String, shard: Int) -> UInt64 {
        let digest = SHA256.hash(data: Array("\(shard)/\(name)".utf8))
        return digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The shard, of `count`, that plays the stream named `name`: the highest weight, the lowest index on a tie.
    public static func owner(of name: String, count: Int) -> Int {
        var best = (shard: 0, weight: weight(name, shard: 0))
        for i in 1..<max(count, 1) {
            let w = weight(name, shard: i)
            if w > best.weight { best = (i, w) }
        }
        return best.shard
    }

    /// Whether this shard plays the stream named `name`.
    public func plays(_ name: String) -> Bool { Self.owner(of: name, count: count) == index }

    /// The streams of `config` this shard plays, in the file's order.
    public func share(of config: FleetConfig) -> FleetConfig {
        var mine = config
        mine.streams = config.streams.filter { plays($0.name) }
        return mine
    }
}
