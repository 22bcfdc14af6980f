import ExtrasBase64

/// SCTE-35 splice information (ANSI/SCTE 35 2022 §9): the cue messages an HLS playlist carries as EXT-X-DATERANGE
/// SCTE35-OUT/IN/CMD (hexadecimal, RFC 8216bis §4.4.5.1.1) or in the CUE-OUT convention's tags (base64), decoded so that a
/// break's command, event and segmentation type can be read instead of a blob (docs/EVENTS.md).
public enum SCTE35 {
    /// A splice_info_section (§9.6), its CRC checked.
    public struct SpliceInfo: Sendable, Equatable {
        public var protocolVersion: Int
        public var encrypted: Bool
        /// pts_adjustment, in 90 kHz ticks.
        public var ptsAdjustment: UInt64
        public var tier: Int
        public var command: Command
        public var descriptors: [Descriptor]
        public var crc: UInt32
    }

    /// A splice_time() (§9.7.3.1): nil when time_specified_flag is off.
    public typealias SpliceTime = UInt64?

    /// The splice command (§9.7), by splice_command_type.
    public enum Command: Sendable, Equatable {
        /// 0x00.
        case spliceNull
        /// 0x04: kept whole, not decoded.
        case spliceSchedule
        /// 0x05.
        case spliceInsert(SpliceInsert)
        /// 0x06: the moment of the descriptors that follow.
        case timeSignal(pts: SpliceTime)
        /// 0x07.
        case bandwidthReservation
        /// 0xFF.
        case privateCommand(identifier: UInt32)
        case other(type: Int)

        public var name: String {
            switch self {
            case .spliceNull: return "splice_null"
            case .spliceSchedule: return "splice_schedule"
            case .spliceInsert: return "splice_insert"
            case .timeSignal: return "time_signal"
            case .bandwidthReservation: return "bandwidth_reservation"
            case .privateCommand: return "private_command"
            case .other(let t): return "command 0x\(hex(UInt64(t), digits: 2))"
            }
        }
    }

    /// splice_insert() (§9.7.3).
    public struct SpliceInsert: Sendable, Equatable {
        public var eventID: UInt32
        public var cancel: Bool
        /// Out of the network (a break starts) rather than back into it.
        public var outOfNetwork: Bool = false
        public var immediate: Bool = false
        /// The splice moment (90 kHz, before pts_adjustment) for a program splice; nil when immediate or per component.
        public var pts: UInt64?
        /// break_duration(): 90 kHz ticks, and whether the splicer returns by itself at its end.
        public var breakDuration: UInt64?
        public var autoReturn: Bool = false
        public var uniqueProgramID: Int = 0
        public var availNum: Int = 0
        public var availsExpected: Int = 0
    }

    /// A splice descriptor (§10).
    public enum Descriptor: Sendable, Equatable {
        case segmentation(Segmentation)
        /// Any other tag (avail, DTMF, time, audio, private), not decoded.
        case other(tag: Int, identifier: UInt32)
    }

    /// segmentation_descriptor() (§10.3.3).
    public struct Segmentation: Sendable, Equatable {
        public var eventID: UInt32
        public var cancel: Bool
        /// 90 kHz ticks.
        public var duration: UInt64?
        public var upidType: Int = 0
        public var upid: [UInt8] = []
        public var typeID: Int = 0
        public var segmentNum: Int = 0
        public var segmentsExpected: Int = 0

        /// Table 22's name of `typeID`.
        public var typeName: String { SCTE35.segmentationTypes[typeID] ?? "type 0x\(hex(UInt64(typeID), digits: 2))" }

        /// Table 21's name of `upidType` and the UPID as text (readable for URI, MPU-less text types; hex otherwise).
        public var upidText: String? {
            guard upidType != 0, !upid.isEmpty else { return nil }
            let name = SCTE35.upidTypes[upidType] ?? "UPID type 0x\(hex(UInt64(upidType), digits: 2))"
            let printable = upid.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            let value = printable ? String(decoding: upid, as: UTF8.self) : "0x" + upid.map { hex(UInt64($0), digits: 2) }.joined()
            return "\(name) \(value)"
        }
    }

    public enum DecodeError: Error, Equatable, CustomStringConvertible {
        case notText
        case tooShort(Int)
        case tableID(Int)
        case truncated(String)
        case crc(expected: UInt32, found: UInt32)

        public var description: String {
            switch self {
            case .notText: return "neither hexadecimal (0x…) nor base64"
            case .tooShort(let n): return "\(n) bytes, shorter than a splice_info_section"
            case .tableID(let t): return "table_id 0x\(hex(UInt64(t), digits: 2)), not 0xFC"
            case .truncated(let what): return "cut short in \(what)"
            case .crc(let e, let f): return "CRC_32 0x\(hex(UInt64(f), digits: 8)) where the bytes give 0x\(hex(UInt64(e), digits: 8))"
            }
        }
    }

    /// The bytes of a cue as playlists write it: `0x` and hexadecimal (EXT-X-DATERANGE, RFC 8216bis §4.4.5.1.1), else base64
    /// (the CUE-OUT convention's tags).
    public static func bytes(_ text: String) -> [UInt8]? {
        let t = text.trimmingQuotes
        if t.hasPrefix("0x") || t.hasPrefix("0X") {
            let digits = Array(t.utf8.dropFirst(2))
            guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(digits.count / 2)
            var i = 0
            while i < digits.count {
                guard let h = nibble(digits[i]), let l = nibble(digits[i + 1]) else { return nil }
                out.append(h << 4 | l)
                i += 2
            }
            return out
        }
        return base64(t)
    }

    /// Decodes a cue written as text (`bytes`).
    public static func decode(text: String) -> Result<SpliceInfo, DecodeError> {
        guard let b = bytes(text) else { return .failure(.notText) }
        return decode(b)
    }

    /// Decodes a splice_info_section (§9.6).
    public static func decode(_ b: [UInt8]) -> Result<SpliceInfo, DecodeError> {
        guard b.count >= 17 else { return .failure(.tooShort(b.count)) }
        guard b[0] == 0xFC else { return .failure(.tableID(Int(b[0]))) }
        let sectionLength = Int(b[1] & 0x0F) << 8 | Int(b[2])
        guard 3 + sectionLength <= b.count, sectionLength >= 14 else {
            return .failure(.truncated("the section (section_length \(sectionLength))"))
        }
        let end = 3 + sectionLength
        let found = UInt32(b[end - 4]) << 24 | UInt32(b[end - 3]) << 16 | UInt32(b[end - 2]) << 8 | UInt32(b[end - 1])
        let expected = TransportStream.crc32MPEG2(b[0..<(end - 4)])
        guard found == expected else { return .failure(.crc(expected: expected, found: found)) }
        var r = BitReader(b[0..<(end - 4)])
        r.skip(24)
        let version = Int(r.bits(8))
        let encrypted = r.bits(1) == 1
        r.skip(6)
        let adjustment = r.bits(33)
        r.skip(8) // cw_index
        let tier = Int(r.bits(12))
        let commandLength = Int(r.bits(12))
        let commandType = Int(r.bits(8))
        guard !r.overrun else { return .failure(.truncated("the header")) }
        var info = SpliceInfo(
            protocolVersion: version, encrypted: encrypted, ptsAdjustment: adjustment, tier: tier, command: .spliceNull, descriptors: [],
            crc: found)
        // An encrypted section's command and descriptors cannot be read without its control word.
        guard !encrypted else {
            info.command = .other(type: commandType)
            return .success(info)
        }
        let commandStart = r.byte
        switch commandType {
        case 0x00: info.command = .spliceNull
        case 0x04: info.command = .spliceSchedule
        case 0x05: info.command = .spliceInsert(spliceInsert(&r))
        case 0x06: info.command = .timeSignal(pts: spliceTime(&r))
        case 0x07: info.command = .bandwidthReservation
        case 0xFF: info.command = .privateCommand(identifier: UInt32(r.bits(32)))
        default: info.command = .other(type: commandType)
        }
        guard !r.overrun else { return .failure(.truncated(info.command.name)) }
        // splice_command_length 0xFFF is the legacy "unknown": the command's own length stands.
        if commandLength != 0xFFF { r.seek(byte: commandStart + commandLength) }
        let loop = Int(r.bits(16))
        let loopEnd = r.byte + loop
        while r.byte + 2 <= loopEnd, !r.overrun {
            let tag = Int(r.bits(8))
            let length = Int(r.bits(8))
            let next = r.byte + length
            let identifier = UInt32(r.bits(32))
            if tag == 0x02, length >= 5 {
                info.descriptors.append(.segmentation(segmentation(&r, end: next)))
            } else {
                info.descriptors.append(.other(tag: tag, identifier: identifier))
            }
            r.seek(byte: next)
        }
        guard !r.overrun, r.byte <= b.count else { return .failure(.truncated("the descriptors")) }
        return .success(info)
    }

    /// §9.7.3.
    static func spliceInsert(_ r: inout BitReader) -> SpliceInsert {
        var s = SpliceInsert(eventID: UInt32(r.bits(32)), cancel: r.bits(1) == 1)
        r.skip(7)
        guard !s.cancel else { return s }
        s.outOfNetwork = r.bits(1) == 1
        let program = r.bits(1) == 1
        let duration = r.bits(1) == 1
        s.immediate = r.bits(1) == 1
        r.skip(4)
        if program && !s.immediate { s.pts = spliceTime(&r) }
        if !program {
            let count = Int(r.bits(8))
            for _ in 0..<count {
                r.skip(8)
                if !s.immediate { _ = spliceTime(&r) }
            }
        }
        if duration {
            s.autoReturn = r.bits(1) == 1
            r.skip(6)
            s.breakDuration = r.bits(33)
        }
        s.uniqueProgramID = Int(r.bits(16))
        s.availNum = Int(r.bits(8))
        s.availsExpected = Int(r.bits(8))
        return s
    }

    /// splice_time() (§9.7.3.1).
    static func spliceTime(_ r: inout BitReader) -> SpliceTime {
        if r.bits(1) == 1 {
            r.skip(6)
            return r.bits(33)
        }
        r.skip(7)
        return nil
    }

    /// segmentation_descriptor() after its identifier (§10.3.3).
    static func segmentation(_ r: inout BitReader, end: Int) -> Segmentation {
        var s = Segmentation(eventID: UInt32(r.bits(32)), cancel: r.bits(1) == 1)
        r.skip(7)
        guard !s.cancel else { return s }
        let program = r.bits(1) == 1
        let hasDuration = r.bits(1) == 1
        r.skip(6) // delivery_not_restricted_flag and the restrictions (or reserved bits)
        if !program {
            let count = Int(r.bits(8))
            r.skip(count * 48)
        }
        if hasDuration { s.duration = r.bits(40) }
        s.upidType = Int(r.bits(8))
        let length = Int(r.bits(8))
        s.upid = r.bytes(length)
        s.typeID = Int(r.bits(8))
        s.segmentNum = Int(r.bits(8))
        s.segmentsExpected = Int(r.bits(8))
        return s
    }

    /// A splice_info_section carrying one program `splice_insert` (§9.7.3), its CRC computed: out of the network with a
    /// break of `breakDuration` ticks (auto return) or back in; at `pts` (90 kHz), or immediately when nil. For the embedded
    /// origin's breaks (docs/ORIGIN.md).
    public static func spliceInsert(eventID: UInt32, out: Bool, pts: UInt64?, breakDuration: UInt64?) -> [UInt8] {
        var w = BitWriter()
        w.put(UInt64(eventID), 32)
        w.put(0, 1) // splice_event_cancel_indicator
        w.put(0x7F, 7)
        w.put(out ? 1 : 0, 1)
        w.put(1, 1) // program_splice_flag
        w.put(breakDuration == nil ? 0 : 1, 1)
        w.put(pts == nil ? 1 : 0, 1) // splice_immediate_flag
        w.put(1, 1) // event_id_compliance_flag
        w.put(0x7, 3)
        if let pts {
            w.put(1, 1)
            w.put(0x3F, 6)
            w.put(pts & 0x1_FFFF_FFFF, 33)
        }
        if let d = breakDuration {
            w.put(1, 1) // auto_return
            w.put(0x3F, 6)
            w.put(d & 0x1_FFFF_FFFF, 33)
        }
        w.put(0, 16) // unique_program_id
        w.put(0, 8) // avail_num
        w.put(0, 8) // avails_expected
        let command = w.bytes
        var h = BitWriter()
        h.put(0xFC, 8)
        h.put(0, 1) // section_syntax_indicator
        h.put(0, 1) // private_indicator
        h.put(0x3, 2) // sap_type: not specified
        h.put(UInt64(11 + command.count + 2 + 4), 12) // section_length: what follows it, CRC included
        h.put(0, 8) // protocol_version
        h.put(0, 1) // encrypted_packet
        h.put(0, 6) // encryption_algorithm
        h.put(0, 33) // pts_adjustment
        h.put(0, 8) // cw_index
        h.put(0xFFF, 12) // tier: any
        h.put(UInt64(command.count), 12)
        h.put(0x05, 8)
        var section = h.bytes + command + [0, 0] // no descriptors
        let crc = TransportStream.crc32MPEG2(section[...])
        section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return section
    }

    /// As EXT-X-DATERANGE writes a message: `0x` and uppercase hexadecimal (RFC 8216bis §4.4.5.1.1).
    public static func hexText(_ bytes: [UInt8]) -> String { "0x" + bytes.map { hex(UInt64($0), digits: 2) }.joined() }

    /// As the CUE-OUT convention's tags write a message: base64.
    public static func base64Text(_ bytes: [UInt8]) -> String { Base64.encodeToString(bytes: bytes) }

    /// One line: the command with its moment and duration, then each segmentation (type, event, duration, UPID).
    public static func summary(_ i: SpliceInfo) -> String {
        var parts: [String] = []
        switch i.command {
        case .spliceInsert(let s):
            var t = "splice_insert event \(s.eventID)"
            if s.cancel {
                t += " cancelled"
            } else {
                t += s.outOfNetwork ? " out" : " in"
                if let p = s.pts { t += " at \(seconds(p, i.ptsAdjustment)) s" } else if s.immediate { t += " immediately" }
                if let d = s.breakDuration { t += ", break \(seconds(d)) s\(s.autoReturn ? " (auto return)" : "")" }
            }
            parts.append(t)
        case .timeSignal(let p): parts.append("time_signal" + (p.map { " at \(seconds($0, i.ptsAdjustment)) s" } ?? " immediately"))
        default: parts.append(i.command.name)
        }
        for case .segmentation(let s) in i.descriptors {
            var t = s.cancel ? "segmentation event \(s.eventID) cancelled" : "\(s.typeName) (event \(s.eventID)"
            if !s.cancel {
                if let d = s.duration { t += ", \(seconds(d)) s" }
                if s.segmentsExpected > 0 { t += ", segment \(s.segmentNum) of \(s.segmentsExpected)" }
                if let u = s.upidText { t += ", \(u)" }
                t += ")"
            }
            parts.append(t)
        }
        if i.encrypted { parts.append("encrypted") }
        return parts.joined(separator: "; ")
    }

    /// 90 kHz ticks as seconds with three decimals, `adjustment` added modulo 2^33 (§9.6.1).
    static func seconds(_ ticks: UInt64, _ adjustment: UInt64 = 0) -> String {
        let t = (ticks &+ adjustment) & 0x1_FFFF_FFFF
        let ms = (t * 1000 + 45_000) / 90_000
        let frac = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }

    /// Table 22 (segmentation_type_id).
    static let segmentationTypes: [Int: String] = [
        0x00: "Not Indicated", 0x01: "Content Identification", 0x10: "Program Start", 0x11: "Program End",
        0x12: "Program Early Termination", 0x13: "Program Breakaway", 0x14: "Program Resumption", 0x15: "Program Runover Planned",
        0x16: "Program Runover Unplanned", 0x17: "Program Overlap Start", 0x18: "Program Blackout Override",
        0x19: "Program Start – In Progress", 0x20: "Chapter Start", 0x21: "Chapter End", 0x22: "Break Start", 0x23: "Break End",
        0x24: "Opening Credit Start", 0x25: "Opening Credit End", 0x26: "Closing Credit Start", 0x27: "Closing Credit End",
        0x30: "Provider Advertisement Start", 0x31: "Provider Advertisement End", 0x32: "Distributor Advertisement Start",
        0x33: "Distributor Advertisement End", 0x34: "Provider Placement Opportunity Start",
        0x35: "Provider Placement Opportunity End", 0x36: "Distributor Placement Opportunity Start",
        0x37: "Distributor Placement Opportunity End", 0x38: "Provider Overlay Placement Opportunity Start",
        0x39: "Provider Overlay Placement Opportunity End", 0x3A: "Distributor Overlay Placement Opportunity Start",
        0x3B: "Distributor Overlay Placement Opportunity End", 0x3C: "Provider Promo Start", 0x3D: "Provider Promo End",
        0x3E: "Distributor Promo Start", 0x3F: "Distributor Promo End", 0x40: "Unscheduled Event Start",
        0x41: "Unscheduled Event End", 0x42: "Alternate Content Opportunity Start", 0x43: "Alternate Content Opportunity End",
        0x44: "Provider Ad Block Start", 0x45: "Provider Ad Block End", 0x46: "Distributor Ad Block Start",
        0x47: "Distributor Ad Block End", 0x50: "Network Start", 0x51: "Network End",
    ]

    /// Table 21 (segmentation_upid_type).
    static let upidTypes: [Int: String] = [
        0x01: "User Defined", 0x02: "ISCI", 0x03: "Ad-ID", 0x04: "UMID", 0x05: "ISAN (deprecated)", 0x06: "ISAN", 0x07: "TID",
        0x08: "AiringID", 0x09: "ADI", 0x0A: "EIDR", 0x0B: "ATSC Content Identifier", 0x0C: "MPU", 0x0D: "MID",
        0x0E: "ADS Information", 0x0F: "URI", 0x10: "UUID", 0x11: "SCR",
    ]

    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// RFC 4648 base64, its padding optional; nil for anything else.
    static func base64(_ text: String) -> [UInt8]? {
        let padded = (try? Base64.decode(string: text)) ?? (try? Base64.decode(string: text, options: .omitPaddingCharacter))
        return padded.flatMap { $0.isEmpty ? nil : $0 }
    }
}

func hex(_ v: UInt64, digits: Int) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - s.count)) + s
}

extension String {
    /// Without one pair of enclosing double quotes.
    var trimmingQuotes: String {
        hasPrefix("\"") && hasSuffix("\"") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

/// Reads big-endian bit fields; past the end it reads zeros and sets `overrun`.
struct BitReader {
    let data: ArraySlice<UInt8>
    var position = 0
    var overrun = false

    init(_ data: ArraySlice<UInt8>) { self.data = data }

    var byte: Int { position / 8 }

    mutating func bits(_ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<n {
            let i = data.startIndex + position / 8
            guard i < data.endIndex else {
                overrun = true
                v <<= 1
                position += 1
                continue
            }
            v = v << 1 | UInt64((data[i] >> (7 - UInt8(position % 8))) & 1)
            position += 1
        }
        return v
    }

    mutating func skip(_ n: Int) { _ = bits(n) }

    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(bits(8)) } }

    mutating func seek(byte b: Int) {
        if data.startIndex + b > data.endIndex { overrun = true }
        position = b * 8
    }
}

/// Writes big-endian bit fields.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func put(_ value: UInt64, _ n: Int) {
        for i in stride(from: n - 1, through: 0, by: -1) {
            if used % 8 == 0 { bytes.append(0) }
            if (value >> UInt64(i)) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(used % 8) }
            used += 1
        }
    }
}
