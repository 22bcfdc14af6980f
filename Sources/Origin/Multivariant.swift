import HLS

/// Builds the multivariant playlists of the scenarios (RFC 8216bis §4.4.6), with bandwidths measured from the encoded bytes.
public enum MultivariantBuilder {
    /// The multivariant playlist of `scenario`, or nil when its media is missing.
    public static func playlist(_ scenario: Scenario, media: MediaLibrary) -> Playlist? {
        var m = MultivariantPlaylist()
        var p = Playlist(body: .multivariant(m))
        p.independentSegments = true
        p.version = 7
        switch scenario.kind {
        case .camera(let id, _, _):
            guard let r = media.rendition(id, .ts) else { return nil }
            var v = Variant(uri: "\(id)/index.m3u8", bandwidth: r.peakBitrate)
            v.averageBandwidth = r.averageBitrate
            v.codecs = r.codecs
            v.resolution = r.resolution
            v.frameRate = r.frameRate
            m.variants = [v]
        case .lowLatency(let container, let split):
            for id in OriginTiming.videoRungs {
                guard let r = media.lowLatency(id, container, split: split)?.rendition else { return nil }
                var v = Variant(uri: "\(id)/index.m3u8", bandwidth: r.peakBitrate)
                v.averageBandwidth = r.averageBitrate
                v.codecs = r.codecs
                v.resolution = r.resolution
                v.frameRate = r.frameRate
                m.variants.append(v)
            }
        case .ladder(let container, _, let aes, _, let define):
            guard let ladder = ladder(scenario, container: container, aes: aes, define: define, media: media) else { return nil }
            m = ladder
            if define {
                p.version = 8
                p.defines = [Define(name: "token", source: .queryParameter), Define(name: "rung", source: .value("v"))]
            }
        }
        p.body = .multivariant(m)
        return p
    }

    /// The ladder scenarios' multivariant playlist: three video rungs and an audio-only one, two audio renditions, WebVTT
    /// subtitles, the plain ladder's captions and (TS, clear) I-frame playlists; `define`: the URIs through variables.
    static func ladder(_ scenario: Scenario, container: Container, aes: Encryption, define: Bool, media: MediaLibrary)
        -> MultivariantPlaylist?
    {
        var m = MultivariantPlaylist()
        let q = define ? "?token={$token}" : ""
        let prefix = define ? "{$rung}" : ""
        guard let en = media.rendition("audio-en", container, scenario.packaging),
            media.rendition("audio-de", container, scenario.packaging) != nil
        else { return nil }
        m.renditions = [
            Rendition(
                type: "AUDIO", uri: nil, groupID: "aac", language: "en", name: "English", isDefault: true, autoselect: true,
                forced: false, channels: "2"),
            Rendition(
                type: "AUDIO", uri: "audio-de/index.m3u8\(q)", groupID: "aac", language: "de", name: "Deutsch", isDefault: false,
                autoselect: true, forced: false, channels: "6"),
            Rendition(
                type: "SUBTITLES", uri: "subs-en/index.m3u8\(q)", groupID: "subs", language: "en", name: "English",
                isDefault: false, autoselect: true, forced: false),
        ]
        // The plain ladder's video carries CEA-608 captions (CC1: `CaptionSchedule`; RFC 8216bis §4.4.6.1).
        let captions = scenario.packaging == .plain
        if captions {
            m.renditions.append(
                Rendition(
                    type: "CLOSED-CAPTIONS", uri: nil, groupID: "cc", language: "en", name: "English CC", isDefault: false,
                    autoselect: true, forced: false, instreamID: "CC1"))
        }
        let padding = aes == .aes128 ? 16 * 8 : 0
        for id in OriginTiming.videoRungs {
            guard let r = media.rendition(id, container, scenario.packaging) else { return nil }
            let uri = define ? "\(prefix)\(id.dropFirst())/index.m3u8\(q)" : "\(id)/index.m3u8"
            var v = Variant(uri: uri, bandwidth: r.peakBitrate + padding)
            v.averageBandwidth = r.averageBitrate + padding
            v.codecs = r.codecs
            v.resolution = r.resolution
            v.frameRate = r.frameRate
            v.audio = "aac"
            v.subtitles = "subs"
            if captions { v.closedCaptions = "cc" }
            m.variants.append(v)
            if container == .ts && aes == .none {
                let iframeBytes = r.segments.compactMap { $0.iFrameRange?.length }
                var iv = Variant(
                    uri: define ? "\(prefix)\(id.dropFirst())/iframes.m3u8\(q)" : "\(id)/iframes.m3u8",
                    bandwidth: Int((Double((iframeBytes.max() ?? 0) * 8) / 2).rounded(.up)))
                iv.codecs = r.codecs.split(separator: ",").first.map(String.init)
                iv.resolution = r.resolution
                m.iFrameVariants.append(iv)
            }
        }
        var audioOnly = Variant(uri: define ? "audio-en/index.m3u8\(q)" : "audio-en/index.m3u8", bandwidth: en.peakBitrate + padding)
        audioOnly.averageBandwidth = en.averageBitrate + padding
        audioOnly.codecs = en.codecs
        audioOnly.audio = "aac"
        m.variants.append(audioOnly)
        return m
    }
}
