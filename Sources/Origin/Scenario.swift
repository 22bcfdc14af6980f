import HLS

/// Which rungs of a ladder carry EXT-X-GAP, and where.
public enum GapMode: Sendable, Equatable {
    case none
    /// One rung has an outage; the others are intact.
    case oneRung(String)
    /// Every variant and rendition has the outage.
    case allRungs
}

/// How a ladder's media segments are encrypted (RFC 8216bis §4.4.4.4).
public enum Encryption: Sendable, Equatable {
    case none
    /// Whole segments, AES-128-CBC with PKCS#7 padding.
    case aes128
    /// Samples inside the TS: H.264 slices and ADTS frames.
    case sampleAES
}

/// A named stream the origin serves under `/<name>/`.
public struct Scenario: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case ladder(container: Container, live: Bool, encryption: Encryption, gap: GapMode, define: Bool)
        case camera(id: String, offset: Double, latency: Double)
        /// The video rungs as LL-HLS (RFC 8216bis §3.2, §6.2.5, §6.2.6): segments of two encoded segments, each encoded
        /// segment cut into `split` parts (2: 1 s parts; 6: 0.333 s).
        case lowLatency(container: Container, split: Int = 2)
    }

    public var name: String
    public var summary: String
    public var kind: Kind
    /// Each rendition is one file and its playlist lists segments as EXT-X-BYTERANGE sub-ranges of it (VOD only).
    public var singleFile = false
    /// Whose packaging the media follow (ladders only; cameras are plain).
    public var packaging: Packaging = .plain
    /// Live: the media's timestamps go on across the loop instead of starting again (each loop's segments moved later by the
    /// loops before it), so no discontinuity is listed there and no player restarts: the demo and the cameras a newcomer
    /// watches first (DECISIONS.md, "The demo's timeline goes on"). `live-ts` keeps its reset every loop.
    public var continuous = false

    public var isLive: Bool {
        switch kind {
        case .ladder(_, let live, _, _, _): return live
        case .camera, .lowLatency: return true
        }
    }

    public var container: Container {
        switch kind {
        case .ladder(let c, _, _, _, _): return c
        case .camera: return .ts
        case .lowLatency(let c, _): return c
        }
    }

    /// Every scenario, in the order `hlstui origin` lists them.
    public static let all: [Scenario] = [
        Scenario(
            name: "vod-ts", summary: "VOD ladder, MPEG-TS: 3 video rungs + audio-only, alternate audio, WebVTT, I-frames",
            kind: .ladder(container: .ts, live: false, encryption: .none, gap: .none, define: false)),
        Scenario(
            name: "vod-fmp4", summary: "VOD ladder, fMP4 (CMAF-style init + .m4s)",
            kind: .ladder(container: .fmp4, live: false, encryption: .none, gap: .none, define: false)),
        Scenario(
            name: "live-ts", summary: "live sliding window, MPEG-TS, PDT from the wall clock, looping with discontinuities",
            kind: .ladder(container: .ts, live: true, encryption: .none, gap: .none, define: false)),
        Scenario(
            name: "live-fmp4", summary: "live sliding window, fMP4",
            kind: .ladder(container: .fmp4, live: true, encryption: .none, gap: .none, define: false)),
        Scenario(
            name: "byterange-ts", summary: "the VOD ladder as one file per rung, segments as EXT-X-BYTERANGE sub-ranges",
            kind: .ladder(container: .ts, live: false, encryption: .none, gap: .none, define: false), singleFile: true),
        Scenario(
            name: "aes-vod", summary: "AES-128, key rotation every 3 segments, key latency configurable",
            kind: .ladder(container: .ts, live: false, encryption: .aes128, gap: .none, define: false)),
        Scenario(
            name: "aes-fmp4",
            summary: "fMP4 with AES-128: key rotation every 3 segments, the init section encrypted too (under the first key)",
            kind: .ladder(container: .fmp4, live: false, encryption: .aes128, gap: .none, define: false)),
        Scenario(
            name: "sample-aes-vod",
            summary: "SAMPLE-AES: H.264 slices and AAC frames encrypted inside the TS, key rotation every 3 segments",
            kind: .ladder(container: .ts, live: false, encryption: .sampleAES, gap: .none, define: false)),
        Scenario(
            name: "aes-live", summary: "live AES-128 with key rotation",
            kind: .ladder(container: .ts, live: true, encryption: .aes128, gap: .none, define: false)),
        Scenario(
            name: "gap-one", summary: "EXT-X-GAP outage in v360 only (segments 4-5); other rungs intact",
            kind: .ladder(container: .ts, live: false, encryption: .none, gap: .oneRung("v360"), define: false)),
        Scenario(
            name: "gap-all", summary: "EXT-X-GAP outage in every rung (segments 4-5)",
            kind: .ladder(container: .ts, live: false, encryption: .none, gap: .allRungs, define: false)),
        Scenario(
            name: "define", summary: "EXT-X-DEFINE: NAME/VALUE, QUERYPARAM (open with ?token=…) and IMPORT",
            kind: .ladder(container: .ts, live: false, encryption: .none, gap: .none, define: true)),
        Scenario(
            name: "broadcast-vod-ts",
            summary:
                "the VOD ladder as broadcast packagers make it: 29.97 fps, B-frame pyramid, audio first in each segment and 40 ms ahead, timestamps from 3600 s",
            kind: .ladder(container: .ts, live: false, encryption: .none, gap: .none, define: false), packaging: .broadcast),
        Scenario(
            name: "broadcast-vod-fmp4", summary: "broadcast packaging, fMP4",
            kind: .ladder(container: .fmp4, live: false, encryption: .none, gap: .none, define: false), packaging: .broadcast),
        Scenario(
            name: "broadcast-live-ts", summary: "broadcast packaging, live MPEG-TS",
            kind: .ladder(container: .ts, live: true, encryption: .none, gap: .none, define: false), packaging: .broadcast),
        Scenario(
            name: "broadcast-live-fmp4", summary: "broadcast packaging, live fMP4",
            kind: .ladder(container: .fmp4, live: true, encryption: .none, gap: .none, define: false), packaging: .broadcast),
        Scenario(
            name: "cam-a", summary: "camera A: live, 2 s segments, 30 fps, no extra latency",
            kind: .camera(id: "cam-a", offset: 0, latency: 0)
        ).continuing,
        Scenario(
            name: "cam-b", summary: "camera B: live, 3 s segments, 25 fps, segment grid 1 s after A, 4 s more latency",
            kind: .camera(id: "cam-b", offset: 1, latency: 4)
        ).continuing,
        Scenario(
            name: "cam-c", summary: "camera C: live, 4 s segments, 50 fps, segment grid 0.5 s after A, 2 s more latency",
            kind: .camera(id: "cam-c", offset: 0.5, latency: 2)
        ).continuing,
        Scenario(
            name: "cam-d", summary: "camera D: live, 6 s segments, 59.94 fps, segment grid 2.5 s after A, 6 s more latency",
            kind: .camera(id: "cam-d", offset: 2.5, latency: 6)
        ).continuing,
        Scenario(
            name: "cam-p",
            summary: "picture faults: live camera, 2 s segments, 30 fps; in each 16 s loop the picture freezes at 6 s and is black 10–14 s",
            kind: .camera(id: "cam-p", offset: 0, latency: 0)
        ).continuing,
        Scenario(
            name: "ll-ts",
            summary:
                "low-latency HLS, MPEG-TS: 4 s segments of 1 s parts, blocking reload, delta updates, preload hints, rendition reports; its timestamps go on across the loop",
            kind: .lowLatency(container: .ts)
        ).continuing,
        Scenario(
            name: "ll-fmp4",
            summary:
                "low-latency HLS, fMP4 (muxed audio): 4 s segments of 1 s parts (a fragment each), blocking reload, delta updates, preload hints, rendition reports",
            kind: .lowLatency(container: .fmp4)),
        Scenario(
            name: "ll-ts-fast",
            summary:
                "low-latency HLS at the floor, MPEG-TS: 4 s segments of 0.333 s parts (PART-HOLD-BACK 1 s), as ll-ts otherwise",
            kind: .lowLatency(container: .ts, split: 6)
        ).continuing,
        Scenario(
            name: "ll-fmp4-fast",
            summary:
                "low-latency HLS at the floor, fMP4 (muxed audio): 4 s segments of 0.333 s parts (PART-HOLD-BACK 1 s), as ll-fmp4 otherwise",
            kind: .lowLatency(container: .fmp4, split: 6)),
        Scenario(
            name: "demo",
            summary:
                "the demo: live ladder with PDT, AES-128 key rotation and a recurring GAP window in v360; its timestamps go on across the loop",
            kind: .ladder(container: .ts, live: true, encryption: .aes128, gap: .oneRung("v360"), define: false)
        ).continuing,
    ]

    public static func named(_ name: String) -> Scenario? { all.first { $0.name == name } }

    /// The same scenario with its timestamps going on across the loop (`continuous`).
    var continuing: Scenario {
        var s = self
        s.continuous = true
        return s
    }
}

/// Fixed parameters of the generated streams.
public enum OriginTiming {
    /// Segments in a live window.
    public static let liveWindow = 8
    /// Segments per key in AES scenarios.
    public static let keyRotation = 3
    /// Loop positions (segment indexes) that carry GAP in gap scenarios.
    public static let gapPositions: Set<Int> = [4, 5]
    /// The date VOD playlists' PDT starts at.
    public static let vodStart = DateTime(iso8601: "2026-01-01T00:00:00Z")!
    /// The ladder's video rungs, lowest first.
    public static let videoRungs = ["v144", "v240", "v360"]
}
