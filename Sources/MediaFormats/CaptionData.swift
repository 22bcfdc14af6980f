/// Closed-caption data as video carries it: ATSC A/53 Part 4 `cc_data` (in H.264/HEVC registered user data SEI), a list of
/// three-byte constructs (CTA-708-E §4.4) — CEA-608 byte pairs of either field, or pieces of CEA-708 (DTVCC) packets.
public struct CCTriplet: Sendable, Equatable {
    /// `cc_type`: 0 CEA-608 field 1 (CC1/CC2), 1 CEA-608 field 2 (CC3/CC4), 2 DTVCC packet data, 3 DTVCC packet start.
    public var type: UInt8
    /// `cc_valid`.
    public var valid: Bool
    /// `cc_data_1`, `cc_data_2` (for CEA-608, with their parity bits as sent).
    public var first: UInt8
    public var second: UInt8

    public init(type: UInt8, valid: Bool = true, _ first: UInt8, _ second: UInt8) {
        self.type = type
        self.valid = valid
        self.first = first
        self.second = second
    }

    /// The triplet as `cc_data` carries it: marker bits, `cc_valid`, `cc_type`, then its two bytes.
    public var bytes: [UInt8] { [0xF8 | (valid ? 0x04 : 0) | (type & 0x03), first, second] }

    /// The triplets of `bytes` (a whole number of three-byte constructs).
    public static func parse(_ bytes: [UInt8]) -> [CCTriplet] {
        stride(from: 0, to: bytes.count - bytes.count % 3, by: 3).map {
            CCTriplet(type: bytes[$0] & 0x03, valid: bytes[$0] & 0x04 != 0, bytes[$0 + 1], bytes[$0 + 2])
        }
    }
}

/// The `cc_data` of one picture, at its presentation time (seconds on the stream's media timeline, as a player's raw
/// time-pos reads it).
public struct CaptionSample: Sendable, Equatable {
    public var time: Double
    public var triplets: [CCTriplet]

    public init(time: Double, triplets: [CCTriplet]) {
        self.time = time
        self.triplets = triplets
    }
}

/// A caption channel as a `CLOSED-CAPTIONS` rendition's INSTREAM-ID names it (RFC 8216bis §4.4.6.1): a CEA-608 channel
/// `CC1`–`CC4`, or a CEA-708 service `SERVICE1`–`SERVICE63`.
public enum CaptionChannel: Sendable, Hashable, CustomStringConvertible {
    case cea608(Int)
    case cea708(Int)

    public init?(instreamID: String) {
        if instreamID.hasPrefix("CC"), let n = Int(instreamID.dropFirst(2)), (1...4).contains(n) {
            self = .cea608(n)
        } else if instreamID.hasPrefix("SERVICE"), let n = Int(instreamID.dropFirst(7)), (1...63).contains(n) {
            self = .cea708(n)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .cea608(let n): return "CC\(n)"
        case .cea708(let n): return "SERVICE\(n)"
        }
    }
}
