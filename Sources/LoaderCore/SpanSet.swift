/// The byte ranges of a resource held so far (a progressive file read by ranges, in any order): sorted, disjoint, merged
/// when they touch.
public struct SpanSet: Sendable, Equatable, Codable {
    public private(set) var spans: [Range<Int>] = []

    public init(_ spans: [Range<Int>] = []) {
        for s in spans { insert(s) }
    }

    /// Bytes held.
    public var total: Int { spans.reduce(0) { $0 + $1.count } }

    /// Adds `r`, merging it with the spans it overlaps or touches.
    public mutating func insert(_ r: Range<Int>) {
        guard !r.isEmpty else { return }
        var lower = r.lowerBound
        var upper = r.upperBound
        var kept: [Range<Int>] = []
        kept.reserveCapacity(spans.count + 1)
        var placed = false
        for s in spans {
            if s.upperBound < lower {
                kept.append(s)
            } else if s.lowerBound > upper {
                if !placed {
                    kept.append(lower..<upper)
                    placed = true
                }
                kept.append(s)
            } else {
                lower = min(lower, s.lowerBound)
                upper = max(upper, s.upperBound)
            }
        }
        if !placed { kept.append(lower..<upper) }
        spans = kept
    }

    /// True when every byte of `r` is held.
    public func covers(_ r: Range<Int>) -> Bool {
        r.isEmpty || spans.contains { $0.lowerBound <= r.lowerBound && $0.upperBound >= r.upperBound }
    }

    /// How `r` is served: the runs already held (read from disk) and the gaps between them (asked of the origin), in order, in
    /// pieces that start at `first` bytes and double up to `largest`: a reader that goes away early (a player probing or
    /// seeking) costs the origin little, one that reads on gets large requests.
    public func plan(_ r: Range<Int>, first: Int, largest: Int) -> [Piece] {
        var out: [Piece] = []
        var at = r.lowerBound
        var size = max(1, first)
        func cut(upTo end: Int, _ make: (Range<Int>) -> Piece) {
            while at < end {
                let stop = min(end, at + size)
                out.append(make(at..<stop))
                at = stop
                size = min(max(size, largest), size * 2)
            }
        }
        for s in spans where s.upperBound > at && s.lowerBound < r.upperBound {
            cut(upTo: max(at, s.lowerBound)) { .fetch($0) }
            cut(upTo: min(s.upperBound, r.upperBound)) { .held($0) }
        }
        cut(upTo: r.upperBound) { .fetch($0) }
        return out
    }

    public enum Piece: Sendable, Equatable {
        case held(Range<Int>)
        case fetch(Range<Int>)
    }
}
