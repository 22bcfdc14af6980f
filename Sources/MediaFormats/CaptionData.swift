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

extension CaptionChannel: Comparable {
    /// CEA-608 channels first, then CEA-708 services, each by number.
    public static func < (a: CaptionChannel, b: CaptionChannel) -> Bool {
        switch (a, b) {
        case (.cea608(let x), .cea608(let y)), (.cea708(let x), .cea708(let y)): return x < y
        case (.cea608, .cea708): return true
        case (.cea708, .cea608): return false
        }
    }

    /// The channels that say something in `samples`: a CEA-608 channel whose characters appear (control codes alone, XDS
    /// and padding say nothing; CEA-608-E assigns a field's characters to the channel its last control code named), and
    /// each CEA-708 service with a service block in a complete DTVCC packet (CTA-708-E §6.2, §6.3).
    public static func found(in samples: [CaptionSample]) -> Set<CaptionChannel> {
        var out: Set<CaptionChannel> = []
        var channel = [1, 1] // per field: the data channel its last control code named
        var xds = [false, false]
        var packet: [UInt8] = []
        var size = 0
        func services() {
            var i = 0
            while i < packet.count {
                var service = Int(packet[i] >> 5)
                let length = Int(packet[i] & 0x1F)
                i += 1
                if service == 7, i < packet.count {
                    service = Int(packet[i] & 0x3F)
                    i += 1
                }
                guard service != 0, length > 0 else { return }
                if i + length <= packet.count { out.insert(.cea708(service)) }
                i += length
            }
        }
        for t in samples.flatMap(\.triplets) where t.valid {
            switch t.type {
            case 0, 1:
                let f = Int(t.type)
                let b1 = t.first & 0x7F
                switch b1 {
                case 0x00: continue
                case 0x01...0x0F: xds[f] = b1 != 0x0F
                case 0x10...0x1F:
                    channel[f] = b1 & 0x08 == 0 ? 1 : 2
                    xds[f] = false
                default: if !xds[f] { out.insert(.cea608(channel[f] + 2 * f)) }
                }
            case 3:
                packet = [t.second]
                let code = Int(t.first & 0x3F)
                size = (code == 0 ? 128 : code * 2) - 1
                if packet.count >= size {
                    services()
                    packet = []
                }
            default:
                guard size > 0 else { continue }
                packet += [t.first, t.second]
                if packet.count >= size {
                    packet = Array(packet.prefix(size))
                    services()
                    (packet, size) = ([], 0)
                }
            }
        }
        return out
    }
}
