/// MPEG-TS continuity counters: the 4-bit count each PID's packets carry, one more with every packet that has a payload
/// (ISO/IEC 13818-1 §2.4.3.3). A demuxer reading one segment after another checks it across their boundary, so a stream
/// whose segments loop on one timeline moves it on too, or FFmpeg marks the first packets of each loop corrupt. Pure.
extension TransportStream {
    /// Per PID, the continuity counter of its first (`last` false) or last packet with a payload in `bytes`.
    public static func continuityCounters(_ bytes: [UInt8], last: Bool) -> [Int: UInt8] {
        var out: [Int: UInt8] = [:]
        var offset = 0
        while offset + packetSize <= bytes.count {
            defer { offset += packetSize }
            guard bytes[offset] == 0x47, bytes[offset + 3] & 0x10 != 0 else { continue }
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            guard pid != 0x1FFF, last || out[pid] == nil else { continue }
            out[pid] = bytes[offset + 3] & 0x0F
        }
        return out
    }

    /// How far one pass of a looping stream moves each PID's counter: the loop's next pass goes on from where its last
    /// segment (`lastSegment`) left off, not from its first segment's (`firstSegment`) counters.
    public static func continuityStep(firstSegment: [UInt8], lastSegment: [UInt8]) -> [Int: UInt8] {
        let first = continuityCounters(firstSegment, last: false)
        let last = continuityCounters(lastSegment, last: true)
        var step: [Int: UInt8] = [:]
        for (pid, f) in first {
            guard let l = last[pid] else { continue }
            step[pid] = (l &+ 1 &- f) & 0x0F
        }
        return step
    }

    /// `bytes` with each packet's continuity counter `by[pid]` later (modulo 16); other PIDs, and everything else, untouched.
    public static func shiftingContinuity(_ bytes: [UInt8], by: [Int: UInt8]) -> [UInt8] {
        guard by.values.contains(where: { $0 & 0x0F != 0 }) else { return bytes }
        var out = bytes
        var offset = 0
        while offset + packetSize <= out.count {
            defer { offset += packetSize }
            guard out[offset] == 0x47 else { continue }
            let pid = Int(out[offset + 1] & 0x1F) << 8 | Int(out[offset + 2])
            guard let step = by[pid] else { continue }
            out[offset + 3] = (out[offset + 3] & 0xF0) | ((out[offset + 3] &+ step) & 0x0F)
        }
        return out
    }
}
