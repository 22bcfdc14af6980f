import CMCD
import JSONValue
import NIOConcurrencyHelpers

/// The embedded origin as a CDN that speaks CMCD and CMSD (docs/CMCD.md): it reads the CMCD any player sends, holds it to
/// CTA-5004 (alone, against what it knows of the object, and over the player's session), and answers CMSD when asked to.
enum OriginCMCD {
    /// What the origin knows of the object `kind` names (its `OriginResponse.kind`).
    static func context(kind: String, rendition: String?, live: Bool? = nil) -> CMCDContext {
        let type: CMCDObjectType? =
            switch kind {
            case "multivariant", "playlist": .manifest
            case "init": .initSegment
            case "key": .key
            case "subtitle": .caption
            default: nil
            }
        return CMCDContext(objectType: type, live: live)
    }

    /// The CMSD headers for a response to a request with `?cmsd=KBPS` (carried from the multivariant playlist to each variant's):
    /// the object's type and format, and this server's maximum suggested bitrate.
    static func headers(kind: String, live: Bool, maxKbps: Int) -> [(String, String)] {
        var statics: [String: CMCDValue] = ["sf": .token("h"), "st": .token(live ? "l" : "v")]
        if let ot = context(kind: kind, rendition: nil).objectType { statics["ot"] = .token(ot.rawValue) }
        let hop = CMSD.Hop(name: "hlstui-origin", values: ["mb": .integer(maxKbps)])
        return [("CMSD-Static", CMSD.staticHeader(statics)), ("CMSD-Dynamic", CMSD.dynamicEntry(hop))]
    }
}

extension OriginState {
    /// Reads the CMCD of one request and checks it; `(nil, [])` when it carried none. The session check keeps each player's
    /// last request by `sid`.
    func checkCMCD(
        headers: [(String, String)], target: String, kind: String, rendition: String?, scenario: String?, at t: Double
    ) -> (
        cmcd: String?, findings: [String]
    ) {
        let read = CMCD.read(headers: headers.map { (name: $0.0, value: $0.1) }, url: target)
        guard !read.isEmpty else { return (nil, []) }
        let live = scenario.flatMap(Scenario.named)?.isLive
        let context = OriginCMCD.context(kind: kind, rendition: rendition, live: live)
        let findings = cmcdPlayers.withLockedValue { $0.observe(read, context: context, at: t) }
        return (CMCD.serialize(read.data), findings.map(\.description))
    }

    /// The players whose CMCD the origin read, first seen first (`/control/players`).
    public var cmcdPlayerList: [CMCDPlayers.Player] { cmcdPlayers.withLockedValue { $0.all } }
}

extension CMCDPlayers.Player {
    /// `/control/players`' form: the player's figures now, its counts, and its newest samples.
    public var json: JSONValue {
        let latest = latest
        return .object([
            ("sid", .string(sid)), ("cid", .string(contentID)), ("st", .string(streamType)), ("firstSeen", .double(firstSeen)),
            ("lastSeen", .double(lastSeen)), ("requests", .int(requests)), ("bufferSeconds", .double(latest?.buffer)),
            ("bitrate", .int(samples.last { $0.bitrate != nil }?.bitrate)),
            ("throughput", .int(samples.last { $0.throughput != nil }?.throughput)), ("startupSeconds", .double(startup)),
            ("stalls", .int(stalls)), ("switches", .int(switches)),
            ("findings", .object(findings.keys.sorted().map { ($0, .int(findings[$0])) })), ("lastFinding", .string(lastFinding)),
            ("summary", .string(summary)),
        ])
    }
}
