import Foundation
import HLS
import JSONValue

/// The `steered` scenario: the live MPEG-TS ladder served by several CDNs — the origin's loopback hosts
/// (`OriginServer.hosts`) — listed once per pathway, with a steering server (docs/STEERING.md) whose answers
/// `/control/steering` changes while it runs.
extension OriginRouter {
    /// The pathways of `steered` and the host each is served from (a clone, "cdn-c", comes from the third).
    static let steeredPathways = [("cdn-a", OriginServer.hosts[0]), ("cdn-b", OriginServer.hosts[1])]

    func steered(_ rest: [String], _ req: OriginRequest) -> OriginResponse {
        let port = req.authority.flatMap { a in a.split(separator: ":").last.flatMap { Int($0) } }
        guard let port else { return .text(400, "the steered scenario needs the Host header (its URIs name the port)") }
        switch rest {
        case ["master.m3u8"]:
            guard let live = Scenario.named("live-ts"), var p = MultivariantBuilder.playlist(live, media: media),
                case .multivariant(let m) = p.body
            else { return .text(500, "media missing for live-ts") }
            var out = Self.steeredMultivariant(m, port: port)
            // ?inline=1: SERVER-URI carries the steering server's answer as a data: URI, its reloads going to the server.
            if req.query["inline"] == "1", let manifest = steeringManifest(port: port) {
                out.contentSteering?.serverURI = "data:application/json;base64," + Data(manifest.text.utf8).base64EncodedString()
            }
            p.body = .multivariant(out)
            var r = OriginResponse.playlist(p)
            r.kind = "multivariant"
            return r
        case ["steering.json"]:
            let s = state.steering
            var r: OriginResponse
            if s.status != 200 {
                r = .text(s.status, "steering: status \(s.status)")
                if let after = s.retryAfter { r.headers = [("Retry-After", String(after))] }
            } else {
                r = .json(steeringManifest(port: port) ?? .null)
            }
            r.kind = "steering"
            return r
        default: return .text(404, "not found: \(req.path)")
        }
    }

    /// The steering manifest the server answers with now (nil while it answers with another status).
    func steeringManifest(port: Int) -> JSONValue? {
        let s = state.steering
        guard s.status == 200 else { return nil }
        // Absolute: an in-line manifest's RELOAD-URI has no URL of its own to be resolved against.
        var fields: [(String, JSONValue)] = [
            ("VERSION", .int(1)), ("TTL", .int(s.ttl)),
            ("RELOAD-URI", .string("http://\(OriginServer.hosts[0]):\(port)/steered/steering.json?session=1")),
            ("PATHWAY-PRIORITY", .array(s.priority.map { .string($0) })),
        ]
        if s.clone {
            let replacement = JSONValue.object([("HOST", .string("\(OriginServer.hosts[2]):\(port)"))])
            fields.append(
                (
                    "PATHWAY-CLONES",
                    .array([.object([("BASE-ID", .string("cdn-a")), ("ID", .string("cdn-c")), ("URI-REPLACEMENT", replacement)])])
                ))
        }
        return .object(fields)
    }

    /// `m` (the live TS ladder's multivariant playlist) listed once per pathway: absolute URIs on the pathway's host, each
    /// pathway's audio, subtitle and caption groups of its own, STABLE-VARIANT-ID and STABLE-RENDITION-ID the same on every pathway.
    static func steeredMultivariant(_ m: MultivariantPlaylist, port: Int) -> MultivariantPlaylist {
        var out = m
        out.variants = []
        out.renditions = []
        out.iFrameVariants = []
        out.contentSteering = ContentSteering(serverURI: "steering.json", pathwayID: steeredPathways[0].0)
        for (pathway, host) in steeredPathways {
            let absolute = { (uri: String) in "http://\(host):\(port)/live-ts/\(uri)" }
            let group = { (g: String?) in g.map { "\($0)-\(pathway)" } }
            for r in m.renditions {
                var c = r
                c.groupID = "\(r.groupID)-\(pathway)"
                c.uri = r.uri.map(absolute)
                c.stableRenditionID = r.stableRenditionID ?? r.uri.map { String($0.split(separator: "/").first ?? "") }
                out.renditions.append(c)
            }
            for v in m.variants {
                var c = v
                c.uri = absolute(v.uri)
                c.pathwayID = pathway
                c.stableVariantID = v.stableVariantID ?? String(v.uri.split(separator: "/").first ?? "")
                (c.audio, c.video, c.subtitles) = (group(v.audio), group(v.video), group(v.subtitles))
                c.closedCaptions = v.closedCaptions == "NONE" ? "NONE" : group(v.closedCaptions)
                c.leadingLines = []
                out.variants.append(c)
            }
        }
        return out
    }
}
