/// Reading H.264 parameter sets out of Annex B byte streams (ITU-T H.264 §7.3.2.1).
public enum H264 {
    /// The RFC 6381 codec string (`avc1.PPCCLL`) from the first SPS found in `bytes`, e.g. `avc1.4d401e`.
    public static func codecString(annexB bytes: [UInt8]) -> String? {
        var i = 0
        while i + 6 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1, bytes[i + 3] & 0x1F == 7 {
                return "avc1." + [bytes[i + 4], bytes[i + 5], bytes[i + 6]].map { hex2($0) }.joined()
            }
            i += 1
        }
        return nil
    }

    /// The codec string from an `avcC` box's payload (fMP4 init sections).
    public static func codecString(avcC payload: ArraySlice<UInt8>) -> String? {
        guard payload.count >= 4 else { return nil }
        let s = payload.startIndex
        return "avc1." + [payload[s + 1], payload[s + 2], payload[s + 3]].map { hex2($0) }.joined()
    }

    /// The codec string of the avcC box inside an fMP4 init section (it sits deep in moov/trak/mdia/minf/stbl/stsd/avc1; a
    /// search for its type is enough).
    public static func codecString(initSection bytes: [UInt8]) -> String? {
        guard let i = FragmentedMP4.offset(of: "avcC", in: bytes), i + 8 < bytes.count else { return nil }
        return codecString(avcC: bytes[(i + 4)...])
    }

    /// The NAL unit types in an Annex B byte stream, in order (H.264: the low five bits of the header byte; HEVC, `hevc`:
    /// six bits after the forbidden bit).
    public static func nalTypes(annexB bytes: [UInt8], hevc: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                let h = bytes[i + 3]
                out.append(hevc ? (h >> 1) & 0x3F : h & 0x1F)
                i += 3
            } else {
                i += 1
            }
        }
        return out
    }

    /// A NAL unit's bytes with their emulation prevention bytes (0x03 after two zero bytes) taken out: its RBSP (ITU-T H.264
    /// §7.4.1; H.265 §7.4.2 the same).
    static func unescaped(_ raw: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for b in raw {
            if zeros >= 2, b == 3 {
                zeros = 0
                continue
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// An RBSP with emulation prevention bytes put in: 0x03 after two zero bytes when the next is 0x03 or less, so that no
    /// start code appears inside a NAL unit (ITU-T H.264 §7.4.1).
    static func escaped(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64)
        var zeros = 0
        for b in rbsp {
            if zeros >= 2 && b <= 3 {
                out.append(0x03)
                zeros = 0
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return out
    }

    static func hex2(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }

    /// The first SPS NAL unit (header byte included) in an Annex B byte stream.
    public static func firstSPS(annexB bytes: [UInt8]) -> [UInt8]? {
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1, bytes[i + 3] & 0x1F == 7 {
                var j = i + 4
                while j + 2 < bytes.count, !(bytes[j] == 0 && bytes[j + 1] == 0 && (bytes[j + 2] == 1 || bytes[j + 2] == 0)) { j += 1 }
                return Array(bytes[(i + 3)..<(j + 2 < bytes.count ? j : bytes.count)])
            }
            i += 1
        }
        return nil
    }

    /// The first SPS NAL unit of the avcC box in an fMP4 init section (ISO/IEC 14496-15 §5.3.3.1: after five bytes of header,
    /// the count of SPS in the low five bits, then each as a 16-bit length and its bytes).
    public static func firstSPS(initSection bytes: [UInt8]) -> [UInt8]? {
        guard let i = FragmentedMP4.offset(of: "avcC", in: bytes), i + 12 < bytes.count else { return nil }
        let p = i + 4
        guard bytes[p + 5] & 0x1F > 0 else { return nil }
        let n = Int(bytes[p + 6]) << 8 | Int(bytes[p + 7])
        guard p + 8 + n <= bytes.count else { return nil }
        return Array(bytes[(p + 8)..<(p + 8 + n)])
    }
}

/// What a sequence parameter set says of the picture (ITU-T H.264 §7.3.2.1.1 and Annex E, VUI).
public struct SPS: Sendable, Equatable {
    public var profile: Int
    public var level: Int
    /// The picture's size after cropping, in pixels.
    public var width: Int
    public var height: Int
    /// The sample aspect ratio (width:height of a pixel; 1:1 unless the VUI says otherwise).
    public var sampleAspect: (Int, Int) = (1, 1)
    /// Frames per second from the VUI's timing (time_scale / (2 × num_units_in_tick)); nil without timing info.
    public var frameRate: Double?
    /// transfer_characteristics (ITU-T H.273): 1, 6, 13, 14, 15 SDR; 16 PQ; 18 HLG; nil when the VUI gives none.
    public var transfer: Int?

    public static func == (a: SPS, b: SPS) -> Bool {
        a.profile == b.profile && a.level == b.level && a.width == b.width && a.height == b.height
            && a.sampleAspect == b.sampleAspect && a.frameRate == b.frameRate && a.transfer == b.transfer
    }

    /// The width a player shows, the sample aspect applied.
    public var displayWidth: Int { sampleAspect.1 > 0 ? (width * sampleAspect.0 + sampleAspect.1 / 2) / sampleAspect.1 : width }

    /// Reads an SPS NAL unit (its header byte first); nil when it is not one or ends early.
    public init?(nal: [UInt8]) {
        guard nal.count > 4, nal[0] & 0x1F == 7 else { return nil }
        var r = ExpGolombReader(rbsp: Array(nal.dropFirst()))
        guard let profile = r.bits(8), r.bits(8) != nil, let level = r.bits(8), r.ue() != nil else { return nil }
        self.profile = profile
        self.level = level
        var chroma = 1
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let c = r.ue() else { return nil }
            chroma = c
            if chroma == 3 { _ = r.bits(1) }
            guard r.ue() != nil, r.ue() != nil, r.bits(1) != nil, let scaling = r.bits(1) else { return nil }
            if scaling == 1 {
                for i in 0..<(chroma == 3 ? 12 : 8) {
                    guard let present = r.bits(1) else { return nil }
                    if present == 1 { guard r.skipScalingList(i < 6 ? 16 : 64) else { return nil } }
                }
            }
        }
        guard r.ue() != nil, let pocType = r.ue() else { return nil }
        if pocType == 0 {
            guard r.ue() != nil else { return nil }
        } else if pocType == 1 {
            guard r.bits(1) != nil, r.se() != nil, r.se() != nil, let n = r.ue(), n < 256 else { return nil }
            for _ in 0..<n { guard r.se() != nil else { return nil } }
        }
        guard r.ue() != nil, r.bits(1) != nil, let wMBs = r.ue(), let hMaps = r.ue(), let frameOnly = r.bits(1) else { return nil }
        if frameOnly == 0 { _ = r.bits(1) }
        guard r.bits(1) != nil, let cropping = r.bits(1) else { return nil }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropping == 1 {
            guard let l = r.ue(), let rt = r.ue(), let t = r.ue(), let b = r.ue() else { return nil }
            crop = (l, rt, t, b)
        }
        // §7.4.2.1.1: crop units follow the chroma format (4:2:0 halves both, 4:2:2 the width, 4:4:4 and mono neither).
        let unitX = chroma == 1 || chroma == 2 ? 2 : 1
        let unitY = (chroma == 1 ? 2 : 1) * (2 - frameOnly)
        width = (wMBs + 1) * 16 - unitX * (crop.left + crop.right)
        height = (2 - frameOnly) * (hMaps + 1) * 16 - unitY * (crop.top + crop.bottom)
        guard r.bits(1) == 1 else { return }
        // Annex E.1.1, the VUI as far as timing.
        if r.bits(1) == 1, let idc = r.bits(8) {
            let table: [Int: (Int, Int)] = [
                1: (1, 1), 2: (12, 11), 3: (10, 11), 4: (16, 11), 5: (40, 33), 6: (24, 11), 7: (20, 11), 8: (32, 11), 9: (80, 33),
                10: (18, 11), 11: (15, 11), 12: (64, 33), 13: (160, 99), 14: (4, 3), 15: (3, 2), 16: (2, 1),
            ]
            if idc == 255 {
                guard let w = r.bits(16), let h = r.bits(16) else { return }
                if w > 0, h > 0 { sampleAspect = (w, h) }
            } else if let sar = table[idc] {
                sampleAspect = sar
            }
        }
        if r.bits(1) == 1 { _ = r.bits(1) }
        if r.bits(1) == 1 {
            guard r.bits(3) != nil, r.bits(1) != nil, let described = r.bits(1) else { return }
            if described == 1 {
                guard r.bits(8) != nil, let tc = r.bits(8), r.bits(8) != nil else { return }
                transfer = tc
            }
        }
        if r.bits(1) == 1 { guard r.ue() != nil, r.ue() != nil else { return } }
        if r.bits(1) == 1, let tick = r.bits(32), let scale = r.bits(32), tick > 0 {
            frameRate = Double(scale) / Double(2 * tick)
        }
    }
}

/// Bits of an RBSP, the emulation prevention bytes (00 00 03) taken out (ITU-T H.264 §7.4.1), with Exp-Golomb codes (§9.1).
struct ExpGolombReader {
    private var bytes: [UInt8] = []
    private var bit = 0

    init(rbsp raw: [UInt8]) { bytes = H264.unescaped(raw) }

    /// The next `n` bits (at most 32), or nil past the end.
    mutating func bits(_ n: Int) -> Int? {
        guard bit + n <= bytes.count * 8 else { return nil }
        var v = 0
        for _ in 0..<n {
            v = v << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return v
    }

    /// ue(v).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let b = bits(1) else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// se(v).
    mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    /// scaling_list() of `size` entries (§7.3.2.1.1.1), read and dropped.
    mutating func skipScalingList(_ size: Int) -> Bool {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            guard let delta = se() else { return false }
            next = (last + delta + 256) % 256
            last = next == 0 ? last : next
        }
        return true
    }
}
