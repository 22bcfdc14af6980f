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

    static func hex2(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }
}
