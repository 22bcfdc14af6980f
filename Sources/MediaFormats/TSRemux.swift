/// Rewriting the elementary streams of an MPEG-TS segment: PES payloads through a transform, then packetized again (ISO/IEC 13818-1 §2.4.3).
extension TransportStream {
    /// `bytes` with each PES payload replaced by `transform(streamType, payload)` (nil keeps it) and the PMT's stream types mapped by
    /// `streamType`; other packets are kept, continuity counters renumbered, each PES's first adaptation field (PCR, random access) kept.
    public static func rewritingPES(
        _ bytes: [UInt8], streamType map: (UInt8) -> UInt8,
        transform: (_ streamType: UInt8, _ payload: [UInt8]) -> [UInt8]?
    ) -> [UInt8] {
        let info = probe(bytes)
        let pmtPID = info.programMapPID
        /// One PES as read: its PID, the adaptation field of its first packet (without stuffing), its bytes and first continuity counter.
        struct PES { var pid: Int; var firstAF: [UInt8]?; var bytes: [UInt8]; var cc: UInt8 }
        enum Unit { case packet(Int), programMap(Int), pes(Int) }
        var units: [Unit] = []
        var pes: [PES] = []
        var open: [Int: Int] = [:]
        var offset = 0
        while offset + packetSize <= bytes.count {
            defer { offset += packetSize }
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            let afc = (bytes[offset + 3] >> 4) & 0x3
            guard bytes[offset] == 0x47, info.streamTypes[pid] != nil, afc & 0x1 != 0 else {
                units.append(pid == pmtPID && bytes[offset + 1] & 0x40 != 0 ? .programMap(offset) : .packet(offset))
                continue
            }
            var start = offset + 4
            var af: [UInt8]?
            if afc & 0x2 != 0 {
                let length = Int(bytes[offset + 4])
                af = essentialAdaptationField(Array(bytes[(offset + 5)..<min(offset + packetSize, offset + 5 + length)]))
                start += 1 + length
            }
            let payload = start < offset + packetSize ? Array(bytes[start..<(offset + packetSize)]) : []
            if bytes[offset + 1] & 0x40 != 0 {
                open[pid] = pes.count
                units.append(.pes(pes.count))
                pes.append(PES(pid: pid, firstAF: af, bytes: payload, cc: bytes[offset + 3] & 0x0F))
            } else if let i = open[pid] {
                pes[i].bytes += payload
            } else {
                units.append(.packet(offset)) // the tail of a PES that began before this segment
            }
        }
        var cc: [Int: UInt8] = [:]
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 64)
        for unit in units {
            switch unit {
            case .programMap(let o):
                out += programMap(Array(bytes[o..<(o + packetSize)]), map)
            case .packet(let o):
                out += bytes[o..<(o + packetSize)]
            case .pes(let i):
                let p = pes[i]
                let type = info.streamTypes[p.pid] ?? 0
                let body = rebuiltPES(p.bytes, type: type, transform) ?? p.bytes
                out += packetize(body, pid: p.pid, firstAF: p.firstAF, cc: &cc[p.pid, default: p.cc])
            }
        }
        return out
    }

    /// A PMT packet with its stream types mapped and its CRC computed again.
    static func programMap(_ packet: [UInt8], _ map: (UInt8) -> UInt8) -> [UInt8] {
        var p = packet
        guard let (t, crcAt) = sectionBounds(p), t + 12 <= packetSize else { return packet }
        var e = t + 12 + (Int(p[t + 10] & 0x0F) << 8 | Int(p[t + 11]))
        while e + 5 <= crcAt {
            p[e] = map(p[e])
            e += 5 + (Int(p[e + 3] & 0x0F) << 8 | Int(p[e + 4]))
        }
        p.replaceSubrange(crcAt..<(crcAt + 4), with: crcBytes(p[t..<crcAt]))
        return p
    }

    /// An adaptation field's flags and fields without its stuffing bytes (§2.4.3.4).
    static func essentialAdaptationField(_ af: [UInt8]) -> [UInt8]? {
        guard let flags = af.first else { return nil }
        var n = 1
        if flags & 0x10 != 0 { n += 6 } // PCR
        if flags & 0x08 != 0 { n += 6 } // OPCR
        if flags & 0x04 != 0 { n += 1 } // splice countdown
        if flags & 0x02 != 0, n < af.count { n += 1 + Int(af[n]) } // private data
        if flags & 0x01 != 0, n < af.count { n += 1 + Int(af[n]) } // extension
        return Array(af.prefix(n))
    }

    /// The PES with its payload transformed and PES_packet_length set again (0, unbounded, stays 0); nil when unchanged.
    static func rebuiltPES(_ pes: [UInt8], type: UInt8, _ transform: (UInt8, [UInt8]) -> [UInt8]?) -> [UInt8]? {
        guard pes.count >= 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { return nil }
        let headerEnd = 9 + Int(pes[8])
        guard headerEnd <= pes.count, let payload = transform(type, Array(pes[headerEnd...])) else { return nil }
        var out = Array(pes[..<headerEnd]) + payload
        if pes[4] != 0 || pes[5] != 0 {
            let length = out.count - 6
            out[4] = length > 0xFFFF ? 0 : UInt8(length >> 8)
            out[5] = length > 0xFFFF ? 0 : UInt8(length & 0xFF)
        }
        return out
    }

    /// TS packets carrying one PES; the last is filled with adaptation-field stuffing.
    static func packetize(_ pes: [UInt8], pid: Int, firstAF: [UInt8]?, cc: inout UInt8) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        var first = true
        while offset < pes.count || first {
            var af: [UInt8]? = first ? firstAF : nil
            let room = packetSize - 4 - (af.map { 1 + $0.count } ?? 0)
            let take = min(room, pes.count - offset)
            if take < room {
                // Stuffing: an adaptation field long enough to fill the packet.
                let fill = room - take
                if af == nil {
                    af = fill == 1 ? [] : [0x00] + [UInt8](repeating: 0xFF, count: fill - 2)
                } else {
                    af! += [UInt8](repeating: 0xFF, count: fill)
                }
            }
            out += [0x47, (first ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), (af == nil ? 0x10 : 0x30) | cc]
            if let af { out.append(UInt8(af.count)); out += af }
            out += pes[offset..<(offset + take)]
            cc = (cc + 1) & 0x0F
            offset += take
            first = false
        }
        return out
    }
}
