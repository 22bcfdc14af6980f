import Crypto
import Foundation
import HLS

/// A fix applied to key bytes the server sent in a shape AES-128 cannot use as is (a key saved in text mode, or written as hex digits; docs/PLATFORM.md).
public enum KeyRepair: String, Sendable, Equatable {
    /// 16 key bytes followed by a newline or spaces (a text-mode write of a binary key).
    case trailingWhitespace = "trailing whitespace removed"
    /// The key written as 32 hexadecimal characters instead of 16 bytes.
    case hexText = "hex text decoded"
}

/// Why key bytes cannot be an AES-128 key, in one line.
public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Reading AES-128 keys as servers really send them (RFC 8216bis §5.2: 16 octets).
public enum KeyMaterial {
    /// The 16 key bytes in `bytes`, and the repair that was needed, if any.
    public static func decode(_ bytes: [UInt8]) throws(KeyError) -> (key: [UInt8], repair: KeyRepair?) {
        if bytes.count == 16 { return (bytes, nil) }
        if bytes.count > 16, bytes[16...].allSatisfy({ $0 == 0x0A || $0 == 0x0D || $0 == 0x20 || $0 == 0x09 }) {
            // A binary key with trailing white space; but a hex text key also starts with 16 printable bytes, so check that first.
            if let hex = hexKey(bytes) { return (hex, .hexText) }
            return (Array(bytes[0..<16]), .trailingWhitespace)
        }
        if let hex = hexKey(bytes) { return (hex, .hexText) }
        throw KeyError(description: "the key is \(bytes.count) bytes; AES-128 needs 16 (or 32 hex characters)")
    }

    /// 16 bytes from 32 hex characters (optionally `0x`-prefixed, surrounded by white space).
    static func hexKey(_ bytes: [UInt8]) -> [UInt8]? {
        var s = bytes[...]
        while let f = s.first, f == 0x20 || f == 0x0A || f == 0x0D || f == 0x09 { s = s.dropFirst() }
        while let l = s.last, l == 0x20 || l == 0x0A || l == 0x0D || l == 0x09 { s = s.dropLast() }
        if s.count == 34, s.first == 0x30, s.dropFirst().first == 0x78 || s.dropFirst().first == 0x58 { s = s.dropFirst(2) }
        guard s.count == 32 else { return nil }
        var out: [UInt8] = []
        var it = s.makeIterator()
        while let h = it.next(), let l = it.next() {
            guard let a = hexNibble(h), let b = hexNibble(l) else { return nil }
            out.append(a << 4 | b)
        }
        return out
    }

    static func hexNibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x37
        case 0x61...0x66: return c - 0x57
        default: return nil
        }
    }

    /// A short public name for a key: the first 8 hex digits of its SHA-256, never the key itself.
    public static func fingerprint(_ key: [UInt8]) -> String {
        SHA256.hash(data: key).prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    /// The key the Loader decrypts with among `keys` (METHOD=AES-128, identity KEYFORMAT), its URI resolved against the playlist's
    /// `base`, and the IV for the segment `mediaSequence` (RFC 8216bis §4.4.4.4, §5.2); nil when none applies.
    public static func aes128(in keys: [Key], base: String, mediaSequence: Int) -> (key: Key, iv: [UInt8]?)? {
        guard var key = keys.first(where: { $0.method == .aes128 && $0.system == .identity }), let uri = key.uri else { return nil }
        key.uri = VirtualPlaylists.resolve(uri, against: base)
        return (key, iv(attribute: key.iv, mediaSequence: mediaSequence))
    }

    /// The IV of a segment: the EXT-X-KEY IV attribute, else its media sequence number as a 128-bit big-endian integer (RFC 8216bis §5.2).
    public static func iv(attribute: String?, mediaSequence: Int) -> [UInt8]? {
        if let attribute {
            let hex = Array(attribute.utf8.dropFirst(2))
            guard attribute.hasPrefix("0x") || attribute.hasPrefix("0X"), !hex.isEmpty, hex.count <= 32 else { return nil }
            // Shorter values are the low digits of the 128-bit number.
            let digits = [UInt8](repeating: 0x30, count: 32 - hex.count) + hex
            var out: [UInt8] = []
            for i in stride(from: 0, to: 32, by: 2) {
                guard let a = hexNibble(digits[i]), let b = hexNibble(digits[i + 1]) else { return nil }
                out.append(a << 4 | b)
            }
            return out
        }
        var out = [UInt8](repeating: 0, count: 16)
        var v = UInt64(bitPattern: Int64(mediaSequence))
        for i in (8..<16).reversed() { out[i] = UInt8(v & 0xFF); v >>= 8 }
        return out
    }
}
