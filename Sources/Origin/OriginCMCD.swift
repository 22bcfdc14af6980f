import CMCD
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
        var findings = CMCDCheck.findings(read, context: OriginCMCD.context(kind: kind, rendition: rendition, live: live))
        if let sid = read.data[.sid]?.text {
            findings += cmcdSessions.withLockedValue { s in
                var check = s[sid] ?? CMCDSessionCheck()
                let out = check.observe(read.data, at: t)
                s[sid] = check
                if s.count > 1_000 { s.removeAll() }
                return out
            }
        }
        return (CMCD.serialize(read.data), findings.map(\.description))
    }
}
