import HLS
import Foundation

/// One condition of a `--variant` qualifier: `avg<=3M`, `bw<=5M`, `height<=720`, `fps<=30`, `codec=hvc1|avc1`, `range=PQ|SDR`.
/// A `|` list is an ordered preference: a variant matching an earlier value ranks before one matching a later.
public enum VariantCondition: Sendable, Equatable {
    case averageBandwidth(atMost: Int)
    case bandwidth(atMost: Int)
    case height(atMost: Int)
    case frameRate(atMost: Double)
    case codec([String])
    case videoRange([String])
}

/// A `--variant` qualifier: every condition must hold.
public struct VariantQualifier: Sendable, Equatable, CustomStringConvertible {
    public var conditions: [VariantCondition]
    public var description: String

    /// Parses `avg<=3M,codec=hvc1|avc1`; nil with the reason for text that is not one.
    public static func parse(_ text: String) -> Result<VariantQualifier, SelectionError> {
        var conditions: [VariantCondition] = []
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            if let r = part.range(of: "<=") {
                let name = part[..<r.lowerBound].lowercased()
                let value = String(part[r.upperBound...])
                switch name {
                case "avg", "average", "average-bandwidth":
                    guard let v = parseRate(value) else { return .failure(SelectionError("--variant: \(part): not a bitrate")) }
                    conditions.append(.averageBandwidth(atMost: v))
                case "bw", "bandwidth", "bitrate":
                    guard let v = parseRate(value) else { return .failure(SelectionError("--variant: \(part): not a bitrate")) }
                    conditions.append(.bandwidth(atMost: v))
                case "height", "res", "resolution":
                    guard let v = parseHeight(value) else { return .failure(SelectionError("--variant: \(part): not a height")) }
                    conditions.append(.height(atMost: v))
                case "fps", "frame-rate":
                    guard let v = Double(value), v > 0 else { return .failure(SelectionError("--variant: \(part): not a frame rate")) }
                    conditions.append(.frameRate(atMost: v))
                default: return .failure(SelectionError("--variant: \(part): unknown (avg, bw, height, fps take <=)"))
                }
            } else if let eq = part.firstIndex(of: "=") {
                let name = part[..<eq].lowercased()
                let values = part[part.index(after: eq)...].split(separator: "|").map { String($0).lowercased() }
                guard !values.isEmpty else { return .failure(SelectionError("--variant: \(part): no value")) }
                switch name {
                case "codec", "codecs": conditions.append(.codec(values))
                case "range", "video-range": conditions.append(.videoRange(values))
                default: return .failure(SelectionError("--variant: \(part): unknown (codec and range take =)"))
                }
            } else {
                return .failure(SelectionError("--variant: \(part): expected NAME<=VALUE or NAME=A|B"))
            }
        }
        guard !conditions.isEmpty else { return .failure(SelectionError("--variant: empty qualifier")) }
        return .success(VariantQualifier(conditions: conditions, description: text))
    }

    /// Nil when `v` fails a condition; otherwise its preference rank (lower is better: the positions of the `|` values it matched).
    func rank(_ v: Variant) -> [Int]? {
        var rank: [Int] = []
        for c in conditions {
            switch c {
            case .averageBandwidth(let max):
                guard let b = v.averageBandwidth ?? v.bandwidth, b <= max else { return nil }
            case .bandwidth(let max):
                guard let b = v.bandwidth, b <= max else { return nil }
            case .height(let max):
                guard let h = v.resolution?.height, h <= max else { return nil }
            case .frameRate(let max):
                guard let f = v.frameRate, f <= max + 0.01 else { return nil }
            case .codec(let wanted):
                let codecs = v.codecList.map { $0.lowercased() }
                guard let i = wanted.firstIndex(where: { w in codecs.contains { $0.hasPrefix(w) } }) else { return nil }
                rank.append(i)
            case .videoRange(let wanted):
                guard let i = wanted.firstIndex(of: (v.videoRange ?? "SDR").lowercased()) else { return nil }
                rank.append(i)
            }
        }
        return rank
    }
}

/// Which audio renditions to keep: the group's default, all of them, or these languages (`en` matches `en-US`).
public enum AudioChoice: Sendable, Equatable {
    case byDefault, all
    case languages([String])

    public static func parse(_ text: String) -> AudioChoice {
        switch text.lowercased() {
        case "default": return .byDefault
        case "all": return .all
        default: return .languages(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        }
    }
}

/// Which subtitle renditions to keep.
public enum SubtitleChoice: Sendable, Equatable {
    case all, none
    case languages([String])

    public static func parse(_ text: String) -> SubtitleChoice {
        switch text.lowercased() {
        case "all": return .all
        case "none": return .none
        default: return .languages(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        }
    }
}

/// What `hlstui download` was asked to keep.
public struct SelectionOptions: Sendable, Equatable {
    public var maxHeight: Int?
    public var maxBitrate: Int?
    public var qualifiers: [VariantQualifier] = []
    public var audio: AudioChoice = .byDefault
    public var subtitles: SubtitleChoice = .all
    public init() {}
}

public struct SelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// What was chosen from a multivariant playlist, and why, in words for the manifest and the terminal.
public struct Selection: Sendable, Equatable {
    /// Index into the multivariant's variants.
    public var variant: Int
    /// Indexes into its renditions.
    public var audio: [Int]
    public var subtitles: [Int]
    public var reasons: [String]
    /// Said once, not fatal: a language asked for that the stream does not have.
    public var warnings: [String]
}

/// Chooses the rendition set (pure; the DRM check needs the media playlists, so the caller passes what it refused).
public enum Selector {
    /// `refused`: variant indexes that cannot be stored (a DRM key system), with the reason said once by the caller.
    public static func select(_ m: MultivariantPlaylist, _ o: SelectionOptions, refused: Set<Int> = []) -> Result<Selection, SelectionError>
    {
        var reasons: [String] = []
        let all = m.variants.indices.filter { !refused.contains($0) }
        guard !all.isEmpty else { return .failure(SelectionError("no variant that can be stored")) }
        // Video first: an audio-only variant is chosen only when the stream has nothing else (or every video one is filtered out).
        let hasVideo = { (i: Int) in
            m.variants[i].resolution != nil
                || m.variants[i].codecList.contains {
                    $0.hasPrefix("avc") || $0.hasPrefix("hvc") || $0.hasPrefix("hev") || $0.hasPrefix("av01") || $0.hasPrefix("dvh")
                        || $0.hasPrefix("vp")
                }
        }
        var pool = all
        if let h = o.maxHeight {
            pool = pool.filter { (m.variants[$0].resolution?.height ?? 0) <= h }
            reasons.append("--max-resolution \(h)p")
        }
        if let b = o.maxBitrate {
            pool = pool.filter { (m.variants[$0].averageBandwidth ?? m.variants[$0].bandwidth ?? 0) <= b }
            reasons.append("--max-bitrate \(b) (AVERAGE-BANDWIDTH, else BANDWIDTH)")
        }
        guard !pool.isEmpty else {
            return .failure(
                SelectionError(
                    "no variant within \(reasons.joined(separator: " and ")) (lowest: \(describe(m.variants[all.min { bw(m.variants[$0]) < bw(m.variants[$1]) }!])))"
                ))
        }
        var chosen: [Int] = pool
        if !o.qualifiers.isEmpty {
            var matched: (Int, VariantQualifier, [Int])?
            for q in o.qualifiers {
                let ranked = pool.compactMap { i in q.rank(m.variants[i]).map { (i, $0) } }
                guard let best = ranked.map(\.1).min(by: { $0.lexicographicallyPrecedes($1) }) else { continue }
                matched = (0, q, ranked.filter { $0.1 == best }.map(\.0))
                break
            }
            guard let (_, q, ids) = matched else {
                return .failure(SelectionError("no variant matches --variant \(o.qualifiers.map(\.description).joined(separator: " or "))"))
            }
            chosen = ids
            reasons.append("--variant \(q.description)")
        }
        let video = chosen.filter(hasVideo)
        let candidates = video.isEmpty ? chosen : video
        let variant = candidates.max { bw(m.variants[$0]) < bw(m.variants[$1]) }!
        reasons.insert("\(describe(m.variants[variant])): the highest that qualifies", at: 0)
        if !refused.isEmpty { reasons.append("\(refused.count) variant(s) left out: DRM") }

        var warnings: [String] = []
        let v = m.variants[variant]
        let groupAudio = m.renditions.indices.filter { m.renditions[$0].type == "AUDIO" && m.renditions[$0].groupID == v.audio }
        var audio: [Int]
        switch o.audio {
        case .all: audio = groupAudio
        case .byDefault:
            audio = groupAudio.first { m.renditions[$0].isDefault }.map { [$0] } ?? Array(groupAudio.prefix(1))
        case .languages(let langs):
            audio = groupAudio.filter { i in langs.contains { matches(m.renditions[i].language, $0) } }
            for l in langs where !groupAudio.contains(where: { matches(m.renditions[$0].language, l) }) {
                warnings.append("no audio rendition in \(l) (group \(v.audio ?? "none") has \(languages(groupAudio, m)))")
            }
            if audio.isEmpty, let d = groupAudio.first(where: { m.renditions[$0].isDefault }) ?? groupAudio.first {
                audio = [d]
                warnings.append("kept the default audio, \(m.renditions[d].name)")
            }
        }
        let groupSubs = m.renditions.indices.filter { m.renditions[$0].type == "SUBTITLES" && m.renditions[$0].groupID == v.subtitles }
        var subs: [Int]
        switch o.subtitles {
        case .all: subs = groupSubs
        case .none: subs = []
        case .languages(let langs):
            subs = groupSubs.filter { i in langs.contains { matches(m.renditions[i].language, $0) } }
            for l in langs where !groupSubs.contains(where: { matches(m.renditions[$0].language, l) }) {
                warnings.append("no subtitles in \(l) (group \(v.subtitles ?? "none") has \(languages(groupSubs, m)))")
            }
        }
        return .success(Selection(variant: variant, audio: audio, subtitles: subs, reasons: reasons, warnings: warnings))
    }

    static func bw(_ v: Variant) -> Int { v.bandwidth ?? v.averageBandwidth ?? 0 }

    static func matches(_ language: String?, _ wanted: String) -> Bool {
        guard let l = language?.lowercased() else { return false }
        return l == wanted || l.hasPrefix(wanted + "-")
    }

    static func languages(_ ids: [Int], _ m: MultivariantPlaylist) -> String {
        let l = ids.compactMap { m.renditions[$0].language }
        return l.isEmpty ? "none" : l.joined(separator: ", ")
    }

    /// "640x360 avc1.4d401e,mp4a.40.2 877 kb/s".
    public static func describe(_ v: Variant) -> String {
        var parts: [String] = []
        if let r = v.resolution { parts.append("\(r.width)x\(r.height)") }
        if let c = v.codecs { parts.append(c) }
        parts.append("\(bw(v) / 1000) kb/s")
        return parts.joined(separator: " ")
    }
}

/// `3M`, `800k`, `1500000`.
public func parseRate(_ s: String) -> Int? {
    let l = s.lowercased().trimmingCharacters(in: .whitespaces)
    if l.hasSuffix("m"), let v = Double(l.dropLast()), v > 0 { return Int(v * 1_000_000) }
    if l.hasSuffix("k"), let v = Double(l.dropLast()), v > 0 { return Int(v * 1000) }
    return Int(l).flatMap { $0 > 0 ? $0 : nil }
}

/// `360p`, `640x360`, `360`.
public func parseHeight(_ s: String) -> Int? {
    let l = s.lowercased().trimmingCharacters(in: .whitespaces)
    if let x = l.firstIndex(of: "x") { return Int(l[l.index(after: x)...]) }
    return Int(l.hasSuffix("p") ? String(l.dropLast()) : l)
}

/// `30d`, `48h`, `90m`, `45s`, `3600`: seconds.
public func parseDuration(_ s: String) -> Double? {
    let l = s.lowercased().trimmingCharacters(in: .whitespaces)
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    if let u = l.last, let scale = units[u], let v = Double(l.dropLast()), v > 0, v.isFinite { return v * scale }
    return Double(l).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
}
