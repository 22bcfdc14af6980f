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
        let tag: [UInt8] = Array("avcC".utf8)
        var i = 0
        while i + 8 < bytes.count {
            if bytes[i] == tag[0], bytes[i + 1] == tag[1], bytes[i + 2] == tag[2], bytes[i + 3] == tag[3] {
                return codecString(avcC: bytes[(i + 4)...])
            }
            i += 1
        }
        return nil
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

    static func hex2(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }
}
