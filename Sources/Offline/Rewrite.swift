import HLS
import Foundation

/// How a download names what it stores, relative to a rendition's folder.
public struct OfflineNames: Sendable {
    /// A segment's file: its media sequence number, and the source's extension.
    public static func segment(_ s: Segment) -> String { String(format: "%06d", s.mediaSequence) + "." + ext(s.uri, fallback: "ts") }

    /// An init section's file: `init-N` in order of first use.
    public static func map(_ index: Int, _ m: MapSection) -> String { "init-\(index)." + ext(m.uri, fallback: "mp4") }

    /// The lower-cased extension of a URI's path (query left out), when it is a short alphanumeric one.
    public static func ext(_ uri: String, fallback: String) -> String {
        let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return fallback }
        let e = path[path.index(after: dot)...].lowercased()
        return (1...5).contains(e.count) && e.allSatisfy({ $0.isLetter || $0.isNumber }) ? e : fallback
    }
}

/// Rewrites playlists for a download folder: every URI local and relative, byte ranges gone (each range is its own file), and
/// what only a live origin can answer left out — LL-HLS parts, preload hints, rendition reports, server control
/// (RFC 8216bis §4.4.5). Pure: the caller says what each piece is called.
public enum OfflineRewrite {
    /// A media playlist listing `segments` (the source's, or the stored part of a capture). `key` gives a key's local URI (nil:
    /// a key this download does not keep, written as it was); `map` an init section's; `final` ends the playlist (ENDLIST).
    public static func media(
        _ source: Playlist, segments: [Segment], final: Bool, key: (Key) -> String?, map: (MapSection) -> String
    ) -> Playlist {
        guard case .media(var m) = source.body else { return source }
        func keys(_ ks: [Key]) -> [Key] {
            ks.map { k in
                var k = k
                if k.method != .none, let local = key(k) { k.uri = local }
                return k
            }
        }
        let captured = m.isLive
        m.segments = segments.map { s in
            var s = s
            s.uri = OfflineNames.segment(s)
            s.byteRange = nil
            s.byteRangeOffsetImplied = false
            s.parts = []
            s.keys = keys(s.keys)
            if var sm = s.map {
                sm.uri = map(sm)
                sm.byteRange = nil
                sm.keys = keys(sm.keys)
                s.map = sm
            }
            return s
        }
        if let first = segments.first {
            m.mediaSequence = first.mediaSequence
            m.mediaSequenceTagged = true
            m.discontinuitySequence = first.discontinuitySequence
            m.discontinuitySequenceTagged = first.discontinuitySequence != 0
        }
        // A capture's date ranges name segments of windows that are gone; a VOD's stay where they were.
        if captured { m.dateRanges = [] }
        m.partTarget = nil
        m.serverControl = nil
        m.skip = nil
        m.preloadHints = []
        m.renditionReports = []
        m.trailingParts = []
        m.trailingKeys = nil
        m.trailingMap = nil
        m.trailingDiscontinuity = false
        if captured { m.playlistType = final ? "VOD" : "EVENT" }
        m.endList = final
        if let longest = m.segments.map(\.duration).max() {
            // §4.4.3.1: EXTINF rounded to the nearest integer must not exceed the target duration.
            m.targetDuration = max(m.targetDuration ?? 0, Int(longest.rounded()))
        }
        var out = source
        out.body = .media(m)
        out.defines = []
        if out.version.map({ $0 < 3 }) ?? false { out.version = 3 }
        return out
    }

    /// The multivariant playlist with the chosen variant and renditions only, each at its local playlist (`uris`: by index,
    /// `variant` for the variant's own).
    public static func multivariant(
        _ source: Playlist, variant: Int, variantURI: String, renditions: [Int: String], keptMuxed: Set<Int>
    ) -> Playlist {
        guard case .multivariant(var m) = source.body else { return source }
        var v = m.variants[variant]
        v.uri = variantURI
        v.leadingLines = []
        v.pathwayID = nil
        m.renditions = m.renditions.indices.compactMap { i -> Rendition? in
            var r = m.renditions[i]
            if let local = renditions[i] {
                r.uri = local
                return r
            }
            // A rendition carried in the variant's own segments (no URI) stays, as do closed captions.
            if keptMuxed.contains(i) || r.type == "CLOSED-CAPTIONS" && r.groupID == v.closedCaptions { return r }
            return nil
        }
        // An audio or video group whose DEFAULT rendition was left out gets the first kept one as its default (subtitles stay
        // off unless the source turned them on).
        var groups: [String: [Int]] = [:]
        for (i, r) in m.renditions.enumerated() where r.type == "AUDIO" || r.type == "VIDEO" {
            groups[r.type + "/" + r.groupID, default: []].append(i)
        }
        for ids in groups.values where !ids.contains(where: { m.renditions[$0].isDefault }) {
            m.renditions[ids[0]].isDefault = true
            m.renditions[ids[0]].autoselect = true
        }
        if !m.renditions.contains(where: { $0.type == "AUDIO" && $0.groupID == v.audio }) { v.audio = nil }
        if !m.renditions.contains(where: { $0.type == "SUBTITLES" && $0.groupID == v.subtitles }) { v.subtitles = nil }
        m.variants = [v]
        m.iFrameVariants = []
        m.sessionKeys = []
        m.contentSteering = nil
        var out = source
        out.body = .multivariant(m)
        out.defines = []
        return out
    }
}
