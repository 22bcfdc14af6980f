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

    public var description: String {
        "\(msn >= 0 ? "segment \(msn)" : "the init section"): key \(fingerprint)… does not decrypt it (\(cause.rawValue)); wrong key or IV?"
    }
}

/// AES-128-CBC segment decryption (RFC 8216bis §5.2) with checks that turn a wrong key or IV into a diagnosis.
public enum SegmentDecryption {
    /// The clear segment, or why the key and IV do not open it.
    public static func decrypt(_ bytes: [UInt8], key: [UInt8], iv: [UInt8], msn: Int) throws(DecryptionError) -> [UInt8] {
        var d = StreamingDecryption(key: key, iv: iv, msn: msn)
        return try d.feed(bytes) + d.finish()
    }

    /// Whether the first clear bytes are media: TS packets whose first PSI section is intact (a wrong IV garbles only
    /// the first block, which holds it), MP4 boxes, or packed audio.
    static func startsLikeMedia(_ prefix: [UInt8]) -> Bool {
        if prefix.first == 0x47, prefix.count >= TransportStream.packetSize {
            let packets = Array(prefix.prefix(min(prefix.count / TransportStream.packetSize, 5) * TransportStream.packetSize))
            return TransportStream.looksValid(packets) && TransportStream.firstSectionIsIntact(packets) != false
        }
        return FragmentedMP4.startsLikeMP4(prefix) || looksLikePackedAudio(prefix)
    }

    /// Packed audio (ADTS AAC, MP3, AC-3) usually starts with an ID3 tag or a sync word.
    static func looksLikePackedAudio(_ b: [UInt8]) -> Bool {
        guard b.count > 4 else { return false }
        if b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 { return true } // "ID3"
        if b[0] == 0xFF, b[1] & 0xF0 == 0xF0 { return true } // ADTS
        if b[0] == 0x0B, b[1] == 0x77 { return true } // AC-3
        return false
    }
}

/// AES-128-CBC decryption of a segment as its bytes arrive: clear bytes go out once the start is checked; the last block
/// is held back until the end, where the PKCS#7 padding is checked and removed (RFC 8216bis §5.2).
public struct StreamingDecryption {
    /// Clear bytes checked before anything is released.
    static let checkBytes = 1_024

    let key: SymmetricKey
    let msn: Int
    let fingerprint: String
    /// The previous ciphertext block: the IV of the next.
    var chain: [UInt8]
    /// Ciphertext short of a whole block.
    var carry: [UInt8] = []
    /// Clear bytes not yet released.
    var held: [UInt8] = []
    var checked = false

    public init(key: [UInt8], iv: [UInt8], msn: Int) {
        self.key = SymmetricKey(data: key)
        self.chain = iv
        self.msn = msn
        self.fingerprint = KeyMaterial.fingerprint(key)
    }

    func failure(_ cause: DecryptionError.Cause) -> DecryptionError { DecryptionError(msn: msn, fingerprint: fingerprint, cause: cause) }

    /// Takes the next ciphertext bytes; returns the clear bytes that may go out now.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(DecryptionError) -> [UInt8] {
        carry += bytes
        let whole = carry.count / 16 * 16
        guard whole > 0 else { return [] }
        let blocks = Array(carry[..<whole])
        carry.removeFirst(whole)
        do {
            held += try AES._CBC.decrypt(blocks, using: key, iv: AES._CBC.IV(ivBytes: chain), noPadding: true)
        } catch {
            throw failure(.notBlockAligned)
        }
        chain = Array(blocks.suffix(16))
        guard try check(final: false) else { return [] }
        let out = Array(held.dropLast(16))
        held.removeFirst(out.count)
        return out
    }

    /// Ends the segment: the clear bytes still held, without the padding.
    public mutating func finish() throws(DecryptionError) -> [UInt8] {
        guard carry.isEmpty, !held.isEmpty else { throw failure(.notBlockAligned) }
        // PKCS#7: the last byte n (1…16) repeated n times.
        guard let n = held.last, n >= 1, n <= 16, held.suffix(Int(n)).allSatisfy({ $0 == n }) else { throw failure(.badPadding) }
        held.removeLast(Int(n))
        _ = try check(final: true)
        defer { held = [] }
        return held
    }

    /// Checks the start once enough is clear; whether bytes may be released.
    mutating func check(final: Bool) throws(DecryptionError) -> Bool {
        if checked { return true }
        guard final || held.count >= Self.checkBytes + 16 else { return false }
        guard SegmentDecryption.startsLikeMedia(Array(held.prefix(Self.checkBytes))) else { throw failure(.notMedia) }
        checked = true
        return true
    }
}
