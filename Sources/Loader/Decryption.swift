import Crypto
import _CryptoExtras
import MediaFormats

/// Why a segment did not decrypt to media, in words a person can act on.
public struct DecryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Cause: String, Sendable {
        case notBlockAligned = "its length is not a multiple of 16 bytes"
        case badPadding = "the PKCS#7 padding is wrong"
        case notMedia = "the result is neither MPEG-TS nor MP4"
    }

    public var msn: Int
    public var fingerprint: String
    public var cause: Cause

    public var description: String { "segment \(msn): key \(fingerprint)… does not decrypt it (\(cause.rawValue)); wrong key or IV?" }
}

/// AES-128-CBC segment decryption (RFC 8216bis §5.2) with checks that turn a wrong key or IV into a diagnosis.
public enum SegmentDecryption {
    /// The clear segment, or why the key and IV do not open it.
    public static func decrypt(_ bytes: [UInt8], key: [UInt8], iv: [UInt8], msn: Int) throws(DecryptionError) -> [UInt8] {
        let fp = KeyMaterial.fingerprint(key)
        guard !bytes.isEmpty, bytes.count % 16 == 0 else { throw DecryptionError(msn: msn, fingerprint: fp, cause: .notBlockAligned) }
        let raw: [UInt8]
        do {
            raw = Array(try AES._CBC.decrypt(bytes, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
        } catch {
            throw DecryptionError(msn: msn, fingerprint: fp, cause: .notBlockAligned)
        }
        // PKCS#7: the last byte n (1…16) repeated n times.
        guard let n = raw.last, n >= 1, n <= 16, raw.suffix(Int(n)).allSatisfy({ $0 == n }) else {
            throw DecryptionError(msn: msn, fingerprint: fp, cause: .badPadding)
        }
        let clear = Array(raw.dropLast(Int(n)))
        // A wrong IV only garbles the first block: in TS that is a PSI section (SDT or PAT), whose CRC catches it.
        let ts = TransportStream.looksValid(clear) && TransportStream.firstSectionIsIntact(clear) != false
        guard ts || FragmentedMP4.looksValid(clear) || looksLikePackedAudio(clear) else {
            throw DecryptionError(msn: msn, fingerprint: fp, cause: .notMedia)
        }
        return clear
    }

    /// Packed audio (ADTS AAC, MP3, AC-3) usually starts with an ID3 tag or a sync word.
    static func looksLikePackedAudio(_ b: [UInt8]) -> Bool {
        guard b.count > 4 else { return false }
        if b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 { return true }   // "ID3"
        if b[0] == 0xFF, b[1] & 0xF0 == 0xF0 { return true }            // ADTS
        if b[0] == 0x0B, b[1] == 0x77 { return true }                   // AC-3
        return false
    }
}
