import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A self-signed certificate for 127.0.0.1 and localhost, made at start-up, with the fingerprints users pin.
public struct SelfSignedIdentity: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String
    /// SHA-256 of the certificate's DER, as colon-separated hex (what browsers show).
    public let fingerprint: String
    /// Base64 SHA-256 of the SubjectPublicKeyInfo, the form `--pin-sha256` takes.
    public let spkiPin: String
    let der: [UInt8]

    /// Makes a fresh P-256 key and a certificate (CA:true, so it can be trusted as its own anchor), by default for a year and for 127.0.0.1 and localhost.
    public static func make(
        now: Date = Date(), validFrom: TimeInterval = -3600, validFor: TimeInterval = 365 * 86400,
        dnsNames: [String] = ["localhost"], ipv4: [[UInt8]] = [[127, 0, 0, 1]]
    ) throws -> SelfSignedIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("hlstui origin")
            OrganizationName("hlstui")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(dnsNames.map { .dnsName($0) } + ipv4.map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) })
        }
        let cert = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(validFrom), notValidAfter: now.addingTimeInterval(validFrom + validFor),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: .init(key))
        var ser = DER.Serializer()
        try ser.serialize(cert)
        let der = ser.serializedBytes
        let fp = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        let pin = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
        return SelfSignedIdentity(
            certificatePEM: try cert.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation,
            fingerprint: fp, spkiPin: pin, der: der)
    }

    /// A TLS server context serving this identity.
    /// The server's TLS context; with `clientCAs`, clients must present a certificate those sign (mutual TLS).
    func serverContext(clientCAs: [String]? = nil) throws -> NIOSSLContext {
        var config = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: der, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)))
        if let cas = clientCAs {
            config.certificateVerification = .noHostnameVerification
            config.trustRoots = .certificates(try cas.map { try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem) })
        }
        return try NIOSSLContext(configuration: config)
    }
}
