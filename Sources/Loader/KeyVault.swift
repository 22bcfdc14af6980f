import Crypto
import Foundation
import LoaderCore

/// The user's vault key (32 random bytes) in a file only its owner can read, outside any cache, download or recording.
public enum KeyVault {
    /// Sealing and opening with the vault key at `path` (created on first use): for recordings made with `--record-keys`.
    public static func sealing(at path: String = CacheOptions.defaultVault) throws -> (
        seal: @Sendable ([UInt8]) -> [UInt8]?, open: @Sendable ([UInt8]) -> [UInt8]?
    ) {
        let bytes = try load(path).withUnsafeBytes { Array($0) }
        return (
            { try? KeySeal.seal($0, with: SymmetricKey(data: bytes)) },
            { try? KeySeal.open($0, with: SymmetricKey(data: bytes)) }
        )
    }

    static func load(_ path: String) throws -> SymmetricKey {
        let fm = FileManager.default
        if let data = fm.contents(atPath: path) {
            guard data.count == 32 else { throw CacheError("the vault key \(path) is not 32 bytes") }
            return SymmetricKey(data: data)
        }
        let dir = (path as NSString).deletingLastPathComponent
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = SymmetricKey(size: .bits256)
        let bytes = key.withUnsafeBytes { Data($0) }
        guard fm.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw CacheError("the vault key \(path) cannot be written")
        }
        return key
    }
}
