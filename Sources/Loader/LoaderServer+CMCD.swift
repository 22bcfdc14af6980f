import CMCD
import HLS
import LoaderCore
import LoaderEvents
import NIOConcurrencyHelpers

/// CMCD sent with every request to an origin (`--cmcd`, docs/CMCD.md): the keys come from what the Loader knows of the
/// object and what the pane last measured of the player (`CMCDSend`).
struct CMCDState: Sendable {
    var status = CMCDPlayerStatus()
    /// What each upstream URL the Loader is about to ask for is, newest 256.
    var objects: [String: CMCDObject] = [:]
    var order: [String] = []
    /// Stalls the last media request saw.
    var stallsSeen = 0

    mutating func note(_ url: String, _ object: CMCDObject) {
        if objects.updateValue(object, forKey: url) == nil { order.append(url) }
        if order.count > 256 { objects[order.removeFirst()] = nil }
    }

    /// The request's decoration; a media request takes the stalls it reports as seen.
    mutating func decoration(_ url: String, settings: CMCDSettings?) -> WireDecoration? {
        guard let settings else { return PlayerRequest.cmcd }
        let object = objects[url] ?? Self.guess(url)
        let media = object?.type.holdsMedia ?? false
        let starved = media && status.stalls > stallsSeen
        if media { stallsSeen = status.stalls }
        let data = CMCDSend.data(url: url, object: object, status: status, settings: settings, starved: starved)
        let text = CMCD.serialize(data)
        switch settings.mode {
        case .header: return WireDecoration(headers: CMCD.headers(data).map { ($0.name, $0.value) }, label: text)
        case .query: return WireDecoration(query: CMCD.queryName + "=" + CMCD.percentEncode(text), label: text)
        }
    }

    /// An object the Loader did not note (a playlist, a key): its type by what it is called.
    static func guess(_ url: String) -> CMCDObject? {
        let path = url.split(separator: "?").first.map(String.init)?.lowercased() ?? url
        if path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") { return CMCDObject(type: .manifest) }
        if path.hasSuffix(".key") { return CMCDObject(type: .key) }
        if path.hasSuffix(".vtt") || path.hasSuffix(".webvtt") { return CMCDObject(type: .caption) }
        return nil
    }
}

/// The request of a player that plays through the Loader, as far as the Loader's own requests for it go: its CMCD, forwarded
/// upstream as it came when hlstui sends none of its own (DECISIONS.md, "CMCD on the wire only").
enum PlayerRequest {
    @TaskLocal static var cmcd: WireDecoration?
}

extension LoaderServer {
    /// The players that sent CMCD through the Loader, first seen first (`hlstui proxy --players`).
    public var cmcdPlayerList: [CMCDPlayers.Player] { cmcdPlayers.withLockedValue { $0.all } }

    /// Reads a player's CMCD (its CMCD-* headers and `CMCD` query argument): checked, added to its session, reported; the
    /// decoration that forwards it as it came, when hlstui sends no CMCD of its own.
    func playerCMCD(headers: [(String, String)], target: String, res: Resource) -> WireDecoration? {
        let read = CMCD.read(headers: headers.map { (name: $0.0, value: $0.1) }, url: target)
        guard !read.isEmpty else { return nil }
        let type: CMCDObjectType? =
            switch res.kind {
            case .multivariant, .media: .manifest
            case .initSection: .initSegment
            case .key: .key
            default: nil
            }
        let (bitrates, duration) = table.withLockedValue { t in
            let bitrates = t.presented.map { p in p.m.variants.flatMap { [$0.bandwidth, $0.averageBandwidth].compactMap { $0 } } } ?? []
            // A spliced segment's duration is its rungs' (they line up): the first rung that lists it says it.
            let spliced = res.slot ? res.msn.flatMap { msn in t.rungMedia.values.lazy.compactMap { $0.segment(msn)?.duration }.first } : nil
            return (bitrates, res.duration ?? spliced)
        }
        let context = CMCDContext(objectType: type, duration: duration, bitrates: bitrates)
        let forwarded = options.cmcd == nil
        let (findings, summary) = cmcdPlayers.withLockedValue { p in
            let f = p.observe(read, context: context, at: now)
            return (f, p.players[read.data[.sid]?.text ?? "-"]?.summary ?? "")
        }
        emit(
            .playerCMCD(
                PlayerCMCDEvent(
                    at: now, sid: read.data[.sid]?.text ?? "-", kind: res.kind, msn: res.msn, cmcd: CMCD.serialize(read.data),
                    findings: findings.map(\.description), summary: summary, forwarded: forwarded)))
        guard forwarded else { return nil }
        let query = CMCD.rawQueryArgument(target)
        return WireDecoration(headers: headers, query: query, label: "player: " + CMCD.serialize(read.data))
    }

    /// What the pane last measured of its player (every sample): the CMCD sent from now on carries it.
    public func playerStatus(_ status: CMCDPlayerStatus) {
        cmcd.withLockedValue { $0.status = status }
    }

    /// The request for `res` about to go upstream: what CTA-5004 calls it, how long it lasts, its rung's bitrate and the
    /// segment after it.
    func noteCMCD(_ res: Resource) {
        guard options.cmcd != nil else { return }
        let object: CMCDObject? = table.withLockedValue { t in
            switch res.kind {
            case .initSection: return CMCDObject(type: .initSegment)
            case .key: return CMCDObject(type: .key)
            case .multivariant, .media: return CMCDObject(type: .manifest)
            case .segment, .part:
                let type: CMCDObjectType
                if let r = res.renditionType {
                    type = r
                } else if let rung = res.rung, let p = t.presented, let v = p.m.variants[safe: rung] {
                    type = CMCDSend.variantType(v, renditions: p.m.renditions)
                } else if res.rung == nil {
                    type = .other
                } else {
                    type = .muxed
                }
                let variant = res.renditionType == nil && res.rung != nil
                var o = CMCDObject(type: type, duration: res.duration, bitrate: variant ? res.rung.flatMap { t.rungBandwidth[$0] } : nil)
                var next = res.next
                // A spliced segment's next one is the route's rung's.
                if next == nil, res.kind == .segment, variant, let rung = res.rung, let msn = res.msn, let rm = t.rungMedia[rung],
                    let n = rm.segment(msn + 1)
                {
                    next = (VirtualPlaylists.resolve(n.uri, against: rm.url), n.byteRange)
                }
                o.next = next?.url
                if let br = next?.range { o.nextRange = "\(br.offset)-\(br.offset + br.length - 1)" }
                return o
            case .steering, .file, .assetList: return CMCDObject(type: .other)
            }
        }
        if let object { cmcd.withLockedValue { $0.note(res.upstream, object) } }
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
