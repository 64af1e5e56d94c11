import Logging
import MockBackend
import MockBackendTLS

extension TLSListenerSettings {
    /// A TLS listener for a test: on a port the kernel picks, serving `identity` (h2 offered
    /// by ALPN where the build has HTTP/2); what the TLS layer logs goes to `logger`
    /// (nowhere by default).
    public static func forTesting(
        _ identity: TLSIdentity,
        logger: Logger = Logger(label: "mockbackend.test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> TLSListenerSettings {
        TLSListenerSettings(
            port: 0, transport: try TLSContext(identity: identity, logger: logger),
            certificatePEM: identity.certificatePEM, sha256Fingerprint: identity.sha256Fingerprint)
    }
}
