/// The codec string of HEVC media (ISO/IEC 14496-15 Annex E.3, `hvc1.1.6.L93.B0`) from what its parameter sets say of its
/// profile, tier and level (ITU-T H.265 §7.3.3 profile_tier_level): read from an fMP4 init section's `hvcC` box or from the
/// first SPS of an Annex B stream (MPEG-TS). Pure.
public enum HEVC {
    /// The codec string from the first 12 bytes of a general profile_tier_level — general_profile_space (2 bits), tier (1),
    /// profile_idc (5); 32 profile compatibility flags; 48 bits of constraint flags; level_idc — with `fourcc` (the sample
    /// entry's type, `hvc1` or `hev1`). Annex E.3: the compatibility flags in reverse bit order in hexadecimal, the tier as `L`
    /// or `H` before the level, each constraint byte in hexadecimal after a period, trailing zero bytes left out.
    public static func codecString(fourcc: String, profileTierLevel p: [UInt8]) -> String? {
        guard p.count >= 12 else { return nil }
        let space = ["", "A", "B", "C"][Int(p[0] >> 6)]
        let tier = p[0] & 0x20 != 0 ? "H" : "L"
        let compatibility = UInt32(p[1]) << 24 | UInt32(p[2]) << 16 | UInt32(p[3]) << 8 | UInt32(p[4])
        var reversed: UInt32 = 0
        for i in 0..<32 where compatibility & (1 << UInt32(i)) != 0 { reversed |= 1 << UInt32(31 - i) }
        var constraints = Array(p[5..<11])
        while constraints.last == 0 { constraints.removeLast() }
        let head = "\(fourcc).\(space)\(p[0] & 0x1F).\(String(reversed, radix: 16, uppercase: true)).\(tier)\(p[11])"
        return constraints.reduce(head) { $0 + "." + String($1, radix: 16, uppercase: true) }
    }

    /// The codec string of the `hvcC` box in an fMP4 init section (ISO/IEC 14496-15 §8.3.3.1: configurationVersion, then
    /// the general profile_tier_level's 12 bytes), with the sample entry's type (`hvc1`: parameter sets in the sample entry
    /// only; `hev1`: in band too).
    public static func codecString(initSection bytes: [UInt8]) -> String? {
        guard let at = FragmentedMP4.offset(of: "hvcC", in: bytes), at + 4 + 13 <= bytes.count else { return nil }
        let fourcc = FragmentedMP4.offset(of: "hev1", in: bytes).map { _ in "hev1" } ?? "hvc1"
        return codecString(fourcc: fourcc, profileTierLevel: Array(bytes[(at + 5)..<(at + 17)]))
    }

    /// The codec string of the first SPS (NAL unit type 33) in an Annex B stream: after its two-byte header and one byte of
    /// ids and sub-layer counts, the profile_tier_level (emulation prevention bytes taken out, H.265 §7.4.2). The stream
    /// does not say which sample entry it would have: `hvc1`.
    public static func codecString(annexB bytes: [UInt8]) -> String? {
        var i = 0
        while i + 5 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1, (bytes[i + 3] >> 1) & 0x3F == 33 {
                var r = ExpGolombReader(rbsp: Array(bytes[(i + 3)..<min(bytes.count, i + 3 + 64)]))
                guard r.bits(24) != nil else { return nil }
                let ptl = (0..<12).compactMap { _ in r.bits(8).map(UInt8.init) }
                return codecString(fourcc: "hvc1", profileTierLevel: ptl)
            }
            i += 1
        }
        return nil
    }

}

/// Dolby Vision in an fMP4 init section (Dolby's "Dolby Vision Streams Within the ISO Base Media File Format", the
/// `dvcC`/`dvvC` configuration box: version major and minor, then dv_profile in 7 bits and dv_level in 6), written as HLS
/// writes it: `dvh1.PP.LL` (two decimal digits each). Pure.
public enum DolbyVision {
    /// What the init section says: `codec`, the Dolby Vision codec string with the sample entry's type when the sample entry
    /// is Dolby Vision's own (`dvh1`, `dvhe`: a stream only a Dolby Vision decoder plays, listed in CODECS); `supplemental`
    /// when the sample entry is plain HEVC (`hvc1`, `hev1`) carrying a Dolby Vision configuration (a backward-compatible
    /// profile, listed in SUPPLEMENTAL-CODECS, RFC 8216bis §4.4.6.2). Nil when there is no configuration box.
    public static func codecs(initSection bytes: [UInt8]) -> (codec: String?, supplemental: String?)? {
        guard let at = FragmentedMP4.offset(of: "dvcC", in: bytes) ?? FragmentedMP4.offset(of: "dvvC", in: bytes), at + 8 <= bytes.count
        else { return nil }
        let profile = Int(bytes[at + 6] >> 1)
        let level = Int((bytes[at + 6] & 1) << 5 | bytes[at + 7] >> 3)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        for own in ["dvh1", "dvhe"] where FragmentedMP4.offset(of: own, in: bytes) != nil {
            return ("\(own).\(two(profile)).\(two(level))", nil)
        }
        let entry = FragmentedMP4.offset(of: "hev1", in: bytes) != nil ? "dvhe" : "dvh1"
        return (nil, "\(entry).\(two(profile)).\(two(level))")
    }
}
