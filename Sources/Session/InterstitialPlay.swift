import HLS

/// The interstitials a pane plays (RFC 8216bis Appendix D; docs/EVENTS.md, "Interstitials played"), a feature sub-state: the
/// one in play — its assets, the one the player holds, what they played and where the primary resumes — and the IDs already
/// played. The plans that use it are the Session's (`SessionState+Interstitials.swift`).
public struct InterstitialPlay: Sendable, Equatable {
    /// Where the primary goes on once the interstitial is over.
    public enum Resume: Sendable, Equatable {
        /// VOD: the primary's moment `date` (START-DATE plus the resumption offset), a fixed point of its timeline.
        case vod(DateTime)
        /// Live: START-DATE run on with the clock since session time `since` — the live moment, at the latency the pane had.
        case live(DateTime, since: Double)
        /// A pre-roll: the primary's first load, as it was to be before the interstitial came first.
        case firstLoad(media: MediaPlaylist?, multivariant: Bool, partsGiven: Bool)
        /// A post-roll: the primary has ended.
        case end
        /// A seek that would have jumped past it (X-RESTRICT=JUMP): the seek's target, the moment `date`.
        case at(DateTime)
    }

    /// An asset that could not be played, and why.
    public struct Failure: Sendable, Equatable {
        public var uri: String
        public var why: String
    }

    /// One interstitial in play.
    public struct Run: Sendable, Equatable {
        public var interstitial: Interstitial
        public var resume: Resume
        /// Session time it began (the primary left).
        public var began: Double
        /// The assets to play: X-ASSET-URI's one, or X-ASSET-LIST's once read (nil while the list is read).
        public var assets: [AssetList.Asset]?
        /// The asset the player is given (an index into `assets`).
        public var index = 0
        /// The asset's ladder, once its playlist is read: the pane shows it while the asset plays.
        public var ladder: Ladder?
        /// The asset's variant the player was given (nil: its media playlist).
        public var variant: Int?
        /// The asset's first frame (session time); nil while it loads.
        public var assetStarted: Double?
        /// The asset's playhead (its own media time), as last sampled.
        public var position: Double?
        /// The asset's picture as the player decodes it ("640x360"), as last sampled.
        public var video: String?
        /// Seconds of the assets before this one that played.
        public var played: Double = 0
        /// The assets that failed, each with its cause.
        public var failed: [Failure] = []
        /// Live: the assets are over and the primary's playlist is read again to resume at its live moment.
        public var resuming = false

        /// The asset the player holds.
        public var asset: AssetList.Asset? { assets?[safe: index] }
        /// Seconds of the assets played so far, the one playing included.
        public var elapsed: Double { played + (assetStarted == nil ? 0 : max(0, position ?? 0)) }
    }

    public private(set) var run: Run?
    /// The IDs played or tried, and those a seek forward passed: not played when the playhead reaches them (until a seek back
    /// before them, `rearm`).
    public private(set) var done: Set<String> = []
    /// The IDs played (tried), a subset of `done`: CUE=ONCE ones never play again.
    public private(set) var played: Set<String> = []
    /// The mid-rolls the playhead was seen before: one is due when the playhead comes to where the primary leaves for it (a
    /// point seen only behind the playhead — a join after it, a look of a seek not landed yet — is not).
    public private(set) var approaching: Set<String> = []
    /// The player holds an asset's stream (from its load to the primary's next): its `time-pos` is not the primary's.
    public private(set) var assetInPlayer = false
    /// The primary reached its end with a post-roll to play (`SessionState.sampled`); the plan after the sample plays it.
    public private(set) var postDue = false

    public init() {}

    /// An interstitial begins: the primary leaves for it.
    mutating func begin(_ i: Interstitial, resume: Resume, at t: Double) {
        done.insert(i.id)
        played.insert(i.id)
        approaching.remove(i.id)
        run = Run(interstitial: i, resume: resume, began: t)
        if i.assetList == nil, let uri = i.assetURI { run?.assets = [AssetList.Asset(uri: uri, duration: i.duration ?? 0)] }
    }

    /// A seek back before `ids`: they may play again once the playhead is seen before them and comes to them.
    mutating func rearm(_ ids: Set<String>) {
        done.subtract(ids)
        approaching.subtract(ids)
    }

    /// A seek forward passed `ids` without playing them.
    mutating func pass(_ ids: Set<String>) {
        done.formUnion(ids)
        approaching.subtract(ids)
    }

    /// The playhead was seen before interstitial `id`'s leaving point.
    mutating func approach(_ id: String) { approaching.insert(id) }

    /// The X-ASSET-LIST was read: its assets, within X-PLAYOUT-LIMIT.
    mutating func listed(_ assets: [AssetList.Asset]) { run?.assets = assets }

    /// The asset's playlist was read.
    mutating func opened(_ ladder: Ladder, variant: Int?) {
        run?.ladder = ladder
        run?.variant = variant
        assetInPlayer = true
    }

    /// The asset showed its first frame.
    mutating func assetStarted(at t: Double) { if run?.assetStarted == nil { run?.assetStarted = t } }

    /// The asset's playhead and picture now.
    mutating func sampled(position: Double?, width: Int? = nil, height: Int? = nil) {
        guard run?.assetStarted != nil else { return }
        if let p = position { run?.position = p }
        if let w = width, let h = height { run?.video = "\(w)x\(h)" }
    }

    /// The asset playing is over (ended, or failed with `why`): the next one is up. Returns the next asset, nil when none is.
    mutating func next(failed why: String? = nil) -> AssetList.Asset? {
        guard var r = run else { return nil }
        if let why, let a = r.asset { r.failed.append(Failure(uri: a.uri, why: why)) }
        if r.assetStarted != nil { r.played += max(0, r.position ?? 0) }
        r.index += 1
        r.ladder = nil
        r.variant = nil
        r.assetStarted = nil
        r.position = nil
        r.video = nil
        run = r
        return r.asset
    }

    /// Live: the assets are over; the primary's playlist is read before it resumes.
    mutating func resuming() { run?.resuming = true }

    /// The interstitial is over: what it was, for the resumption.
    mutating func finish() -> Run? {
        defer { run = nil }
        return run
    }

    /// "interstitial mid-4 (asset 1/2)": which interstitial and asset play, for the screen.
    public var label: String? {
        guard let r = run else { return nil }
        let count = r.assets.map { "/\($0.count)" } ?? ""
        return "interstitial \(r.interstitial.id)" + (r.assets == nil ? " (reading its asset list)" : " (asset \(r.index + 1)\(count))")
    }

    /// The primary was given to the player again.
    mutating func primaryGiven() { assetInPlayer = false }

    /// The primary ended with a post-roll still to play, or it was played.
    mutating func post(_ due: Bool) { postDue = due }
}

/// What a pane's interstitial did (docs/EVENTS.md, "Interstitials played"; `monitor`'s `interstitial` events).
public enum InterstitialFact: Sendable, Equatable {
    /// The primary left for interstitial `id` (`when`: pre, mid or post).
    case began(id: String, when: String)
    /// Its X-ASSET-LIST answered: `assets` assets of `seconds` in all (X-PLAYOUT-LIMIT applied).
    case listed(id: String, assets: Int, seconds: Double)
    /// Asset `index` of `count` given to the player.
    case asset(id: String, index: Int, count: Int, uri: String)
    /// Asset `index` failed: skipped, with its cause.
    case assetFailed(id: String, index: Int, uri: String, why: String)
    /// Asset `index` played `seconds` and ended.
    case assetEnded(id: String, index: Int, seconds: Double)
    /// The interstitial is over after `played` seconds of its assets: the primary resumes (`at`: the moment, or "start" for a
    /// pre-roll, "end" for a post-roll).
    case resumed(id: String, played: Double, at: String)
}
