/// CEA-608 closed captions as H.264 carries them (ATSC A/53 Part 4 `cc_data` in a registered user data SEI, ITU-T H.264
/// §D.1.6; CEA-708 packets ride in the same `cc_data`), written into an Annex B stream: what the origin puts in its video so captions in the video can be played
/// (docs/SUBTITLES.md, "Closed captions").
public enum CEA608 {
    /// One `cc_data` byte pair of field 1 (CC1/CC2), each byte with its odd-parity bit set (CEA-608 §4.1).
    public struct Pair: Sendable, Equatable {
        public var first: UInt8
        public var second: UInt8
        public init(_ first: UInt8, _ second: UInt8) {
            self.first = CEA608.parity(first)
            self.second = CEA608.parity(second)
        }
        /// Two bytes of null padding (sent in a frame with nothing to say).
        public static let padding = Pair(0x00, 0x00)
        /// The pair as a `cc_data` triplet of field 1.
        public var triplet: CCTriplet { CCTriplet(type: 0, first, second) }
    }

    /// The byte with bit 7 set or cleared so that it has an odd number of set bits.
    public static func parity(_ b: UInt8) -> UInt8 {
        let low = b & 0x7F
        return low.nonzeroBitCount % 2 == 0 ? low | 0x80 : low
    }

    /// Channel 1's control codes (CEA-608 Table 51 / 52): resume caption loading (pop-on), end of caption (show what was
    /// loaded), erase displayed memory, and the preamble that starts row 15 at column 0.
    public static let resumeCaptionLoading = Pair(0x14, 0x20)
    public static let endOfCaption = Pair(0x14, 0x2F)
    public static let eraseDisplayedMemory = Pair(0x14, 0x2C)
    public static let row15 = Pair(0x14, 0x70)

    /// A pop-on caption on row 15: loaded off screen, shown at the `endOfCaption` (the last pair). Control codes are sent
    /// twice, as caption encoders do (a decoder acts on the first and drops the repeat). Characters CEA-608 has not become
    /// spaces. Unlike `triplets(popOn:channel:)`, the memory it loads into is not erased first: what the origin's video has
    /// always carried (each caption follows a `clear`).
    public static func popOn(_ text: String) -> [Pair] {
        loading(text, channel: 1, erasing: false).map { Pair($0.first, $0.second) }
    }

    /// Clears the caption shown.
    public static let clear = triplets(clear: 1).map { Pair($0.first, $0.second) }

    /// A pop-on caption for `channel` (1–4; CC3/CC4 in field 2), shown at its last triplet (CEA-608-E §8.4): resume caption
    /// loading, erase non-displayed memory, each line of `text` on its own row ending at row 15 (at most 15 lines of 32
    /// columns), end of caption. Control codes, special and extended characters are sent twice (§8.7); channel 2's codes
    /// have first bytes 0x18–0x1F. Characters CEA-608 has not become spaces.
    public static func triplets(popOn text: String, channel: Int) -> [CCTriplet] {
        loading(text, channel: channel, erasing: true)
    }

    /// Erase displayed memory (sent twice) for `channel` (1–4): clears the caption shown.
    public static func triplets(clear channel: Int) -> [CCTriplet] {
        control(0x14, 0x2C, channel: channel)
    }

    /// A control code pair for `channel`, with channel 1's first byte, sent twice (CEA-608-E §8.7).
    static func control(_ a: UInt8, _ b: UInt8, channel: Int) -> [CCTriplet] {
        let t = CCTriplet(type: channel <= 2 ? 0 : 1, parity(channel % 2 == 0 ? a | 0x08 : a), parity(b))
        return [t, t]
    }

    static func loading(_ text: String, channel: Int, erasing: Bool) -> [CCTriplet] {
        let field: UInt8 = channel <= 2 ? 0 : 1
        var out = control(0x14, 0x20, channel: channel)
        if erasing { out += control(0x14, 0x2E, channel: channel) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(15)
        for (i, line) in lines.enumerated() {
            let pac = CEA608Table.pac(row: 16 - lines.count + i)
            out += control(pac.0, pac.1, channel: channel)
            var pending: UInt8?
            func character(_ b: UInt8) {
                if let p = pending {
                    out.append(CCTriplet(type: field, parity(p), parity(b)))
                    pending = nil
                } else {
                    pending = b
                }
            }
            func flush() {
                if pending != nil { character(0) }
            }
            for c in line.prefix(32) {
                switch CEA608Table.code(for: c) ?? .basic(0x20) {
                case .basic(let b): character(b)
                case .special(let b):
                    flush()
                    out += control(0x11, b, channel: channel)
                case .extended(let a, let b, let fallback):
                    character(fallback)
                    flush()
                    out += control(a, b, channel: channel)
                }
            }
            flush()
        }
        return out + control(0x14, 0x2F, channel: channel)
    }

    /// A registered user data SEI NAL unit (payload type 4) holding `pairs` as A/53 `cc_data` (country code 0xB5, provider
    /// 0x0031, "GA94", user data type 3), with emulation prevention bytes (H.264 §7.4.1).
    public static func sei(_ pairs: [Pair]) -> [UInt8] { sei(triplets: pairs.map(\.triplet)) }

    /// A registered user data SEI NAL unit holding `triplets` (fewer than 32) as A/53 `cc_data`: CEA-608 pairs of either
    /// field and DTVCC packet data alike.
    public static func sei(triplets: [CCTriplet]) -> [UInt8] {
        precondition(triplets.count < 32, "cc_count is five bits")
        var ccData: [UInt8] = [0x40 | UInt8(triplets.count), 0xFF]
        for t in triplets { ccData += t.bytes }
        ccData.append(0xFF)
        let payload = header + ccData
        var rbsp: [UInt8] = [0x04]
        var size = payload.count
        while size >= 255 {
            rbsp.append(0xFF)
            size -= 255
        }
        rbsp += [UInt8(size)] + payload + [0x80]
        return [0x06] + H264.escaped(rbsp)
    }

    /// `stream` (Annex B, no B-frames: decode order is display order) with a caption SEI before the first slice of every
    /// frame: frame `n` carries `schedule[n]`, or padding. Frames are counted by slices with `first_mb_in_slice` 0.
    public static func inserting(_ schedule: [Int: [Pair]], into stream: [UInt8]) -> [UInt8] {
        inserting(triplets: schedule.mapValues { $0.map(\.triplet) }, into: stream)
    }

    /// `stream` with a caption SEI before the first slice of every frame: frame `n` carries `schedule[n]` (fewer than 32
    /// triplets), or one field-1 padding triplet.
    public static func inserting(triplets schedule: [Int: [CCTriplet]], into stream: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(stream.count + stream.count / 20)
        var frame = 0
        for nal in nalUnits(stream) {
            let type = nal.first.map { $0 & 0x1F } ?? 0
            if type == 1 || type == 5, nal.count > 1, nal[nal.startIndex + 1] & 0x80 != 0 {
                out += [0, 0, 0, 1] + sei(triplets: schedule[frame] ?? [Pair.padding.triplet])
                frame += 1
            }
            out += [0, 0, 0, 1] + nal
        }
        return out
    }

    /// The A/53 caption header a registered user data SEI starts its payload with (ITU-T T.35 country 0xB5, provider 0x0031,
    /// "GA94", user data type 3: `cc_data`). It holds no two zero bytes, so emulation prevention never splits it.
    static let header: [UInt8] = [0xB5, 0x00, 0x31] + Array("GA94".utf8) + [0x03]

    /// Whether a segment's bytes (MPEG-TS or fragmented MP4, H.264 or HEVC) carry closed captions: an A/53 `cc_data` with at
    /// least one valid pair that says something — CEA-608 bytes other than null padding, or CEA-708 (DTVCC) packet data.
    /// Read from the bytes as they lie: a header cut by a TS packet boundary is missed, which one segment's many frames
    /// make up for.
    public static func present(in bytes: [UInt8]) -> Bool {
        let h = header
        guard bytes.count > h.count + 2 else { return false }
        var i = 0
        let last = bytes.count - h.count - 2
        while i <= last {
            guard bytes[i] == h[0], bytes[i + 1] == h[1], bytes[i + 2] == h[2], Array(bytes[(i + 3)..<(i + h.count)]) == Array(h[3...])
            else {
                i += 1
                continue
            }
            let flags = bytes[i + h.count]
            var k = i + h.count + 2 // past the flags and em_data
            if flags & 0x40 != 0 {
                for _ in 0..<Int(flags & 0x1F) where k + 2 < bytes.count {
                    let (marker, a, b) = (bytes[k], bytes[k + 1], bytes[k + 2])
                    let valid = marker & 0x04 != 0
                    let type = marker & 0x03
                    if valid && (type >= 2 || a & 0x7F != 0 || b & 0x7F != 0) { return true }
                    k += 3
                }
            }
            i += h.count
        }
        return false
    }

    /// The NAL units of an Annex B stream, without their start codes (trailing zero bytes belong to the next start code).
    static func nalUnits(_ s: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(code: Int, body: Int)] = []
        var i = 0
        while i + 2 < s.count {
            if s[i] == 0, s[i + 1] == 0, s[i + 2] == 1 {
                starts.append((i > 0 && s[i - 1] == 0 ? i - 1 : i, i + 3))
                i += 3
            } else {
                i += 1
            }
        }
        return starts.indices.map { k in s[starts[k].body..<(k + 1 < starts.count ? starts[k + 1].code : s.count)] }
    }
}
