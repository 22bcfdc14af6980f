import CMCD
import Foundation
import HLS

/// How hlstui sends CMCD (`--cmcd`, `--cmcd-session`, `--cmcd-content`; docs/CMCD.md).
public struct CMCDSettings: Sendable, Equatable {
    public var mode: CMCDMode
    /// `sid`: one per session, a UUID unless given.
    public var sessionID: String
    /// `cid`, when given.
    public var contentID: String?

    public init(mode: CMCDMode, sessionID: String, contentID: String? = nil) {
        self.mode = mode
        self.sessionID = sessionID
        self.contentID = contentID
    }
}

/// What hlstui knows of one object it asks an origin for.
public struct CMCDObject: Sendable, Equatable {
    public var type: CMCDObjectType
    /// Its duration in seconds: a segment's EXTINF, a part's DURATION.
    public var duration: Double?
    /// The rung's peak bitrate (BANDWIDTH), bits/s.
    public var bitrate: Int?
    /// The URL of the object the player will ask for next (the next segment), and its byte range.
    public var next: String?
    public var nextRange: String?

    public init(type: CMCDObjectType, duration: Double? = nil, bitrate: Int? = nil, next: String? = nil, nextRange: String? = nil) {
        self.type = type
        self.duration = duration
        self.bitrate = bitrate
        self.next = next
        self.nextRange = nextRange
    }
}

/// The CMCD hlstui sends with a request: each key it measures, as CTA-5004 writes it (docs/CMCD.md). Pure.
public enum CMCDSend {
    /// The keys for `object` (nil: an object hlstui cannot place, sent as `o`) at `url`, from `status`; `starved`: the buffer
    /// ran dry since the last media request.
    public static func data(
        url: String, object: CMCDObject?, status: CMCDPlayerStatus, settings: CMCDSettings, starved: Bool
    ) -> CMCDData {
        var d = CMCDData()
        let type = object?.type ?? .other
        d[.ot] = .token(type.rawValue)
        d[.sf] = .token("h")
        d[.sid] = .string(String(settings.sessionID.prefix(64)))
        if let cid = settings.contentID { d[.cid] = .string(String(cid.prefix(64))) }
        if let live = status.live { d[.st] = .token(live ? "l" : "v") }
        if let bps = status.throughput, bps > 0 { d[.mtp] = .integer(round100(Double(bps) / 1000)) }
        if status.rate != 1 { d[.pr] = .decimal((status.rate * 1000).rounded() / 1000) }
        if status.urgent { d[.su] = .boolean(true) }
        guard let object else { return d }
        if type.holdsMedia || type == .timedText || type == .caption {
            // The ladder's bitrates are the variants': a rendition's own is not declared, so neither is sent for it.
            if let br = object.bitrate {
                d[.br] = .integer(Int((Double(br) / 1000).rounded()))
                if let tb = status.topBitrate { d[.tb] = .integer(Int((Double(tb) / 1000).rounded())) }
            }
            if let s = object.duration { d[.d] = .integer(Int((s * 1000).rounded())) }
        }
        if type.holdsMedia {
            if let ahead = status.bufferAhead {
                d[.bl] = .integer(round100(ahead * 1000))
                // At the current rate the buffer runs out after this long (the same as bl at real time).
                if status.rate > 0 { d[.dl] = .integer(round100(ahead * 1000 / status.rate)) }
            }
            if starved { d[.bs] = .boolean(true) }
        }
        if let next = object.next, let path = relativePath(from: url, to: next) { d[.nor] = .string(path) }
        if let r = object.nextRange { d[.nrr] = .string(r) }
        return d
    }

    /// What a variant's own segments carry (RFC 8216bis §4.4.6.2.1): audio and video (`av`) unless its audio comes from an
    /// AUDIO group whose renditions all have URIs (then video, `v`); an audio-only CODECS, audio (`a`).
    public static func variantType(_ v: Variant, renditions: [Rendition]) -> CMCDObjectType {
        let codecs = (v.codecs ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let audioCodec = { (c: String) in
            ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "alac", "mp3", ".mp3"].contains { c.hasPrefix($0) }
        }
        if !codecs.isEmpty, codecs.allSatisfy(audioCodec) { return .audio }
        guard let group = v.audio else { return .muxed }
        let members = renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
        return !members.isEmpty && members.allSatisfy { $0.uri != nil } ? .video : .muxed
    }

    /// To the nearest 100 (CTA-5004's rounding of bl, dl, mtp, rtp).
    static func round100(_ x: Double) -> Int { Int((x / 100).rounded()) * 100 }

    /// `to` relative to `from`, URL-encoded as CTA-5004 sends `nor` (`seg5.ts`, `..%2Fv720%2Fseg5.ts`); nil across origins.
    public static func relativePath(from: String, to: String) -> String? {
        guard let a = URLComponents(string: from), let b = URLComponents(string: to), a.scheme == b.scheme, a.host == b.host,
            a.port == b.port
        else { return nil }
        var base = a.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        base.removeLast()
        let target = b.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var common = 0
        while common < base.count, common < target.count - 1, base[common] == target[common] { common += 1 }
        let up = Array(repeating: "..", count: base.count - common)
        var path = (up + target[common...]).joined(separator: "/")
        if let q = b.percentEncodedQuery { path += "?" + q }
        return path.addingPercentEncoding(withAllowedCharacters: CMCD.unreservedCharacters) ?? path
    }
}
