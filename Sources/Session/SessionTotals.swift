import CMCD
import HLS
import LoaderEvents

/// What a pane asked for over the whole session (its lists keep only the newest).
public struct RequestTotals: Sendable, Equatable {
    public var count = 0
    public var segments = 0
    public var bytes = 0
    /// Distinct key URIs (a rotation's next key counts once).
    public var keys = 0
    public var switches = 0
}

/// Stalls trimmed from a pane's list: how many, and how long they lasted together.
public struct StallTotals: Sendable, Equatable {
    public var count = 0
    public var seconds = 0.0
}

/// A GAP segment already reported, by the rung that listed it and its MSN.
struct GapMark: Hashable, Sendable {
    var rung: Int
    var msn: Int
}

extension MediaPlaylist {
    /// True when segment `msn` is in this window.
    public func lists(_ msn: Int) -> Bool { msn >= mediaSequence && msn < mediaSequence + segments.count }
}

/// What LL-HLS delivery directives did over a session (RFC 8216bis §6.2.5): the last reload's hold, and the bytes delta
/// updates saved against the whole playlists they stand for.
public struct LowLatencyReloads: Sendable, Equatable {
    /// The latest reload: how long the origin held it, whether it blocked, the stream's part target.
    public struct Last: Sendable, Equatable {
        public var hold: Double
        public var blocked: Bool
        public var partTarget: Double?
    }

    public private(set) var last: Last?
    public private(set) var count = 0
    public private(set) var received = 0
    public private(set) var whole = 0
    /// The holds of the newest blocking reloads (seconds), oldest first.
    public private(set) var holds: [Double] = []
    /// Blocking reloads the origin held longer than three target durations (RFC 8216bis §6.2.5.2).
    public private(set) var longHolds = 0
    /// Parts asked for from a preload hint: answered, and not (§4.4.5.3); how long the server held the newest answered ones.
    public private(set) var hintHits = 0
    public private(set) var hintMisses = 0
    public private(set) var hintWaits: [Double] = []
    /// The newest playlist's furthest-behind rendition report, in parts.
    public private(set) var reportLag: Int?
    /// PART-HOLD-BACK of the pane's low-latency start (`SessionState.planEdgeStart`): it is given parts, and a move may land
    /// that near the edge (`SyncWindow.holdBack`). Kept when sync takes the speed over.
    public internal(set) var holdBack: Double?
    static let holdsKept = 64

    public init() {}

    mutating func add(_ r: ReloadEvent) {
        count += 1
        received += r.bytes
        whole += r.wholeBytes
        if r.reportLag != nil { reportLag = r.reportLag }
        // A reload for the part just read from its hint is answered at once: the hinted request carried the wait.
        guard !r.afterHint else { return }
        last = Last(hold: r.holdSeconds, blocked: r.blockedFor != nil, partTarget: r.partTarget)
        guard r.blockedFor != nil else { return }
        holds.append(r.holdSeconds)
        if holds.count > Self.holdsKept { holds.removeFirst(holds.count - Self.holdsKept) }
        if let td = r.targetDuration, r.holdSeconds > 3 * Double(td) { longHolds += 1 }
    }

    /// A part request: a hinted one says whether the hint came true.
    mutating func part(_ r: RequestEvent) {
        guard r.hint else { return }
        guard (200..<300).contains(r.status) else { return hintMisses += 1 }
        hintHits += 1
        if let ttfb = r.ttfbMs {
            hintWaits.append(ttfb / 1000)
            if hintWaits.count > Self.holdsKept { hintWaits.removeFirst(hintWaits.count - Self.holdsKept) }
        }
    }

    /// The share of playlist bytes delta updates saved, 0…1.
    public var savedShare: Double { whole > 0 ? Double(whole - received) / Double(whole) : 0 }
}
