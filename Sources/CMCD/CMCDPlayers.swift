/// Other players seen through their CMCD (docs/CMCD.md): each session (`sid`) with its buffer, bitrate and throughput over
/// time, how long it took to start, its stalls and switches, and what CTA-5004 says of what it sent. A value, fed each request
/// in order; pure.
public struct CMCDPlayers: Sendable {
    /// One moment of a player, as its request said it.
    public struct Sample: Sendable, Equatable {
        public var at: Double
        /// Buffer length, seconds.
        public var buffer: Double?
        /// Encoded bitrate asked for, bits/s.
        public var bitrate: Int?
        /// Measured throughput, bits/s.
        public var throughput: Int?
        public var rate: Double?
    }

    /// One player session.
    public struct Player: Sendable, Equatable {
        public var sid: String
        public var contentID: String?
        public var streamType: String?
        public var firstSeen: Double
        public var lastSeen: Double
        public var requests = 0
        /// The newest samples (a media request's), at most `sampleLimit`.
        public var samples: [Sample] = []
        /// Seconds from its first request to its first media request no longer marked startup (`su`): how long it took to
        /// start, as the player tells it.
        public var startup: Double?
        /// Stalls it reported (`bs`).
        public var stalls = 0
        /// Times the bitrate of its video requests changed (`br`).
        public var switches = 0
        /// Findings by rule, and the newest one.
        public var findings: [String: Int] = [:]
        public var lastFinding: String?
        var lastBitrate: Int?
        var check = CMCDSessionCheck()

        /// The newest sample.
        public var latest: Sample? { samples.last }

        /// One line: "6e2fb550 bl 8.3 s br 829k mtp 4.9M, started in 0.4 s, 1 stall, 3 switches, 2 findings".
        public var summary: String {
            var parts = [String(sid.prefix(8))]
            if let b = latest?.buffer { parts.append("bl \(Self.fixed(b)) s") }
            if let br = samples.last(where: { $0.bitrate != nil })?.bitrate { parts.append("br \(Self.rate(br))") }
            if let m = samples.last(where: { $0.throughput != nil })?.throughput { parts.append("mtp \(Self.rate(m))") }
            var tail: [String] = []
            tail.append(startup.map { "started in \(Self.fixed($0)) s" } ?? "starting")
            tail.append("\(stalls) stall\(stalls == 1 ? "" : "s")")
            tail.append("\(switches) switch\(switches == 1 ? "" : "es")")
            let n = findings.values.reduce(0, +)
            tail.append(n == 0 ? "CTA-5004 clean" : "\(n) finding\(n == 1 ? "" : "s") (\(findings.keys.sorted().joined(separator: ", ")))")
            return parts.joined(separator: " ") + ", " + tail.joined(separator: ", ")
        }

        static func fixed(_ x: Double) -> String {
            let v = (x * 10).rounded() / 10
            return v == v.rounded() ? "\(Int(v)).0" : "\(v)"
        }

        static func rate(_ bps: Int) -> String {
            bps >= 1_000_000 ? "\(fixed(Double(bps) / 1_000_000))M" : "\(bps / 1000)k"
        }
    }

    public static let sampleLimit = 600
    public static let playerLimit = 256
    public private(set) var players: [String: Player] = [:]
    var order: [String] = []

    public init() {}

    /// The players, first seen first.
    public var all: [Player] { order.compactMap { players[$0] } }

    /// Takes one request's CMCD at `at` seconds: every finding for it (alone, against `context`, over its session), and the
    /// player it belongs to updated. A request without `sid` counts under "-".
    public mutating func observe(_ read: CMCDRead, context: CMCDContext? = nil, at t: Double) -> [CMCDFinding] {
        let sid = read.data[.sid]?.text ?? "-"
        var p =
            players[sid]
            ?? Player(
                sid: sid, contentID: read.data[.cid]?.text, streamType: read.data[.st]?.text, firstSeen: t, lastSeen: t)
        if players[sid] == nil {
            order.append(sid)
            if order.count > Self.playerLimit { players[order.removeFirst()] = nil }
        }
        var findings = CMCDCheck.findings(read, context: context)
        findings += p.check.observe(read.data, at: t)
        let d = read.data
        p.requests += 1
        p.lastSeen = t
        if p.contentID == nil { p.contentID = d[.cid]?.text }
        if p.streamType == nil { p.streamType = d[.st]?.text }
        let type = d[.ot]?.text.flatMap(CMCDObjectType.init) ?? context?.objectType
        if type?.holdsMedia ?? (d[.bl] != nil) {
            p.samples.append(
                Sample(
                    at: t, buffer: d[.bl]?.double.map { $0 / 1000 }, bitrate: d[.br]?.int.map { $0 * 1000 },
                    throughput: d[.mtp]?.int.map { $0 * 1000 }, rate: d[.pr]?.double))
            if p.samples.count > Self.sampleLimit { p.samples.removeFirst(p.samples.count - Self.sampleLimit) }
            if p.startup == nil, d[.su] == nil { p.startup = t - p.firstSeen }
            if d[.bs]?.bool == true { p.stalls += 1 }
            if type != .audio, let br = d[.br]?.int {
                if let last = p.lastBitrate, last != br { p.switches += 1 }
                p.lastBitrate = br
            }
        }
        for f in findings {
            p.findings[f.rule, default: 0] += 1
            p.lastFinding = f.description
        }
        players[sid] = p
        return findings
    }
}
