/// A live stream's media playlists read again and again for a while (`inspect --media --duration`, docs/VALIDATION.md):
/// each reload held to the reload rules against the one before it (`LiveContinuity`), each playlist's cadence against
/// §6.3.4's, and the variants' ends against each other's (§6.2.4). Pure: the reads and their times are given.
public struct LiveWatch: Sendable {
    /// A finding and the playlist it concerns (its index as `read` gave it).
    public struct Finding: Sendable, Equatable {
        public var playlist: Int
        public var finding: ContinuityFinding
    }

    struct Track {
        var name: String
        var variant: Bool
        /// The last read: when it was asked and when its answer had come (the server's version lies between the two).
        var at: Double
        var answered: Double
        var playlist: MediaPlaylist
        /// Which version is the newest read (`LiveRefreshTracker`'s order: an older answer, a stale cache's, is not a new
        /// one); its `lastChange`: when the answer that first showed it came (the version was out by then).
        var versions: LiveRefreshTracker
        var changedAt: Double { versions.lastChange }
        /// Said stale since that version came.
        var staleSaid = false
        var changedLastRead = true
        var reloads = 0
    }

    var tracks: [Int: Track] = [:]
    var said: Set<String> = []
    public private(set) var findings: [Finding] = []

    public init() {}

    /// When playlist `index` may next be read: a target duration after the last read that found it changed, half of one
    /// after a read that found it unchanged (RFC 8216bis §6.3.4). Nil before its first read or once it has ended.
    public func due(_ index: Int) -> Double? {
        guard let t = tracks[index], t.playlist.isLive else { return nil }
        let td = Double(t.playlist.targetDuration ?? 10)
        return t.at + (t.changedLastRead ? td : td / 2)
    }

    /// Forgets the list of findings, so a watch that runs for days (the Session's, which keeps its own) holds no list that
    /// grows; what was said is remembered, up to 4,096 findings (then a finding still true may be said again).
    public mutating func forgetFindings() {
        findings = []
        if said.count > 4096 { said = [] }
    }

    /// Reloads read of playlist `index` so far (its first read not counted).
    public func reloads(_ index: Int) -> Int { tracks[index]?.reloads ?? 0 }

    /// Playlist `index` (`name` in the findings; `variant`: a variant's, held against the other variants') asked at `t`
    /// seconds, its answer come at `answered` (nil: at once). Returns the findings new with it.
    ///
    /// The times bound what the server did, never more: a version first seen in an answer was out when that answer came, and
    /// still out when a later read was asked; two versions were made no further apart than from the first read's asking to
    /// the second's answer.
    public mutating func read(_ index: Int, name: String, variant: Bool, at t: Double, answered: Double? = nil, _ p: MediaPlaylist)
        -> [ContinuityFinding]
    {
        let end = max(t, answered ?? t)
        var found: [ContinuityFinding] = []
        if var track = tracks[index] {
            let a = track.playlist
            if a.skip == nil, p.skip == nil {
                found += LiveContinuity.check(previous: a, next: p, elapsed: end - track.at)
            }
            let changed: Bool
            switch track.versions.update(p, at: end) {
            case .newer, .reset: changed = true
            case .unchanged, .older, .stuck: changed = false
            }
            if changed {
                track.staleSaid = false
            } else if a.isLive, !track.staleSaid, let td = a.targetDuration, t - track.changedAt > 1.5 * Double(td) {
                track.staleSaid = true
                let last = a.mediaSequence + a.segments.count - 1
                found.append(
                    ContinuityFinding(
                        .playlistStale, .warning, bis("6.3.4"), msn: last,
                        "unchanged for \(formatSeconds(t - track.changedAt)) s at least (last msn \(last)): a client that reloads a target duration (\(td) s) after a change, then every half of one, found nothing new twice"
                    ))
            }
            (track.at, track.answered, track.playlist, track.changedLastRead) = (t, end, p, changed)
            track.reloads += 1
            tracks[index] = track
        } else {
            var versions = LiveRefreshTracker()
            _ = versions.update(p, at: end)
            tracks[index] = Track(name: name, variant: variant, at: t, answered: end, playlist: p, versions: versions)
        }
        var new: [ContinuityFinding] = []
        for f in found where said.insert("\(index) \(f.rule.rawValue) \(f.msn.map(String.init) ?? "")").inserted {
            new.append(f)
            findings.append(Finding(playlist: index, finding: f))
        }
        // Two variants apart: said once for the pair, whichever was read last.
        for (other, f) in variant ? drift(index, p) : []
        where said.insert("\(min(index, other))+\(max(index, other)) \(f.rule.rawValue)").inserted {
            new.append(f)
            findings.append(Finding(playlist: index, finding: f))
        }
        return new
    }

    /// RFC 8216bis §6.2.4: content in one variant's playlist and not in another's lies at its start or end and lasts at most a
    /// target duration; matching content has matching discontinuity sequence numbers. Held by EXT-X-PROGRAM-DATE-TIME (media
    /// sequence numbers may differ between variants, §6.3.2), against each other variant's last read, allowing for what
    /// either could have gained between the two reads.
    func drift(_ index: Int, _ p: MediaPlaylist) -> [(other: Int, finding: ContinuityFinding)] {
        guard let td = p.targetDuration, let end = Self.end(p), p.isLive, let me = tracks[index] else { return [] }
        // A playlist left unchanged past the stale rule is said as such; what it lacks is not also a drift (its variants,
        // read as it comes back, would seem apart by the whole time it stood still).
        func fresh(_ x: Track) -> Bool { x.at - x.changedAt <= 1.5 * Double(td) }
        guard fresh(me) else { return [] }
        var out: [(other: Int, finding: ContinuityFinding)] = []
        for (j, other) in tracks.sorted(by: { $0.key < $1.key }) where j != index && other.variant && fresh(other) {
            guard let otherEnd = Self.end(other.playlist) else { continue }
            let apart = end.seconds(since: otherEnd)
            // The two versions were made at most this far apart: from one read's asking to the other's answer.
            let gap = max(me.answered - other.at, other.answered - me.at, 0)
            if abs(apart) > Double(td) + gap + 0.5 {
                out.append(
                    (
                        j,
                        ContinuityFinding(
                            .variantsDrift, .error, bis("6.2.4"), msn: nil,
                            "ends \(formatSeconds(abs(apart))) s \(apart > 0 ? "after" : "before") \(other.name)'s by EXT-X-PROGRAM-DATE-TIME (read at most \(formatSeconds(gap)) s apart): content in one variant and not another must not last longer than the target duration (\(td) s)"
                        )
                    ))
            }
            // The same moment in both: the discontinuity sequence of the segment at it.
            for s in p.segments.reversed() {
                guard let d = s.effectiveProgramDateTime,
                    let o = other.playlist.segments.first(where: { o in
                        o.effectiveProgramDateTime.map { abs(d.seconds(since: $0)) < min(0.5, s.duration / 2) } ?? false
                    })
                else { continue }
                if o.discontinuitySequence != s.discontinuitySequence {
                    out.append(
                        (
                            j,
                            ContinuityFinding(
                                .variantsDiscontinuity, .error, bis("6.2.4"), msn: nil,
                                "msn \(s.mediaSequence), dated \(d.iso8601), is in discontinuity sequence \(s.discontinuitySequence); \(other.name)'s segment at that moment (msn \(o.mediaSequence)) in \(o.discontinuitySequence)"
                            )
                        ))
                }
                break
            }
        }
        return out
    }

    /// Where a playlist's last segment ends, by its EXT-X-PROGRAM-DATE-TIME.
    static func end(_ p: MediaPlaylist) -> DateTime? {
        p.segments.last.flatMap { s in s.effectiveProgramDateTime?.adding(seconds: s.duration) }
    }
}
