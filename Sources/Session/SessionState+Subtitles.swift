import HLS
import MediaFormats

/// The subtitles as the Session follows them (docs/SUBTITLES.md): which rendition shows, what is read of it and when, the cue at
/// the playhead, and the WebVTT and IMSC1 rules.
extension SessionState {
    /// What can be shown as subtitles with `rung`'s variant, in playlist order: its SUBTITLES group, then its CLOSED-CAPTIONS
    /// group (captions in the video, RFC 8216bis §4.4.6.1; docs/SUBTITLES.md, "Closed captions").
    public func subtitleGroup(rung: Int) -> [Rendition] {
        guard let v = ladder.rungs[safe: rung]?.variant else { return [] }
        let subtitles = v.subtitles.map { g in ladder.renditions.filter { $0.type == "SUBTITLES" && $0.groupID == g } } ?? []
        let captions =
            v.closedCaptions.map { g in g == "NONE" ? [] : ladder.renditions.filter { $0.type == "CLOSED-CAPTIONS" && $0.groupID == g } }
            ?? (v.resolution == nil
                ? []
                : (captionsFound ? [ClosedCaptions.undeclared] : [])
                    + closedCaptions.found.filter { $0 != .cea608(1) }.sorted().map(ClosedCaptions.undeclared))
        return subtitles + captions
    }

    /// The rendition the choice shows with `rung` (nil: off, or the variant names no group) and whether the choice found it.
    public func subtitlePick(rung: Int) -> (rendition: Rendition?, honoured: Bool) {
        let group = subtitleGroup(rung: rung)
        switch subtitleChoice {
        case .off: return (nil, true)
        case .automatic: return (group.first(where: \.isDefault), true)
        case .wanted(let w):
            guard let p = AudioRenditions.pick(w, in: group) else { return (nil, false) }
            return p.honoured ? (p.rendition, true) : (nil, false)
        }
    }

    /// Follows the choice with the rung the player plays: the track starts, changes or ends, and says so.
    mutating func followSubtitleChoice(rung: Int, reason: AudioReason, at t: Double) -> [SessionFact] {
        let (pick, honoured) = subtitlePick(rung: rung)
        let before = subtitles?.rendition
        // Nothing changes; a choice nothing matches is said once, at the start.
        let same = before?.name == pick?.name && before?.language == pick?.language && before?.uri == pick?.uri
        if same && (honoured || reason != .start) { return [] }
        subs.show(pick)
        let what = pick.map(AudioRenditions.label) ?? "off"
        if let pick, pick.type == "CLOSED-CAPTIONS" {
            let id = pick.instreamID ?? "no INSTREAM-ID"
            if ClosedCaptions.decoded(pick) || ClosedCaptions.ownChannel(pick) != nil {
                let by = ClosedCaptions.decoded(pick) ? "" : ", decoded by hlstui"
                note(.info, "subtitles: \(before.map(AudioRenditions.label).map { $0 + " → " } ?? "")\(what) (\(id) in the video\(by))", t)
            } else {
                note(.warn, "subtitles: \(what) is \(id) in the video: \(ClosedCaptions.undecodedReason)", t)
            }
        } else if pick != nil, pick?.uri == nil {
            note(.warn, "subtitles: \(what) has no URI (RFC 8216bis §4.4.6.1 requires one): nothing to read", t)
        } else if honoured {
            note(.info, "subtitles: \(before.map(AudioRenditions.label).map { $0 + " → " } ?? "")\(what)", t)
        } else {
            let group = subtitleGroup(rung: rung)
            note(
                .warn,
                "subtitles: the group has nothing --subs names (\(group.isEmpty ? "no SUBTITLES group" : group.map(AudioRenditions.label).joined(separator: ", "))): off",
                t)
        }
        return [.subtitleRendition(SubtitleChange(t: t, from: before, to: pick, reason: reason, honoured: honoured))]
    }

    /// A person's choice (`S`, `subs` in a script): takes effect at once — the player is not involved.
    mutating func planSubtitles(_ select: SubtitleSelect, at t: Double) -> PanePlan {
        var plan = PanePlan()
        guard let rung = loadedRung else { return plan }
        let group = subtitleGroup(rung: rung)
        if group.isEmpty {
            note(.warn, "subtitles: this variant names no SUBTITLES or CLOSED-CAPTIONS group", t)
            return plan
        }
        switch select {
        case .off: subs.choose(.off)
        case .next:
            let current = subtitles?.rendition
            let i = current.flatMap { c in group.firstIndex { $0.name == c.name && $0.language == c.language } }
            if let i, i + 1 < group.count {
                subs.choose(.wanted(AudioPreference(name: group[i + 1].name, language: group[i + 1].language)))
            } else if i == nil {
                subs.choose(.wanted(AudioPreference(name: group[0].name, language: group[0].language)))
            } else {
                subs.choose(.off)
            }
        case .named(let q):
            guard let p = AudioRenditions.pick(AudioPreference(query: q), in: group), p.honoured else {
                note(.warn, "subtitles: no rendition named \(q) (\(group.map(AudioRenditions.label).joined(separator: ", ")))", t)
                return plan
            }
            subs.choose(.wanted(AudioPreference(name: p.rendition.name, language: p.rendition.language)))
        }
        plan.facts = followSubtitleChoice(rung: rung, reason: .manual, at: t)
        return plan
    }

    /// The subtitle reads due now: the playlist (again every target duration while live) and the segments from just before
    /// the playhead to `readAhead` after it, a few at a time; a failed read is tried again after a pause, three times.
    /// `aim`: where a seek goes (its segment and playlist position), read for before the playhead gets there.
    mutating func subtitleReads(at t: Double, aim: (point: StreamPoint, position: Double)? = nil) -> [PaneEffect] {
        guard var track = subtitles, track.rendition.uri != nil, aim != nil || t - (track.plannedAt ?? -1) >= 0.25 else { return [] }
        defer { subs.keep(track) }
        track.plannedAt = t
        var out: [PaneEffect] = []
        let wait = Double(min(8, 1 << min(3, track.playlistFailures)))
        if !track.playlistInFlight, let uri = track.rendition.uri {
            let due: Bool
            if let m = track.playlist, let asked = track.playlistAsked {
                due = m.isLive && t - asked >= Double(m.targetDuration ?? 6)
            } else {
                due = track.playlistAsked.map { t - $0 >= wait } ?? true
            }
            if due {
                track.playlistInFlight = true
                track.playlistAsked = t
                out.append(.readSubtitles(.playlist(uri: uri)))
            }
        }
        guard let m = track.playlist, let base = track.playlistURL else { return out }
        for seg in subtitleSegmentsWanted(m, aim: aim) where track.inFlight.count < SubtitleTrack.parallel {
            let msn = seg.mediaSequence
            guard !track.read.contains(msn), !track.inFlight.contains(msn), !seg.gap else { continue }
            if let f = track.failures[msn], f.count >= 3 || t - f.at < 2 { continue }
            track.inFlight.insert(msn)
            out.append(.readSubtitles(.segment(msn: msn, uri: seg.uri, base: base, range: seg.byteRange)))
        }
        return out
    }

    /// The segments of subtitle playlist `m` that cover the playhead's neighbourhood: by PDT when both playlists carry it; else
    /// by playlist time on VOD, by MSN live (packagers number the renditions of a stream alike); else the newest four.
    func subtitleSegmentsWanted(_ m: MediaPlaylist, aim: (point: StreamPoint, position: Double)? = nil) -> [Segment] {
        let ahead = SubtitleTrack.readAhead
        let starts = Timeline.startTimes(m)
        let live = !m.endList && (playingMedia?.isLive ?? true)
        func byTime(_ at: Double) -> [Segment] {
            m.segments.indices.filter { i in starts[i] + m.segments[i].duration > at - 2 && starts[i] < at + ahead }.map { m.segments[$0] }
        }
        // Before the playhead is known: where a player starts (the start of VOD, the newest segments live).
        guard let p = aim?.point ?? playhead else { return live ? Array(m.segments.suffix(4)) : byTime(0) }
        if let here = programDateTime(p), m.segments.contains(where: { $0.effectiveProgramDateTime != nil }) {
            return m.segments.filter { s in
                guard let start = s.effectiveProgramDateTime else { return false }
                let from = start.seconds(since: here)
                return from + s.duration > -2 && from < ahead
            }
        }
        if !live { return byTime(aim?.position ?? position ?? 0) }
        if m.lists(p.msn) {
            let span = Int((ahead / Double(max(1, m.targetDuration ?? 6))).rounded(.up))
            return m.segments.filter { $0.mediaSequence >= p.msn - 1 && $0.mediaSequence <= p.msn + span }
        }
        return Array(m.segments.suffix(4))
    }

    /// A subtitle read came back.
    mutating func subtitleRead(_ r: SubtitleRead, url: String, result: Result<SubtitleAnswer, SubtitleReadFailure>, at t: Double)
        -> [SessionFact]
    {
        guard var track = subtitles else { return [] }
        var facts: [SessionFact] = []
        defer { subs.keep(track) }
        track.plannedAt = nil
        let name = AudioRenditions.label(track.rendition)
        switch (r, result) {
        case (.playlist(let uri), _) where uri != track.rendition.uri: return []
        case (.playlist, .success(.playlist(let m))):
            track.playlistInFlight = false
            track.playlist = m
            track.playlistURL = url
            track.playlistFailures = 0
        case (.playlist, .failure(let f)):
            track.playlistInFlight = false
            track.playlistFailures += 1
            if track.playlistFailures == 1 || track.playlist == nil && track.playlistFailures % 4 == 0 {
                note(.warn, "subtitles: the playlist of \(name) failed: \(f.cause)", t)
            }
        case (.segment(_, _, let base, _), _) where base != track.playlistURL:
            // Read for another rendition (the choice changed while it was in flight): not this one's.
            return []
        case (.playlist, .success(.text)), (.playlist, .success(.documents)), (.segment, .success(.playlist)):
            return []
        case (.segment(let msn, _, _, _), .success(let answer)):
            facts += segmentRead(answer, msn: msn, track: &track, at: t)
        case (.segment(let msn, _, _, _), .failure(let f)):
            track.inFlight.remove(msn)
            let count = (track.failures[msn]?.count ?? 0) + 1
            track.failures[msn] = (count, t)
            track.readFailures += 1
            note(.warn, "subtitles: segment \(msn) of \(name) failed\(count >= 3 ? " three times, given up" : ""): \(f.cause)", t)
        }
        return facts
    }

    /// A subtitle segment read: its cues on the player's clock, the WebVTT rules of RFC 8216bis §3.1.4 (IMSC1: §3.1.5), and
    /// its timing kept to be checked against the media once measured.
    mutating func segmentRead(_ answer: SubtitleAnswer, msn: Int, track: inout SubtitleTrack, at t: Double) -> [SessionFact] {
        var facts: [SessionFact] = []
        let name = AudioRenditions.label(track.rendition)
        track.inFlight.remove(msn)
        track.read.insert(msn)
        track.failures[msn] = nil
        track.segmentsRead += 1
        let listed = track.playlist?.segments.first { $0.mediaSequence == msn }
        let dsn = listed?.discontinuitySequence ?? 0
        let rendition = "SUBTITLES \(track.rendition.groupID)/\(track.rendition.name)"
        var cues: [SubtitleCue] = []
        var map: WebVTT.TimestampMap?
        var problems: [String] = []
        if case .text(let text) = answer {
            let doc = WebVTT.parse(text)
            problems = doc.problems.filter { $0 != "no WEBVTT signature on the first line" }
            map = doc.timestampMap
            if !doc.hasHeader {
                facts += subtitleFinding(
                    ContinuityFinding(
                        .webvttHeader, .error, "RFC 8216bis §3.1.4", msn: msn,
                        "segment \(msn) does not start with WEBVTT (its cues are still read)"), rendition: rendition, at: t)
            }
            if doc.timestampMap == nil {
                facts += subtitleFinding(
                    ContinuityFinding(
                        .webvttTimestampMap, .warning, "RFC 8216bis §3.1.4", msn: msn,
                        "segment \(msn) has no X-TIMESTAMP-MAP: cue time 0 taken as media time 0"), rendition: rendition, at: t)
            }
            let reference = sample.timePos ?? clock.firstPTS.values.max()
            cues = doc.cues.map { c -> SubtitleCue in
                var start = doc.mediaTime(c.start)
                if let ref = reference {
                    // An MPEG-2 timestamp that wrapped while the player's clock ran on (§3.1.4): the turn nearest.
                    let turns = ((ref - start) / WebVTT.wrapSeconds).rounded()
                    start += turns * WebVTT.wrapSeconds
                }
                return SubtitleCue(start: start, end: start + (c.end - c.start), lines: c.lines, msn: msn, dsn: dsn)
            }
        } else if case .documents(let docs) = answer {
            // IMSC1: TTML times lie on the track's media timeline, the clock of the other renditions (§3.1.5).
            if docs.isEmpty { problems.append("no TTML document in the segment's mdat") }
            for d in docs.map(TTML.parse) {
                problems += d.problems
                cues += d.cues.map { SubtitleCue(start: $0.start, end: $0.end, lines: $0.lines, msn: msn, dsn: dsn) }
            }
        }
        for p in problems {
            let kind = String(p.prefix { $0 != ":" })
            if track.problemsSaid.insert(kind).inserted { note(.warn, "subtitles: segment \(msn) of \(name): \(p)", t) }
        }
        track.add(cues, msn: msn)
        if let listed, let m = track.playlist {
            let i = m.segments.firstIndex { $0.mediaSequence == msn }
            track.timingChecks.append(
                TimingCheck(
                    msn: msn, pdt: listed.effectiveProgramDateTime, position: i.map { Timeline.startTimes(m)[$0] },
                    duration: listed.duration, cues: cues, map: map, imsc: { if case .documents = answer { true } else { false } }(),
                    since: t))
            if track.timingChecks.count > 50 { track.timingChecks.removeFirst() }
        }
        return facts
    }

    /// A subtitle rule broken: said once per rendition and rule (docs/SUBTITLES.md), counted with the reload rules.
    mutating func subtitleFinding(_ f: ContinuityFinding, rendition: String, at t: Double) -> [SessionFact] {
        guard checks.subtitle(f, rendition: rendition) else { return [] }
        note(f.severity == .error ? .warn : .info, "subtitles: \(f.message) (\(f.rule.rawValue), \(f.section))", t)
        return [.violation(rung: nil, rendition: rendition, finding: f)]
    }

    /// The cues of the segments read, against the media's timestamps at the same moment (the video segment there, measured
    /// by the Loader): a segment whose cues all lie outside the time it covers has an X-TIMESTAMP-MAP that disagrees with
    /// the media. A segment whose moment is never measured is dropped after 30 s.
    mutating func checkSubtitleTiming(at t: Double) -> [SessionFact] {
        guard var track = subtitles, !track.timingChecks.isEmpty else { return [] }
        var facts: [SessionFact] = []
        var kept: [TimingCheck] = []
        for c in track.timingChecks {
            guard let expected = subtitleMediaTime(c) else {
                if t - c.since < 30 { kept.append(c) }
                continue
            }
            let (from, to) = (expected - 0.5, expected + c.duration + 0.5)
            guard let first = c.cues.first, !c.cues.contains(where: { $0.end > from && $0.start < to }) else { continue }
            let off = first.start - expected
            let map = c.map.map { "MPEGTS:\($0.mpegts),LOCAL:\(fixed($0.local, 3))" } ?? "none"
            let why = c.imsc ? "its TTML times" : "X-TIMESTAMP-MAP \(map)"
            facts += subtitleFinding(
                ContinuityFinding(
                    c.imsc ? .imscOffMedia : .webvttOffMedia, .error, c.imsc ? "RFC 8216bis §3.1.5" : "RFC 8216bis §3.1.4", msn: c.msn,
                    "segment \(c.msn)'s cues lie \(fixed(abs(off), 1)) s \(off > 0 ? "after" : "before") the media they belong to (\(why): the first cue at \(fixed(first.start, 3)) s, the video there at \(fixed(expected, 3)) s)"
                ), rendition: "SUBTITLES \(track.rendition.groupID)/\(track.rendition.name)", at: t)
        }
        track.timingChecks = kept
        subs.keep(track)
        return facts
    }

    /// The media time (the player's clock) at the start of a subtitle segment: from the video segment that holds its PDT, or
    /// on VOD its position, once that segment's first PTS is measured.
    func subtitleMediaTime(_ c: TimingCheck) -> Double? {
        if let pdt = c.pdt {
            for (msn, f) in seen {
                guard let p = f.pdt, let pts = clock.firstPTS[msn] else { continue }
                let off = pdt.seconds(since: p)
                if off > -0.05 && off < f.duration - 0.05 { return pts + off }
            }
            return nil
        }
        guard let pos = c.position, let m = playingMedia, m.endList, let i = Timeline.segmentIndex(at: pos + 0.01, in: m),
            let pts = clock.firstPTS[m.segments[i].mediaSequence]
        else { return nil }
        return pts + pos - Timeline.startTimes(m)[i]
    }

    /// The cue at the playhead (raw time `time`, read just now): what is shown, and the change when it is one. Captions in
    /// the video are what the player shows now (`captions`, its `sub-text`): they carry no cue times, so a caption's start
    /// is the playhead where it was first seen and its end unknown.
    mutating func followSubtitles(time: Double?, captions: String? = nil, at t: Double) -> [SessionFact] {
        guard var track = subtitles, let time, !playerLoading else { return [] }
        let now: [SubtitleCue]
        let timed = track.rendition.type != "CLOSED-CAPTIONS"
        // Captions hlstui decodes know when they were shown: the picture's time.
        var own = false
        if timed {
            let dsn = freshPoint(time).flatMap { p in playingMedia?.segments.first { $0.mediaSequence == p.msn }?.discontinuitySequence }
            now = track.active(at: time, dsn: dsn)
            guard now != track.shown else { return [] }
        } else {
            // CC1 as the player shows it; another channel as hlstui decodes it from the segments' caption data, with the time
            // of the picture that showed it — never CC1's words under its name.
            var lines: [String] = []
            var start = time
            if ClosedCaptions.decoded(track.rendition) {
                lines = ClosedCaptions.lines(captions)
            } else if let channel = ClosedCaptions.ownChannel(track.rendition),
                let msn = playingMedia.flatMap({ clock.locate(time, in: $0) })?.msn
            {
                lines = ClosedCaptions.lines(closedCaptions.caption(channel, at: time, msn: msn))
                start = closedCaptions.since ?? time
            }
            guard lines != track.shown.flatMap(\.lines) else { return [] }
            now = lines.isEmpty ? [] : [SubtitleCue(start: start, end: time, lines: lines, msn: playhead?.msn ?? 0, dsn: 0)]
            own = ClosedCaptions.ownChannel(track.rendition) != nil
        }
        track.shown = now
        subs.keep(track)
        let shown = SubtitleShown(
            t: t, lines: now.flatMap(\.lines), start: timed || own ? now.map(\.start).min() : nil, end: timed ? now.map(\.end).min() : nil,
            at: time, rendition: track.rendition)
        return [.subtitle(shown)]
    }
}

/// A subtitle segment whose cues are checked against the media's timestamps once the video at the same moment is measured.
struct TimingCheck: Sendable {
    var msn: Int
    /// Where the segment lies: its PDT, its position in a VOD playlist, its length.
    var pdt: DateTime?
    var position: Double?
    var duration: Double
    /// Its cues on the player's clock, and its map as written.
    var cues: [SubtitleCue]
    var map: WebVTT.TimestampMap?
    /// IMSC1 (TTML times on the media timeline) rather than WebVTT.
    var imsc = false
    var since: Double
}

/// What a subtitle read gave: the rendition's playlist (parsed by the Loader, with the multivariant playlist's variables) or a
/// segment's text.
public enum SubtitleAnswer: Sendable {
    case playlist(MediaPlaylist)
    /// A WebVTT segment (RFC 8216bis §3.1.4).
    case text(String)
    /// An IMSC1 segment's TTML documents, read out of its fragmented MP4 (§3.1.5).
    case documents([String])
}
