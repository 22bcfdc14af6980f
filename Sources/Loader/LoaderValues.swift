import CMCD
import LoaderEvents
import LoaderCore
import Foundation
import HLS
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the Loader does besides proxying.
public struct LoaderOptions: Sendable {
    public var upstream = UpstreamOptions()
    /// Decrypt AES-128 segments in the Loader and serve them clear (checked), instead of handing FFmpeg the key.
    public var decryptAES = true
    /// `--key URI=HEX`: keys that replace what the origin serves.
    public var keyOverrides: [String: [UInt8]] = [:]
    /// Keys kept with a download (among `keyOverrides`): when each stops playing; one asked for past it fails naming the clock.
    public var keyDeadlines: [String: KeyDeadline] = [:]
    /// `--key-command CMD`: run with the key URI, prints the key.
    public var keyCommand: String?
    /// `--key-spread S`: a key first seen in a live refresh is fetched at a random moment within this many seconds, before it is due (0: at once).
    public var keySpread: Double = 4
    /// Fetch keys as soon as a playlist names them (false: only when a segment needs one — the baseline prefetch is measured against).
    public var prefetchKeys = true
    /// A VOD's rotated keys whose first segment lies more than this many seconds of media past the player's newest request wait,
    /// and are fetched (spread) as the player gets near, instead of every key of a long VOD at once.
    public var keyHorizon: Double = 30
    /// How long a VOD segment that every source fails with a passing error (5xx, 408, 429, a transport failure) is held and
    /// retried before the failure reaches the player: FFmpeg skips a segment it cannot open, losing its media for good.
    public var vodHold: Double = 30
    /// The player decodes no video (mpv `vid=no`): the Loader reads the playing variant's video segments along with the audio
    /// rendition's, so their delivery is still watched (`readAlong`).
    public var readsUndecodedVideo = false
    /// LL-HLS: give the player the segment a live playlist is still publishing, as one body that grows part by part
    /// (DECISIONS.md, LL-HLS); false: whole segments only (`--no-parts`).
    public var parts = true
    /// `--cmcd`: CMCD sent with every request to an origin (docs/CMCD.md); nil sends none.
    public var cmcd: CMCDSettings?
    public init() {}
}

/// When a key kept with a download stops playing, and by which of its clocks.
public struct KeyDeadline: Sendable, Equatable {
    /// Unix seconds.
    public var at: Double
    /// "storage" or "playback".
    public var clock: String
    public init(at: Double, clock: String) {
        self.at = at
        self.clock = clock
    }
}

/// A resource the player may ask for, by its Loader id.
struct Resource: Sendable {
    var upstream: String
    var kind: ResourceKind
    var rung: Int?
    var msn: Int?
    var gap = false
    var key: Key?
    var iv: [UInt8]?
    var keyMSNs: ClosedRange<Int>?
    /// For media playlists: serve only segments from this media sequence number on.
    var startMSN: Int?
    /// For alternate renditions: "TYPE group/name".
    var rendition: String?
    /// For fMP4 segments: the init section that describes their tracks.
    var initURL: String?
    /// For segments: the media playlist that lists them.
    var playlist: PlaylistID?
    /// For segments and init sections: the sub-range of the upstream resource (EXT-X-BYTERANGE), which the Loader serves whole.
    var byteRange: ByteRange?
    /// Served through the splice route: a media playlist of whichever rung the route names, or a segment resolved by MSN when asked for.
    var slot = false
    /// The segment in progress of a low-latency playlist (`upstream` is that playlist's URL): served part by part as published.
    var growing = false
    /// For segments, what CMCD says of them (`LoaderServer+CMCD.swift`): its duration, the next segment's URL and range, and
    /// a rendition's media type.
    var duration: Double?
    var next: (url: String, range: ByteRange?)?
    var renditionType: CMCDObjectType?

    /// Which playlist this media playlist is, for what the Loader remembers of it.
    var playlistID: PlaylistID { slot ? .splice : .upstream(upstream) }

    /// Spliced segment `msn`: which rung's segment serves it (its upstream) is resolved when the player asks for it.
    static func spliceSegment(msn: Int, rung: Int? = nil, gap: Bool = false) -> Resource {
        var r = Resource(upstream: "", kind: .segment, rung: rung, msn: msn, gap: gap, playlist: .splice)
        r.slot = true
        return r
    }
}

/// A media playlist the player reads, as the Loader remembers it (the segment it asked for last, whether it ended, the keys
/// held back): a rung's or rendition's own, by its upstream URL, or the splice's, whichever rung the route names.
enum PlaylistID: Hashable, Sendable {
    case splice
    case upstream(String)
}

/// A VOD playlist's keys that wait until the player gets near their segments.
struct PendingKeys: Sendable {
    struct Entry: Sendable {
        var uri: String
        var key: Key
        var msns: ClosedRange<Int>
    }
    var media: MediaPlaylist
    var entries: [Entry]
}

/// What `open` found: the URL to give the player and the playlist as the origin served it.
public struct OpenedStream: Sendable {
    public var playerURL: String
    public var url: String
    public var playlist: Playlist
    public var diagnostics: [Diagnostic]
    /// A progressive file (MP4) rather than a playlist: the player reads it by ranges (`playlist` is a one-segment VOD
    /// playlist standing for it, so the timeline, buffer and request log work as for any stream).
    public var file: ProgressiveFile?

    /// The stream with a steering manifest's clones added (docs/STEERING.md): their variants and renditions after the
    /// playlist's own, so a clone is a pathway like the playlist's own; nil when they add no variant.
    public func adding(_ clones: [PathwayClone]) -> (stream: OpenedStream, grown: MultivariantPlaylist)? {
        guard case .multivariant(let m) = playlist.body else { return nil }
        let grown = clones.reduce(m) { $1.expand($0, base: url) }
        guard grown.variants.count > m.variants.count else { return nil }
        var s = self
        s.playlist.body = .multivariant(grown)
        return (s, grown)
    }
}

/// The connections players opened to a Loader: closed with it (a listening socket's close leaves them open).
final class PlayerConnections: Sendable {
    private let open = NIOLockedValueBox([ObjectIdentifier: any Channel]())

    func add(_ ch: any Channel) {
        let id = ObjectIdentifier(ch)
        open.withLockedValue { $0[id] = ch }
        ch.closeFuture.whenComplete { [open] _ in _ = open.withLockedValue { $0.removeValue(forKey: id) } }
    }

    func closeAll() {
        for ch in open.withLockedValue({ Array($0.values) }) { ch.close(promise: nil) }
    }

    /// Returns once every connection is closed.
    func closed() async {
        for ch in open.withLockedValue({ Array($0.values) }) { try? await ch.closeFuture.get() }
    }
}
