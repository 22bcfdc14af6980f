import HLS
import MediaFormats

/// Captions in the video as the Session follows them (docs/SUBTITLES.md, "Closed captions"): found by the player (CC1) or
/// in the segments' caption data (every channel), held to the variant's CLOSED-CAPTIONS, and the player told to draw CC1.
extension SessionState {
    /// Channels the segments' caption data spoke in for the first time: a playlist without CLOSED-CAPTIONS has them offered
    /// (RFC 8216bis §4.4.6.2: absent, the video may carry some; CC1 as the player finds it); one that says NONE broke
    /// §4.4.6.2, said once with what the player finds (`noticeCaptions`).
    mutating func noticeCaptions(in channels: Set<CaptionChannel>, at t: Double) -> [SessionFact] {
        guard !channels.isEmpty, let rung = loadedRung, let v = ladder.rungs[safe: rung]?.variant else { return [] }
        switch v.closedCaptions {
        case "NONE":
            guard !captionsFound else { return [] }
            let names = closedCaptions.found.sorted().map(\.description).joined(separator: ", ")
            return captionsDeclaredNone("captions (\(names))", at: t)
        case nil:
            for c in channels.sorted() where c != .cea608(1) { noteUndeclared("\(c) captions", as: ClosedCaptions.undeclared(c), at: t) }
            return []
        default:
            return []
        }
    }

    /// The video carries `what`, but the variant says CLOSED-CAPTIONS=NONE (RFC 8216bis §4.4.6.2): a finding, said once.
    mutating func captionsDeclaredNone(_ what: String, at t: Double) -> [SessionFact] {
        subs.foundCaptions()
        return subtitleFinding(
            ContinuityFinding(
                .captionsNone, .error, "RFC 8216bis §4.4.6.2", msn: playhead?.msn ?? 0,
                "the video carries \(what), but the variant says CLOSED-CAPTIONS=NONE"),
            rendition: "CLOSED-CAPTIONS NONE", at: t)
    }

    /// Captions the playlist does not declare, offered as `rendition`: said in the log.
    mutating func noteUndeclared(_ what: String, as rendition: Rendition, at t: Double) {
        note(.info, "subtitles: the video carries \(what) the playlist does not declare: offered as \(rendition.name)", t)
    }

    /// Captions the player decoded from the video, the first time: a playlist without CLOSED-CAPTIONS has them offered as
    /// CC1 (RFC 8216bis §4.4.6.2: absent, the video may carry some); one that says NONE broke §4.4.6.2.
    mutating func noticeCaptions(_ text: String?, at t: Double) -> [SessionFact] {
        guard !captionsFound, !ClosedCaptions.lines(text).isEmpty, let rung = loadedRung, let v = ladder.rungs[safe: rung]?.variant
        else { return [] }
        subs.foundCaptions()
        switch v.closedCaptions {
        case "NONE":
            return captionsDeclaredNone("CEA-608 captions", at: t)
        case nil:
            noteUndeclared("CEA-608 captions", as: ClosedCaptions.undeclared, at: t)
            return []
        default:
            return []
        }
    }

    /// The player told to show the captions in the video exactly while a CLOSED-CAPTIONS rendition it decodes is chosen.
    mutating func captionsWanted() -> [PaneEffect] {
        let want = subtitles.map { ClosedCaptions.decoded($0.rendition) } ?? false
        return subs.captions(want) ? [.closedCaptions(want)] : []
    }
}
