import Foundation

extension OriginRouter {
    func applyFault(_ r0: OriginResponse, _ req: OriginRequest, now: Double) -> OriginResponse {
        var r = r0
        let target: Fault.Target
        switch r.kind {
        case "playlist", "multivariant", "steering": target = .playlist
        case "segment", "subtitle": target = .segment
        case "init": target = .initSection
        case "key": target = .key
        default: return r
        }
        guard
            let f = state.takeFault(
                target: target, scenario: r.scenario, rendition: r.rendition, msn: r.truth?.msn, client: req.query["client"],
                host: req.host, subtitle: r.kind == "subtitle", now: now)
        else { return r }
        r.fault = "\(f.kind.rawValue)#\(f.id)"
        switch f.kind {
        case .status:
            let keep = (r.kind, r.truth, r.scenario, r.rendition, r.fault)
            r = .text(f.status, "fault \(f.id): status \(f.status)")
            (r.kind, r.truth, r.scenario, r.rendition, r.fault) = keep
        case .slow: r.delayMs += f.ms
        case .stall: r.delivery = f.bytes.map { .hang(bytes: $0, seconds: f.hold ?? 60) } ?? .stall
        case .truncate: r.delivery = f.bytes.map { .cut(bytes: $0) } ?? .truncate
        case .trickle: r.delivery = .trickle(interval: f.ms > 0 ? Double(f.ms) / 1000 : 3)
        case .norange: r.ignoresRange = true
        case .etag: r.headers.append(("ETag", "\"changed-\(f.id)\""))
        case .freeze, .reset, .nopdt, .uriswap: break
        case .vttshift, .vttnomap, .vttnoheader: r.body = Array(Self.webVTT(String(decoding: r.body, as: UTF8.self), f).utf8)
        }
        return r
    }

    /// A WebVTT segment as fault `f` spoils it: its map moved by `ms`, left out, or its signature left out.
    static func webVTT(_ text: String, _ f: Fault) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch f.kind {
        case .vttnoheader: lines.removeAll { $0.hasPrefix("WEBVTT") }
        case .vttnomap: lines.removeAll { $0.hasPrefix("X-TIMESTAMP-MAP=") }
        case .vttshift:
            lines = lines.map { line in
                guard line.hasPrefix("X-TIMESTAMP-MAP="), let r = line.range(of: "MPEGTS:") else { return line }
                let digits = line[r.upperBound...].prefix { $0.isNumber }
                let moved = (Int(digits) ?? 0) + f.ms * 90
                return line.replacingCharacters(in: r.upperBound..<digits.endIndex, with: String(moved))
            }
        default: break
        }
        return lines.joined(separator: "\n")
    }
}
