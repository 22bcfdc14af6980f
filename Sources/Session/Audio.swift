import HLS

/// The audio rendition a person asked for (docs/RENDITIONS.md): by NAME, else by LANGUAGE. It follows rung switches: each
/// variant's AUDIO group is searched for the same NAME, then the same LANGUAGE (RFC 8216bis §4.4.6.1: a group's renditions
/// are alternatives of the same content).
public struct AudioPreference: Sendable, Equatable {
    /// A NAME or a LANGUAGE tag, as given on the command line or in a script (`--audio de`, `audio Deutsch`).
    public var query: String?
    /// The rendition picked last: matched by its NAME first, then its LANGUAGE.
    public var name: String?
    public var language: String?

    public init(query: String) { self.query = query }
    public init(name: String, language: String?) {
        self.name = name
        self.language = language
    }
    init(_ r: Rendition) { self.init(name: r.name, language: r.language) }
}

/// What a variant's AUDIO group gives for a choice.
public struct AudioPick: Sendable, Equatable {
    public var rendition: Rendition
    /// False when the group has nothing the choice names: the group's DEFAULT (else its first) plays instead.
    public var honoured: Bool
}

/// How a person moves through the audio renditions: the next of the group, or one by NAME or LANGUAGE.
public enum AudioSelect: Sendable, Equatable, CustomStringConvertible {
    case next
    case named(String)

    /// As `monitor`'s command events spell it: `next`, or the name asked for.
    public var description: String {
        switch self {
        case .next: "next"
        case .named(let q): q
        }
    }
}

public enum AudioRenditions {
    /// The AUDIO renditions of `group`, in the order the playlist lists them.
    public static func group(_ group: String?, in renditions: [Rendition]) -> [Rendition] {
        guard let group else { return [] }
        return renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
    }

    /// Whether `tag` names `language`: equal ignoring case (RFC 5646 §2.1.1), or `tag` is its primary subtag ("de" for "de-CH").
    static func matches(_ tag: String, _ language: String?) -> Bool {
        guard let l = language?.lowercased() else { return false }
        let t = tag.lowercased()
        return l == t || l.split(separator: "-").first.map(String.init) == t
    }

    /// The rendition of `group` that `choice` picks: its NAME, then its LANGUAGE; without a choice, or when nothing matches,
    /// the group's DEFAULT=YES rendition, else its first (RFC 8216bis §4.4.6.1: the client chooses DEFAULT absent a choice).
    public static func pick(_ choice: AudioPreference?, in group: [Rendition]) -> AudioPick? {
        guard let first = group.first else { return nil }
        let fallback = group.first(where: \.isDefault) ?? first
        guard let choice else { return AudioPick(rendition: fallback, honoured: true) }
        let byName = { (n: String) in group.first { $0.name.lowercased() == n.lowercased() } }
        let byLanguage = { (tag: String) in
            group.first { $0.language?.lowercased() == tag.lowercased() } ?? group.first { matches(tag, $0.language) }
        }
        let found =
            choice.name.flatMap(byName) ?? choice.language.flatMap(byLanguage) ?? choice.query.flatMap(byName)
            ?? choice.query.flatMap(byLanguage)
        return AudioPick(rendition: found ?? fallback, honoured: found != nil)
    }

    /// The rendition `select` moves to from `current` within `group`: the next (after the last, the first), or the one named.
    public static func target(_ select: AudioSelect, from current: Rendition?, in group: [Rendition]) -> Rendition? {
        switch select {
        case .next:
            guard !group.isEmpty else { return nil }
            let i = current.flatMap { c in group.firstIndex { $0.name == c.name && $0.language == c.language } } ?? -1
            return group[(i + 1) % group.count]
        case .named(let q):
            let p = pick(AudioPreference(query: q), in: group)
            return p?.honoured == true ? p?.rendition : nil
        }
    }

    /// One line for a rendition: `Deutsch [de] 2ch`; a subtitle rendition marked FORCED=YES says so (`English [en] forced`).
    public static func label(_ r: Rendition) -> String {
        r.name + (r.language.map { " [\($0)]" } ?? "") + (r.channels.map { " \($0.split(separator: "/").first ?? "")ch" } ?? "")
            + (r.forced && r.type == "SUBTITLES" ? " forced" : "")
    }
}

/// Why the audio that plays changed.
public enum AudioReason: String, Sendable {
    /// The first stream given to the player.
    case start
    /// A person asked (`A`, `audio` in a script).
    case manual
    /// A rung switch: the new variant's AUDIO group is another, or lacks the choice.
    case variant
}

/// The audio rendition given to the player changed (a `rendition` event in `monitor`).
public struct AudioChange: Sendable, Equatable {
    public var t: Double
    public var from: Rendition?
    public var to: Rendition
    public var reason: AudioReason
    /// False when the new variant's group has nothing the choice names: its DEFAULT plays instead.
    public var honoured: Bool
    /// How a person's switch was carried out (`reload+seek` on VOD, `reload@boundary` live), and from which segment.
    public var mechanism: SwitchMechanism?
    public var atMSN: Int?
    public init(
        t: Double, from: Rendition? = nil, to: Rendition, reason: AudioReason, honoured: Bool, mechanism: SwitchMechanism? = nil,
        atMSN: Int? = nil
    ) {
        (self.t, self.from, self.to, self.reason, self.honoured) = (t, from, to, reason, honoured)
        (self.mechanism, self.atMSN) = (mechanism, atMSN)
    }
}

/// The audio rendition chosen and the one the player plays (a feature sub-state, docs/ARCHITECTURE.md; docs/RENDITIONS.md).
/// Its state changes only through its transitions; which rendition a rung's group gives and how a switch is carried out are
/// the Session's (`SessionState.audioPick`, `planAudio`).
public struct AudioChoice: Sendable, Equatable {
    /// What was chosen (`--audio`, `A`, `audio` in a script); nil: each group's DEFAULT.
    public private(set) var preference: AudioPreference?
    /// The rendition the player was last given; nil when its variant names no AUDIO group.
    public private(set) var playing: Rendition?
    /// A person's switch, until the stream that carries it out is given.
    private(set) var asked: AudioChange?

    public init() {}

    /// `--audio` at start: the choice the first stream is given with.
    init(query: String?) { preference = query.map { AudioPreference(query: $0) } }

    /// A person chose `to`: kept by NAME and LANGUAGE, so it follows rung switches across groups.
    mutating func choose(_ to: Rendition) { preference = AudioPreference(to) }

    /// A person's switch to be carried out by the next stream given.
    mutating func ask(_ change: AudioChange) { asked = change }

    /// The player was given a stream whose variant's group gives `pick` (nil: the variant names no group). What played
    /// before and the person's switch it carries out, or nil when nothing plays now.
    mutating func given(_ pick: AudioPick?) -> (before: Rendition?, asked: AudioChange?)? {
        guard let pick else {
            playing = nil
            return nil
        }
        defer {
            playing = pick.rendition
            asked = nil
        }
        return (playing, asked)
    }
}

extension SessionState {
    /// The audio rendition chosen (`--audio`, `A`, `audio` in a script; docs/RENDITIONS.md); nil: each group's DEFAULT.
    public var audioChoice: AudioPreference? { audio.preference }
    /// The audio rendition the player was last given; nil when its variant names no AUDIO group.
    public var playingAudio: Rendition? { audio.playing }

    /// The AUDIO group of `rung`'s variant, in playlist order (empty: the variant names none, or a media playlist was opened).
    public func audioGroup(rung: Int) -> [Rendition] {
        AudioRenditions.group(ladder.rungs[safe: rung]?.variant.audio, in: ladder.renditions)
    }

    /// The rendition the player is given with `rung` (the choice, else the group's DEFAULT); nil when the variant has no group.
    public func audioPick(rung: Int) -> AudioPick? { AudioRenditions.pick(audioChoice, in: audioGroup(rung: rung)) }

    /// The player was given `rung` with its pick: what plays now, and the change when it is one.
    mutating func audioGiven(rung: Int, at t: Double) -> [SessionFact] {
        let pick = audioPick(rung: rung)
        guard let given = audio.given(pick), let pick else { return [] }
        let (before, asked) = given
        if let before, before.name == pick.rendition.name, before.language == pick.rendition.language,
            before.groupID == pick.rendition.groupID
        {
            return []
        }
        let reason: AudioReason = asked != nil ? .manual : (before == nil ? .start : .variant)
        let change = AudioChange(
            t: t, from: before, to: pick.rendition, reason: reason, honoured: pick.honoured, mechanism: asked?.mechanism,
            atMSN: asked?.atMSN)
        let what = AudioRenditions.label(pick.rendition)
        switch reason {
        case .start: note(.info, "audio: \(what)\(pick.honoured ? "" : " (the group has nothing --audio names: its default)")", t)
        case .manual:
            note(.info, "audio: \(before.map(AudioRenditions.label) ?? "-") → \(what) (\(asked?.mechanism?.rawValue ?? "reload"))", t)
        case .variant:
            note(
                pick.honoured ? .info : .warn,
                "audio: \(what) with rung \(rung)"
                    + (pick.honoured
                        ? ""
                        : " — group \(pick.rendition.groupID) has no \(audioChoice.map(Self.describe) ?? "choice"): its default plays"),
                t)
        }
        return [.audio(change)]
    }

    static func describe(_ c: AudioPreference) -> String {
        c.name.map { n in n + (c.language.map { " [\($0)]" } ?? "") } ?? c.query ?? "-"
    }

    /// A person's audio switch: the choice changes now, and the player is given the new rendition by a reload of the rung it
    /// plays — at the playhead and sought there in the fresh cache on VOD, at the next segment boundary live (the mechanisms of
    /// an fMP4 rung switch, docs/RENDITIONS.md). A rung switch waiting for its boundary keeps its rung.
    mutating func planAudio(_ select: AudioSelect, look: PlayerLook, at t: Double) -> PanePlan {
        var plan = PanePlan()
        guard let rung = loadedRung else { return plan }
        let group = audioGroup(rung: rung)
        if group.count < 2 {
            note(.warn, group.isEmpty ? "audio: this variant names no AUDIO group" : "audio: this variant's group offers one rendition", t)
            return plan
        }
        guard let to = AudioRenditions.target(select, from: playingAudio, in: group) else {
            if case .named(let q) = select {
                note(
                    .warn,
                    "audio: no rendition named \(q) in group \(group[0].groupID) (\(group.map(AudioRenditions.label).joined(separator: ", ")))",
                    t)
            }
            return plan
        }
        audio.choose(to)
        if let p = playingAudio, p.name == to.name, p.language == to.language { return plan }
        let target = plannedReload?.rung ?? rung
        let live = playingMedia?.isLive ?? false
        let here = freshPoint(look.time)?.msn ?? playhead?.msn
        if !live, let time = look.time, let p = locate(time), plannedReload == nil {
            audio.ask(AudioChange(t: t, to: to, reason: .manual, honoured: true, mechanism: .reloadSeek, atMSN: p.msn))
            plan.effects = planReload(rung: target, msn: p.msn, to: .raw(time), at: t)
        } else {
            audio.ask(
                AudioChange(t: t, to: to, reason: .manual, honoured: true, mechanism: .reloadBoundary, atMSN: here.map { $0 + 1 }))
            switching.plan(PlannedReload(rung: target, boundary: plannedReload?.boundary ?? here.map { $0 + 1 }))
        }
        return plan
    }
}
