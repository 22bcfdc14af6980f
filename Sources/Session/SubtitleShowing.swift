import HLS

/// The subtitles asked for and the rendition shown, and the captions the video carries (a feature sub-state,
/// docs/ARCHITECTURE.md; docs/SUBTITLES.md). Its state changes only through its transitions; which rendition a choice
/// shows, what is read of it and the cue at the playhead are the Session's (`SessionState+Subtitles.swift`).
public struct SubtitleShowing: Sendable {
    /// What was asked for (`--subs`, `S`, `subs` in a script).
    public private(set) var choice = SubtitleChoice.automatic
    /// The rendition shown: what hlstui read of it and the cues at the playhead; nil when off.
    public private(set) var track: SubtitleTrack?
    /// The first stream was given: later changes of the subtitles are the variant's.
    private(set) var choiceSeen = false
    /// The player was told to show the captions in the video (`PaneEffect.closedCaptions`).
    public private(set) var captionsOn = false
    /// The player has shown captions decoded from the video (`PlayerSample.captions`), declared or not.
    public private(set) var captionsFound = false

    public init() {}

    /// `--subs` at start.
    init(query: String?) { choice = SubtitleChoice(query: query) }

    /// A person's choice.
    mutating func choose(_ c: SubtitleChoice) { choice = c }

    /// `rendition` shown from now on, read afresh (nil: off).
    mutating func show(_ rendition: Rendition?) { track = rendition.map { SubtitleTrack(rendition: $0) } }

    /// The shown track as its reads and the playhead have moved it.
    mutating func keep(_ t: SubtitleTrack) { track = t }

    /// A stream was given; true the first time.
    mutating func given() -> Bool {
        defer { choiceSeen = true }
        return !choiceSeen
    }

    /// The player shows the captions in the video (`on`) or not; false when that is already so.
    mutating func captions(_ on: Bool) -> Bool {
        guard on != captionsOn else { return false }
        captionsOn = on
        return true
    }

    /// The player showed captions decoded from the video.
    mutating func foundCaptions() { captionsFound = true }
}

extension SessionState {
    /// The subtitles asked for (`SubtitleShowing.choice`).
    public var subtitleChoice: SubtitleChoice { subs.choice }
    /// The subtitle rendition shown: what hlstui read of it and the cues at the playhead; nil when off.
    public var subtitles: SubtitleTrack? { subs.track }
    /// The player was told to show the captions in the video.
    public var captionsOn: Bool { subs.captionsOn }
    /// The player has shown captions decoded from the video, declared or not.
    public var captionsFound: Bool { subs.captionsFound }
}
