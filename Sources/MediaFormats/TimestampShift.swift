/// Moving an MPEG-TS segment's timeline: every PES's PTS and DTS and every PCR later by the same amount, in place
/// (ISO/IEC 13818-1 §2.4.3.5 for the PCR, §2.4.3.7 for PTS and DTS), modulo 2^33 as the clock wraps. Pure.
extension TransportStream {
    /// The 33-bit clock's period, in 90 kHz ticks.
    public static let clockWrap: Int64 = 1 << 33

    /// `bytes` with every timestamp `ticks` (90 kHz) later; packets, lengths and continuity counters untouched.
    public static func shiftingTimestamps(_ bytes: [UInt8], by ticks: Int64) -> [UInt8] { shiftingTimestamps(bytes, by: ticks, pids: nil) }

    /// `shiftingTimestamps` for the PES packets of `pids` only (nil: all, with the PCR): one stream moved against the others,
    /// as a packager that muxes its audio off the video does.
    public static func shiftingTimestamps(_ bytes: [UInt8], by ticks: Int64, pids: Set<Int>?) -> [UInt8] {
        let shift = ((ticks % clockWrap) + clockWrap) % clockWrap
        guard shift != 0 else { return bytes }
        var out = bytes
        var offset = 0
        while offset + packetSize <= out.count {
            defer { offset += packetSize }
            guard out[offset] == 0x47 else { continue }
            let pusi = out[offset + 1] & 0x40 != 0
            let pid = Int(out[offset + 1] & 0x1F) << 8 | Int(out[offset + 2])
            if let pids, !pids.contains(pid) { continue }
            let afc = (out[offset + 3] >> 4) & 0x3
            var payload = offset + 4
            if afc & 0x2 != 0 {
                let length = Int(out[offset + 4])
                // PCR: 33-bit base at 90 kHz, 6 reserved bits, 9-bit extension (§2.4.3.5).
                if pids == nil, length >= 7, out[offset + 5] & 0x10 != 0 {
                    let p = offset + 6
                    var base = Int64(out[p]) << 25 | Int64(out[p + 1]) << 17 | Int64(out[p + 2]) << 9 | Int64(out[p + 3]) << 1
                    base |= Int64(out[p + 4] >> 7)
                    base = (base + shift) % clockWrap
                    out[p] = UInt8(truncatingIfNeeded: base >> 25)
                    out[p + 1] = UInt8(truncatingIfNeeded: base >> 17)
                    out[p + 2] = UInt8(truncatingIfNeeded: base >> 9)
                    out[p + 3] = UInt8(truncatingIfNeeded: base >> 1)
                    out[p + 4] = (out[p + 4] & 0x7F) | UInt8(truncatingIfNeeded: (base & 1) << 7)
                }
                payload += 1 + length
            }
            guard pusi, afc & 0x1 != 0, payload + 14 <= offset + packetSize else { continue }
            // A PES with a header: start code 00 00 01, a stream id whose header carries the flags (§2.4.3.7, Table 2-21).
            guard out[payload] == 0, out[payload + 1] == 0, out[payload + 2] == 1 else { continue }
            let streamID = out[payload + 3]
            if [0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8].contains(streamID) { continue }
            let flags = (out[payload + 7] >> 6) & 0x3
            if flags & 0x2 != 0 { shiftStamp(&out, at: payload + 9, by: shift) }
            if flags == 0x3, payload + 19 <= offset + packetSize { shiftStamp(&out, at: payload + 14, by: shift) }
        }
        return out
    }

    /// A PTS or DTS field of five bytes: a 4-bit prefix, then 33 bits split 3/15/15 with a marker bit after each part.
    static func shiftStamp(_ b: inout [UInt8], at i: Int, by shift: Int64) {
        var v = Int64(b[i] >> 1 & 0x07) << 30
        v |= Int64(b[i + 1]) << 22 | Int64(b[i + 2] >> 1) << 15
        v |= Int64(b[i + 3]) << 7 | Int64(b[i + 4] >> 1)
        v = (v + shift) % clockWrap
        b[i] = (b[i] & 0xF1) | UInt8(truncatingIfNeeded: (v >> 29) & 0x0E)
        b[i + 1] = UInt8(truncatingIfNeeded: v >> 22)
        b[i + 2] = UInt8(truncatingIfNeeded: (v >> 14) & 0xFE) | 0x01
        b[i + 3] = UInt8(truncatingIfNeeded: v >> 7)
        b[i + 4] = UInt8(truncatingIfNeeded: (v << 1) & 0xFE) | 0x01
    }
}
