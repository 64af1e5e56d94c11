import ArgumentParser
import Logging
import MockBackend
import MockBackendHTTP
import MockBackendTLS

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MockBackendCommand {
    /// The TLS options fit together, and a given certificate and key load and match, so a
    /// bad file stops the start with a usage error (exit 64) before anything listens.
    func validateTLS() throws {
        let usesTLSOptions = tlsCert != nil || tlsKey != nil || tlsSelfSigned || tlsCertOut != nil
        guard let tlsPort else {
            if usesTLSOptions {
                throw ValidationError("--tls-cert, --tls-key, --tls-self-signed and --tls-cert-out need --tls-port.")
            }
            return
        }
        guard (0...65535).contains(tlsPort) else {
            throw ValidationError("--tls-port must be between 0 and 65535, not \(tlsPort).")
        }
        if tlsPort != 0, tlsPort == port {
            throw ValidationError("--tls-port must differ from --port (\(port)).")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together.")
        }
        if let tlsCert, let tlsKey {
            if tlsSelfSigned {
                throw ValidationError("Give either --tls-cert and --tls-key, or --tls-self-signed.")
            }
            do {
                _ = try TLSIdentity.load(certificateFile: tlsCert, keyFile: tlsKey)
            } catch {
                throw ValidationError("--tls-cert/--tls-key: \(error.message)")
            }
        }
    }

    /// The HTTPS listener the options ask for, with its certificate written to
    /// `--tls-cert-out`; nil without `--tls-port`.
    func tlsListener(logger: Logger) throws -> TLSListenerSettings? {
        guard let tlsPort else { return nil }
        let identity: TLSIdentity
        if let tlsCert, let tlsKey {
            identity = try TLSIdentity.load(certificateFile: tlsCert, keyFile: tlsKey)
        } else {
            identity = try TLSIdentity.selfSigned(extraNames: Self.certificateNames(forHost: host))
        }
        let context = try TLSContext(
            identity: identity, logger: logger, offersHTTP2: http2 == .on && HTTP2Support.isAvailable)
        if let tlsCertOut {
            guard FileManager.default.createFile(atPath: tlsCertOut, contents: Data(identity.certificatePEM.utf8))
            else {
                throw ValidationError("--tls-cert-out \(tlsCertOut): the file cannot be written")
            }
        }
        return TLSListenerSettings(
            port: tlsPort, transport: context, certificatePEM: identity.certificatePEM,
            sha256Fingerprint: identity.sha256Fingerprint)
    }

    /// A `--host` that names one machine goes into a generated certificate too, so a
    /// phone that reaches the server by that name or address can verify it.
    static func certificateNames(forHost host: String) -> [String] {
        ["0.0.0.0", "::", "127.0.0.1", "localhost", "::1"].contains(host) ? [] : [host]
    }
}
