import Crypto
import _CryptoExtras
import Foundation

/// The keys of the AES scenarios, derived so tests can compute them too.
public enum OriginKeys {
    /// 16 key bytes for key `id` of `scenario`.
    public static func key(scenario: String, id: Int) -> [UInt8] {
        Array(SHA256.hash(data: Data("hlstui demo key:\(scenario):\(id)".utf8)).prefix(16))
    }

    /// The 16 IV bytes for key `id` (its number, big-endian).
    public static func iv(_ id: Int) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: 16)
        var v = UInt64(id)
        for i in (8..<16).reversed() { b[i] = UInt8(v & 0xFF); v >>= 8 }
        return b
    }

    /// AES-128-CBC with PKCS#7 padding, as RFC 8216bis §5.2 specifies for METHOD=AES-128.
    public static func encrypt(_ plain: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        Array(try AES._CBC.encrypt(plain, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv)))
    }
}

extension OriginRouter {
    func key(_ scenario: String, _ file: String, _ req: OriginRequest, now: Double) -> OriginResponse {
        guard Scenario.named(scenario) != nil, file.hasPrefix("k"), file.hasSuffix(".key"), let id = Int(file.dropFirst().dropLast(4))
        else {
            return .text(404, "no such key")
        }
        let key = OriginKeys.key(scenario: scenario, id: id)
        let body: [UInt8]
        switch req.query["format"] ?? state.keyFormat {
        case "newline": body = key + [0x0A]
        case "hex": body = Array((key.map { String(format: "%02x", $0) }.joined() + "\n").utf8)
        default: body = key
        }
        var r = OriginResponse(status: 200, contentType: "application/octet-stream", body: body, kind: "key")
        r.delayMs = Int(req.query["latency"] ?? "") ?? state.keyLatencyMs
        r.scenario = scenario
        return applyFault(r, req, now: now)
    }
}
