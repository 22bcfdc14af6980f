import HLS

/// The delivery directives a reload of a live media playlist carries (RFC 8216bis §6.2.5), chosen from the playlist held
/// (pure). The player is given segments (the one in progress as a body that grows part by part), so its reloads wait for
/// segments; the Loader's own reloads wait for the part it needs next.
public struct DeliveryDirectives: Sendable, Equatable {
    /// `_HLS_msn`: answer once the playlist holds this segment (§6.2.5.2).
    public var msn: Int?
    /// `_HLS_part` (with `_HLS_msn`): answer once the playlist holds this part of segment `msn`.
    public var part: Int?
    /// `_HLS_skip=YES`: a delta update (§6.2.5.1).
    public var skip = false

    public init(msn: Int? = nil, part: Int? = nil, skip: Bool = false) {
        self.msn = msn
        self.part = part
        self.skip = skip
    }

    /// What to ask for, given the playlist `held` (read `age` seconds ago) and the newest segment the player asked for
    /// (`playerAt`): block for the segment after the held playlist's last once the player has reached that last (a player
    /// still inside the playlist needs no wait); a delta update while the held playlist is younger than half the skip boundary
    /// (§6.3.7). Nothing for an ended playlist, or a server that does not say it can (§6.3.8: clients MUST NOT block unless
    /// CAN-BLOCK-RELOAD=YES). `growing`: the player is given the segment in progress, so it needs the next one listed only
    /// once it has asked for that one — the segment after the last complete one.
    public static func choose(held: MediaPlaylist?, age: Double, playerAt: Int?, growing: Bool = false) -> DeliveryDirectives {
        guard let h = held, !h.endList, let sc = h.serverControl else { return DeliveryDirectives() }
        var d = DeliveryDirectives()
        if sc.canBlockReload, let last = h.segments.last?.mediaSequence, let at = playerAt, at >= last + (growing ? 1 : 0) {
            d.msn = last + 1
        }
        if let until = sc.canSkipUntil, age < until / 2, !h.segments.isEmpty { d.skip = true }
        return d
    }

    public var isEmpty: Bool { msn == nil && part == nil && !skip }

    /// Whether `m` holds what a blocking reload with these directives asked for (§6.2.5.2): segment `msn` or a later one, or
    /// with `part`, that part of segment `msn` or a later part (a part index past a segment's last is the next segment's
    /// first). True when nothing was asked, or for an ended playlist.
    public func answered(by m: MediaPlaylist) -> Bool {
        guard let want = msn, !m.endList else { return true }
        if let last = m.segments.last?.mediaSequence, last >= want { return true }
        guard let part else { return false }
        guard let have = m.lastPart else { return false }
        return have.msn > want || (have.msn == want && have.part >= part)
    }

    /// `url` with the directives appended, after its own query (in the order §6.2.5 lists them).
    public func applied(to url: String) -> String {
        var q: [String] = []
        if let msn { q.append("_HLS_msn=\(msn)") }
        if msn != nil, let part { q.append("_HLS_part=\(part)") }
        if skip { q.append("_HLS_skip=YES") }
        guard !q.isEmpty else { return url }
        let (head, fragment) = url.firstIndex(of: "#").map { (String(url[..<$0]), String(url[$0...])) } ?? (url, "")
        return head + (head.contains("?") ? "&" : "?") + q.joined(separator: "&") + fragment
    }
}

extension DeliveryDirectives {
    /// `url` without delivery directives (query parameters starting `_HLS_`, §6.2.5), as the stream's own URL.
    public static func stripped(_ url: String) -> String {
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        guard let q = url[..<hash].firstIndex(of: "?") else { return url }
        let kept = url[url.index(after: q)..<hash].split(separator: "&").filter { !$0.hasPrefix("_HLS_") }
        return String(url[..<q]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + url[hash...]
    }
}
