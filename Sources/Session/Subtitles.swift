import HLS
import MediaFormats

/// How a person moves through the subtitle renditions: the next (after the last: off), off, or one by NAME or LANGUAGE.
public enum SubtitleSelect: Sendable, Equatable, CustomStringConvertible {
    case next
    case off
    case named(String)

    /// As `monitor`'s command events and `--commands` spell it: `next`, `off`, or the name asked for.
    public var description: String {
        switch self {
        case .next: "next"
        case .off: "off"
        case .named(let q): q
        }
    }
}

/// The subtitles a person asked for (docs/SUBTITLES.md).
public enum SubtitleChoice: Sendable, Equatable {
    /// No choice: the group's DEFAULT=YES rendition (RFC 8216bis §4.4.6.1: played absent a choice), else none.
    case automatic
    case off
    /// A NAME or LANGUAGE; it follows rung switches as the audio choice does.
    case wanted(AudioPreference)

    /// `--subs NAME|LANGUAGE|off`.
    public init(query: String?) {
        guard let q = query else {
            self = .automatic
            return
        }
        self = q.lowercased() == "off" ? .off : .wanted(AudioPreference(query: q))
    }
}

/// One cue on the player's clock: raw media seconds (what mpv's `time-pos` reads with `rebase-start-time=no`).
public struct SubtitleCue: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var lines: [String]
    /// The subtitle segment it came from, and that segment's discontinuity sequence number (RFC 8216bis §4.4.3.3: the same
    /// in every rendition), which tells a timeline restarted within the window apart.
    public var msn: Int
    public var dsn: Int
    public init(start: Double, end: Double, lines: [String], msn: Int, dsn: Int) {
        self.start = start
        self.end = end
        self.lines = lines
        self.msn = msn
        self.dsn = dsn
    }
}

/// What the pane shows of the subtitles at the playhead changed (a `subtitle` event in `monitor`).
public struct SubtitleShown: Sendable, Equatable {
    public var t: Double
    /// The cue's lines (several cues at once: all their lines); empty: nothing shown any more.
    public var lines: [String]
    /// The cue's times on the player's clock (the earliest start and end of the cues shown).
    public var start: Double?
    public var end: Double?
    /// The playhead (raw media time) when the change was seen: how late it came is `at - start`.
    public var at: Double
    public var rendition: Rendition
    public init(t: Double, lines: [String], start: Double?, end: Double?, at: Double, rendition: Rendition) {
        (self.t, self.lines, self.start, self.end, self.at, self.rendition) = (t, lines, start, end, at, rendition)
    }
}

/// The subtitle rendition shown changed (a `rendition` event with type `subtitles`).
public struct SubtitleChange: Sendable, Equatable {
    public var t: Double
    public var from: Rendition?
    /// nil: off.
    public var to: Rendition?
    public var reason: AudioReason
    /// False when nothing in the group matches the choice.
    public var honoured: Bool
    public init(t: Double, from: Rendition?, to: Rendition?, reason: AudioReason, honoured: Bool) {
        (self.t, self.from, self.to, self.reason, self.honoured) = (t, from, to, reason, honoured)
    }
}

/// A read of the subtitle rendition hlstui makes for itself (the player is given none: DECISIONS.md, "Subtitles read by
/// hlstui").
public enum SubtitleRead: Sendable, Equatable {
    /// The rendition's media playlist, `uri` as the multivariant playlist lists it.
    case playlist(uri: String)
    /// One WebVTT segment, `uri` as its playlist (read at `base`) lists it.
    case segment(msn: Int, uri: String, base: String, range: ByteRange?)
}

/// The rendition shown, what hlstui has read of it and the cues on the player's clock: the subtitle track's state.
public struct SubtitleTrack: Sendable {
    public var rendition: Rendition
    /// The playlist as last read, and the URL it was read at.
    public internal(set) var playlist: MediaPlaylist?
    public internal(set) var playlistURL: String?
    var playlistAsked: Double?
    /// When the reads were last planned (four times a second is enough for segments seconds long).
    var plannedAt: Double?
    var playlistInFlight = false
    var playlistFailures = 0
    var inFlight: Set<Int> = []
    var read: Set<Int> = []
    var failures: [Int: (count: Int, at: Double)] = [:]
    /// The cues read so far, in start order.
    public internal(set) var cues: [SubtitleCue] = []
    /// What is shown at the playhead now.
    public internal(set) var shown: [SubtitleCue] = []
    /// Each problem of the rendition's segments said (once per kind).
    var problemsSaid: Set<String> = []
    /// Segments read whose cues wait to be checked against the media's timestamps (the newest 50).
    var timingChecks: [TimingCheck] = []
    /// Segments read, and the segments whose text broke a rule.
    public internal(set) var segmentsRead = 0
    public internal(set) var readFailures = 0

    init(rendition: Rendition) { self.rendition = rendition }

    /// The cues shown at raw time `t`: those running then whose timeline is the playhead's (`dsn`, when the subtitle playlist
    /// names that discontinuity sequence at all).
    public func active(at t: Double, dsn: Int?) -> [SubtitleCue] {
        // Half a millisecond either way: cue times written to the millisecond meet frames timed to the 90 kHz tick.
        let running = cues.filter { $0.start <= t + 0.0005 && t < $0.end - 0.0005 }
        guard let dsn, cues.contains(where: { $0.dsn == dsn }) else { return Self.distinct(running) }
        return Self.distinct(running.filter { $0.dsn == dsn })
    }

    /// A cue that spans a segment edge is written in both segments (RFC 8216bis §3.1.4 has each segment carry its own
    /// cues): shown once.
    static func distinct(_ cues: [SubtitleCue]) -> [SubtitleCue] {
        var out: [SubtitleCue] = []
        for c in cues where !out.contains(where: { $0.lines == c.lines && abs($0.start - c.start) < 0.002 && abs($0.end - c.end) < 0.002 })
        {
            out.append(c)
        }
        return out
    }

    /// Adds the cues of segment `msn`; at most `cueLimit` are kept, the oldest segments' dropped first (and read again when
    /// the playhead comes back to them).
    mutating func add(_ new: [SubtitleCue], msn: Int) {
        cues.removeAll { $0.msn == msn }
        cues += new
        cues.sort { $0.start < $1.start }
        while cues.count > Self.cueLimit, let oldest = cues.map(\.msn).min() {
            cues.removeAll { $0.msn == oldest }
            read.remove(oldest)
        }
        if read.count > 2 * Self.cueLimit { read = Set(read.sorted().suffix(Self.cueLimit)) }
    }

    /// Enough for a feature film's subtitles; a live session of days drops its oldest.
    public static let cueLimit = 4000
    /// How far ahead of the playhead subtitle segments are read (seconds of the playlist).
    public static let readAhead = 30.0
    /// Segments read at once.
    static let parallel = 4
}

/// Why a subtitle read failed, in one line.
public struct SubtitleReadFailure: Error, Sendable, Equatable {
    public var cause: String
    public init(cause: String) { self.cause = cause }
}

/// Captions carried in the video (RFC 8216bis §4.4.6.1: a CLOSED-CAPTIONS rendition names them by INSTREAM-ID): CC1 the
/// player decodes with the frames, and what it shows is read from it; every other channel hlstui decodes itself from the
/// segments' caption data (`CaptionTrack`; docs/SUBTITLES.md, "Closed captions").
public enum ClosedCaptions {
    /// The player shows this rendition: FFmpeg 5.1's CEA-608 decoder reads the first channel of the first field it meets, so
    /// CC1 only.
    public static func decoded(_ r: Rendition) -> Bool { r.type == "CLOSED-CAPTIONS" && r.instreamID == "CC1" }

    /// The channel hlstui decodes for this rendition itself: CC2–CC4 and CEA-708 services.
    public static func ownChannel(_ r: Rendition) -> CaptionChannel? {
        guard r.type == "CLOSED-CAPTIONS", !decoded(r) else { return nil }
        return r.instreamID.flatMap(CaptionChannel.init(instreamID:))
    }

    /// What captions the playlist does not declare are offered as: CC1 once the player has shown some (`captionsFound`),
    /// another channel once the segments' caption data said something in it (`CaptionTrack.found`).
    public static func undeclared(_ channel: CaptionChannel) -> Rendition {
        Rendition(
            type: "CLOSED-CAPTIONS", groupID: "", name: "\(channel) (undeclared)", isDefault: false, autoselect: false, forced: false,
            instreamID: "\(channel)")
    }
    public static let undeclared = undeclared(.cea608(1))

    /// Why a rendition with no channel shows nothing, in one line.
    public static let undecodedReason = "not a caption channel (CC1–CC4, SERVICE1–SERVICE63), so nothing is shown"

    /// The lines of what the player shows (`sub-text`), blanks and surrounding spaces dropped.
    static func lines(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: \.isNewline).map { line in
            String(line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }.filter { !$0.isEmpty }
    }
}
