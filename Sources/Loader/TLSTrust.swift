import LoaderCore
import Crypto
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// How the Loader trusts origins (DECISIONS.md, the Loader's own HTTP client): system roots, a private CA or certificate, a public-key pin, or nothing (`--insecure`).
public struct TLSOptions: Sendable {
    /// PEM file whose certificates replace the system roots (`--cacert`).
    public var caFile: String?
    /// Base64 SHA-256 pins of the server's SubjectPublicKeyInfo (`--pin-sha256`); a match alone trusts a self-signed server.
    public var pins: [String] = []
    /// PKCS#12 client certificate for mutual TLS (`--client-cert`) and its password.
    public var clientCertificate: String?
    public var clientCertificatePassword: String?
    /// Skip every check (`--insecure`): flagged on screen and in every report.
    public var insecure = false

    public init() {}
}

/// Why a TLS connection was refused, in one line.
public struct TLSFailure: Error, Sendable, CustomStringConvertible {
    public enum Cause: String, Sendable {
        case expired, notYetValid = "not yet valid", wrongHost = "wrong host", untrusted, pinMismatch = "pin mismatch", other
    }
    public var cause: Cause
    public var detail: String
    public var description: String { "TLS \(cause.rawValue): \(detail)" }
}

/// Verifies server certificates with swift-certificates so every refusal names its cause.
final class TLSVerifier: Sendable {
    let options: TLSOptions
    /// `--cacert`'s certificates, read at start so a bad file fails at once; nil means the system's roots.
    let custom: CertificateStore?

    /// The system's roots, parsed once per process on first use (parsing the whole bundle costs ~100 ms in a debug build).
    static let system = CertificateStore(TLSVerifier.systemRoots())

    /// The roots a chain must lead to.
    var roots: CertificateStore { custom ?? TLSVerifier.system }

    init(options: TLSOptions) throws {
        self.options = options
        if let ca = options.caFile {
            let text = try String(contentsOfFile: ca, encoding: .utf8)
            let certs = try TLSVerifier.pemCertificates(text)
            guard !certs.isEmpty else { throw TLSFailure(cause: .other, detail: "\(ca) holds no PEM certificate") }
            custom = CertificateStore(certs)
        } else {
            custom = nil
        }
    }

    static func pemCertificates(_ text: String) throws -> [Certificate] {
        var out: [Certificate] = []
        var rest = Substring(text)
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        while let b = rest.range(of: begin), let e = rest.range(of: end, range: b.upperBound..<rest.endIndex) {
            out.append(try Certificate(pemEncoded: String(rest[b.lowerBound..<e.upperBound])))
            rest = rest[e.upperBound...]
        }
        return out
    }

    /// The Debian CA bundle (ca-certificates), read once.
    static func systemRoots() -> [Certificate] {
        for path in ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), let certs = try? pemCertificates(text) { return certs }
        }
        return []
    }

    /// Base64 SHA-256 of a certificate's SubjectPublicKeyInfo.
    static func spkiPin(_ cert: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try cert.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    /// Checks a presented chain (leaf first) for `host`; nil when trusted, else the reason.
    func verify(_ chain: [NIOSSLCertificate], host: String, now: Date = Date()) async -> TLSFailure? {
        guard let leafNIO = chain.first else { return TLSFailure(cause: .untrusted, detail: "the server presented no certificate") }
        let pinned: Bool
        if options.pins.isEmpty {
            pinned = false
        } else {
            guard let pin = try? TLSVerifier.spkiPin(leafNIO) else {
                return TLSFailure(cause: .other, detail: "cannot read the server's public key")
            }
            guard options.pins.contains(pin) else {
                return TLSFailure(cause: .pinMismatch, detail: "the server's key is sha256/\(pin), not a pinned one")
            }
            pinned = true
        }
        // A matching pin alone is enough unless a CA was given too (then both must hold).
        if pinned && options.caFile == nil { return nil }
        guard let certs = try? chain.map({ try Certificate(derEncoded: try $0.toDERBytes()) }), let leaf = certs.first else {
            return TLSFailure(cause: .other, detail: "cannot parse the server's certificate")
        }
        if leaf.notValidAfter < now {
            return TLSFailure(cause: .expired, detail: "the certificate for \(leaf.subject) expired on \(leaf.notValidAfter)")
        }
        if leaf.notValidBefore > now {
            return TLSFailure(cause: .notYetValid, detail: "the certificate for \(leaf.subject) is valid only from \(leaf.notValidBefore)")
        }
        let intermediates = CertificateStore(Array(certs.dropFirst()))
        var chainVerifier = Verifier(rootCertificates: roots) { RFC5280Policy(fixedExpiryValidationTime: now) }
        if case .couldNotValidate(let failures) = await chainVerifier.validate(leaf: leaf, intermediates: intermediates) {
            let selfSigned = leaf.issuer == leaf.subject
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no chain to a trusted root"
            return TLSFailure(
                cause: .untrusted,
                detail: selfSigned
                    ? "\(leaf.subject) is self-signed and not trusted; pass --cacert with its PEM or --pin-sha256 with its key pin"
                    : "no chain from \(leaf.subject) to a trusted root (\(reason))")
        }
        let isIP = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        // The chain is good (checked above), so a failure with the identity policy added is about the host.
        var hostVerifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: now)
            ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
        }
        if case .couldNotValidate = await hostVerifier.validate(leaf: leaf, intermediates: intermediates) {
            let names = (try? leaf.extensions.subjectAlternativeNames).flatMap { $0 }.map { "\($0)" } ?? "no subjectAltName"
            return TLSFailure(cause: .wrongHost, detail: "the certificate is for \(names), not \(host)")
        }
        return nil
    }

    /// The NIOSSL context for connecting with these options.
    func context() throws -> NIOSSLContext {
        var config = TLSConfiguration.makeClientConfiguration()
        // With --insecure nothing is checked; otherwise the custom callback (`verify`) replaces BoringSSL's checks.
        config.certificateVerification = options.insecure ? .none : .noHostnameVerification
        if let p12 = options.clientCertificate {
            let bundle: NIOSSLPKCS12Bundle
            do {
                bundle = try NIOSSLPKCS12Bundle(file: p12, passphrase: Array((options.clientCertificatePassword ?? "").utf8))
            } catch {
                throw TLSFailure(
                    cause: .other,
                    detail: "--client-cert \(p12) cannot be read (missing file, not PKCS#12, or a wrong --client-cert-password)")
            }
            config.certificateChain = bundle.certificateChain.map { .certificate($0) }
            config.privateKey = .privateKey(bundle.privateKey)
        }
        return try NIOSSLContext(configuration: config)
    }
}
