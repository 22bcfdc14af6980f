import Foundation
import HLS

/// Which rung serves the segments the player has not asked for yet, and which rungs may stand in for a GAP (DECISIONS.md, rung switching).
public struct SpliceRoute: Sendable, Equatable {
    public var rung: Int
    /// Rungs that may serve a GAP segment of `rung`, best first (the rungs the caps allow).
    public var fill: [Int]
    public init(rung: Int, fill: [Int]) {
        self.rung = rung
        self.fill = fill
    }

    /// The rungs this route allows other than `failed`, in the order a failure of `failed` tries them: the same bandwidth
    /// first (a redundant copy on another host), then the nearest below, then the nearest above (DECISIONS.md, rung
    /// switching). `bandwidth`: each rung's BANDWIDTH; a failed rung without one keeps the route's order.
    public func failoverOrder(from failed: Int?, bandwidth: [Int: Int]) -> [Int] {
        let others = ([rung] + fill.filter { $0 != rung }).filter { $0 != failed }
        guard let failed, let mine = bandwidth[failed] else { return others }
        return others.sorted { a, b in
            let (x, y) = (bandwidth[a] ?? 0, bandwidth[b] ?? 0)
            let (kx, ky) = (x == mine ? 0 : x < mine ? 1 : 2, y == mine ? 0 : y < mine ? 1 : 2)
            if kx != ky { return kx < ky }
            return kx == 2 ? x < y : x > y
        }
    }
}

/// One rung's media playlist as the Loader last read it.
public struct RungMedia: Sendable {
    public var url: String
    public var media: MediaPlaylist
    public var read: Double

    public init(url: String, media: MediaPlaylist, read: Double) {
        self.url = url
        self.media = media
        self.read = read
    }

    /// The segment with media sequence number `msn`, if the playlist lists it.
    public func segment(_ msn: Int) -> Segment? {
        let i = msn - media.mediaSequence
        return media.segments.indices.contains(i) && media.segments[i].mediaSequence == msn
            ? media.segments[i]
            : media.segments.first { $0.mediaSequence == msn }
    }
}

/// EXT-X-BYTERANGE sub-ranges served to the player as whole resources (RFC 8216bis §4.4.4.2): the upstream Range to ask for.
public enum SubRange {
    /// The upstream `Range` header for sub-range `r` and the player's own range within it (nil: all of it); nil when the player's range does not fit.
    public static func request(_ r: ByteRange, player: String?) -> (upstream: String, relative: ClosedRange<Int>?)? {
        guard r.length > 0 else { return nil }
        guard let player else { return ("bytes=\(r.offset)-\(r.offset + r.length - 1)", nil) }
        guard player.hasPrefix("bytes="), !player.contains(",") else { return nil }
        let spec = player.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let a: Int, b: Int
        if spec[0].isEmpty {
            guard let n = Int(spec[1]), n > 0 else { return nil }
            (a, b) = (max(0, r.length - n), r.length - 1)
        } else {
            guard let x = Int(spec[0]) else { return nil }
            guard spec[1].isEmpty || Int(spec[1]) != nil else { return nil }
            (a, b) = (x, spec[1].isEmpty ? r.length - 1 : min(Int(spec[1])!, r.length - 1))
        }
        guard a >= 0, a <= b else { return nil }
        return ("bytes=\(r.offset + a)-\(r.offset + b)", a...b)
    }
}
