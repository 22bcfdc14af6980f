import Crypto
import _CryptoExtras
import MediaFormats

/// SAMPLE-AES for MPEG-TS (RFC 8216bis §5.3; Apple's "MPEG-2 Stream Encryption Format for HTTP Live Streaming"): H.264 slice NAL
/// units and ADTS AAC frames encrypted in place, CBC restarted with the key's IV for each, stream types 0xDB and 0xCF.
public enum SampleAES {
    /// The segment with its video and audio samples encrypted.
    public static func encrypt(segment: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
        let k = SymmetricKey(data: key)
        return TransportStream.rewritingPES(
            segment,
            streamType: { t in
                switch t {
                case 0x1B: return 0xDB
                case 0x0F: return 0xCF
                default: return t
                }
            },
            transform: { type, payload in
                switch type {
                case 0x1B: return encryptH264(payload, key: k, iv: iv)
                case 0x0F: return encryptADTS(payload, key: k, iv: iv)
                default: return nil
                }
            })
    }

    /// Annex B H.264: in each slice NAL unit (types 1 and 5) longer than 48 bytes, after 32 clear bytes, one 16-byte block in ten
    /// is encrypted (a partial last block stays clear); the result is escaped again, so a decryptor that removes emulation
    /// prevention bytes before decrypting gets the NAL unit back as it was, its own escaping included.
    static func encryptH264(_ es: [UInt8], key: SymmetricKey, iv: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(es.count + 64)
        for (startCode, nal) in nalUnits(es) {
            out += startCode
            guard let header = nal.first, [1, 5].contains(header & 0x1F), nal.count > 48 else { out += nal; continue }
            var raw = nal
            var o = 32
            var chain = iv
            while raw.count - o > 16 {
                let block = Array(raw[o..<(o + 16)])
                guard let enc = try? AES._CBC.encrypt(block, using: key, iv: AES._CBC.IV(ivBytes: chain), noPadding: true) else { break }
                raw.replaceSubrange(o..<(o + 16), with: enc)
                chain = Array(enc)
                o += 16 + 144
            }
            out += H264Escaping.escape(raw)
        }
        return out
    }

    /// ADTS: in each frame with more than 31 bytes after its header, the whole 16-byte blocks after 16 clear bytes are encrypted.
    static func encryptADTS(_ es: [UInt8], key: SymmetricKey, iv: [UInt8]) -> [UInt8] {
        var out = es
        var o = 0
        while o + 7 <= out.count, out[o] == 0xFF, out[o + 1] & 0xF0 == 0xF0 {
            let length = Int(out[o + 3] & 0x03) << 11 | Int(out[o + 4]) << 3 | Int(out[o + 5]) >> 5
            let header = out[o + 1] & 0x01 != 0 ? 7 : 9
            guard length > header, o + length <= out.count else { break }
            let blocks = (length - header - 16) / 16
            if length - header > 31, blocks > 0 {
                let from = o + header + 16
                let plain = Array(out[from..<(from + blocks * 16)])
                if let enc = try? AES._CBC.encrypt(plain, using: key, iv: AES._CBC.IV(ivBytes: iv), noPadding: true) {
                    out.replaceSubrange(from..<(from + blocks * 16), with: enc)
                }
            }
            o += length
        }
        return out
    }

    /// The NAL units of an Annex B stream with the start code before each.
    static func nalUnits(_ es: [UInt8]) -> [(startCode: [UInt8], nal: [UInt8])] {
        var starts: [(at: Int, length: Int)] = []
        var i = 0
        while i + 3 <= es.count {
            if es[i] == 0, es[i + 1] == 0, es[i + 2] == 1 {
                let four = i > 0 && es[i - 1] == 0 && (starts.last.map { $0.at + $0.length < i } ?? true)
                starts.append(four ? (i - 1, 4) : (i, 3))
                i += 3
            } else {
                i += 1
            }
        }
        return starts.enumerated().map { n, s in
            let end = n + 1 < starts.count ? starts[n + 1].at : es.count
            return (Array(es[s.at..<(s.at + s.length)]), Array(es[(s.at + s.length)..<end]))
        }
    }
}

/// H.264 emulation prevention (ITU-T H.264 §7.4.1): 0x03 after two zero bytes when the next byte is 0–3.
enum H264Escaping {
    /// Adds emulation prevention bytes.
    static func escape(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 8)
        var zeros = 0
        for x in b {
            if zeros >= 2, x <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(x)
            zeros = x == 0 ? zeros + 1 : 0
        }
        return out
    }
}
