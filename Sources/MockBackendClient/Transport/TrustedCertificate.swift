import Foundation

/// One certificate a client trusts for a server: the mock's own self-signed certificate
/// (written by `--tls-cert-out`, served at `GET /__admin/tls/cert.pem`), or a pinned one.
///
/// On Apple systems `challengeHandler` answers the server-trust challenge of a URL
/// session: the server's chain must lead to this certificate and name the host, and
/// nothing else is trusted. FoundationNetworking on Linux does not ask a session about
/// server trust (libcurl checks against the system's store), so there only the DER and
/// PEM handling is available.
public struct TrustedCertificate: Sendable, Equatable {
    /// The certificate in DER.
    public let der: Data

    public init(der: Data) {
        self.der = der
    }

    /// The first `CERTIFICATE` block of a PEM text (RFC 7468 §2); any later ones (the rest
    /// of a chain) are ignored.
    public init(pem: String) throws {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN CERTIFICATE-----"),
            let end = lines[begin...].firstIndex(of: "-----END CERTIFICATE-----"),
            let der = Data(base64Encoded: lines[(begin + 1)..<end].joined()), !der.isEmpty
        else { throw TrustedCertificateError.noCertificate }
        self.der = der
    }
}

/// Why a `TrustedCertificate` could not be read.
public enum TrustedCertificateError: Error, Sendable, Equatable {
    /// The text holds no well-formed `CERTIFICATE` block.
    case noCertificate
}
