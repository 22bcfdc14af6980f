/// What one pane's player may hold in memory: the read-ahead the buffer bar shows and the back buffer `←` seeks in, in bytes
/// at the stream's peak bitrate, so a pane left running for days stays within a stated bound (DECISIONS.md, bounded memory).
/// libmpv's defaults (150 MiB ahead, 50 MiB behind, unused space ahead given to the back buffer) let every pane grow by about
/// 200 MiB for a back buffer nobody on a live dashboard asked for.
public struct CacheBudget: Sendable, Equatable {
    public var forwardBytes: Int
    public var backBytes: Int

    /// Assumed until the multivariant playlist is read, and for a stream that states no BANDWIDTH: 10 Mbit/s.
    public static let assumedBitsPerSecond = 10_000_000
    /// Packets cost more than their payload (libmpv counts its own overhead); a rung may exceed its peak for a segment.
    public static let headroom = 1.5
    /// Neither side goes below this, whatever the bitrate and seconds.
    public static let floorBytes = 4 << 20

    /// `readahead` and `backBuffer` seconds at `peakBitsPerSecond` (a variant's BANDWIDTH: the peak of its segments with their
    /// renditions, RFC 8216bis §4.4.6.2).
    public init(readahead: Double, backBuffer: Double, peakBitsPerSecond: Int?) {
        let rate = Double(peakBitsPerSecond.flatMap { $0 > 0 ? $0 : nil } ?? Self.assumedBitsPerSecond) / 8 * Self.headroom
        forwardBytes = max(Self.floorBytes, Int(rate * max(0, readahead)))
        backBytes = max(Self.floorBytes, Int(rate * max(0, backBuffer)))
    }

    public var totalBytes: Int { forwardBytes + backBytes }
}

extension Ladder {
    /// The highest BANDWIDTH of the ladder; nil when no rung states one.
    public var peakBandwidth: Int? { rungs.map(\.bandwidth).max().flatMap { $0 > 0 ? $0 : nil } }
}
