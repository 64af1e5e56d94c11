import COpenSSL
import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client side of TLS, for the proxy's upstream connections: TLS 1.2 at least, SNI,
/// ALPN `http/1.1`, and the peer's certificate verified against the system's trust store
/// (plus `extraCA`, a PEM file), its name or address checked against the host asked for
/// (RFC 6125). `insecure` skips the verification.
///
/// OpenSSL contexts are safe to share once configured, and this one is never changed after
/// `init`.
public final class TLSClientContext: UpstreamTransport, @unchecked Sendable {
    /// `SSL_CTX*`.
    let context: OpaquePointer
    public let verifiesPeer: Bool

    /// - Parameters:
    ///   - extraCA: a PEM file of certificates to trust besides the system's (`--proxy-ca`).
    ///   - insecure: no verification at all (`--proxy-insecure`).
    public init(extraCA: String? = nil, insecure: Bool = false) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.openSSL("cannot create a TLS client context")
        }
        self.context = context
        verifiesPeer = !insecure
        signal(SIGPIPE, SIG_IGN)
        mockbackend_SSL_CTX_set_client_modes(context)
        guard mockbackend_SSL_CTX_require_tls12(context) == 1 else { throw TLSError.openSSL("cannot require TLS 1.2") }
        // Length-prefixed protocol names (RFC 7301 §3.1).
        let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        if insecure {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            _ = SSL_CTX_set_default_verify_paths(context)
            if let extraCA {
                guard SSL_CTX_load_verify_locations(context, extraCA, nil) == 1 else {
                    throw TLSError.openSSL("--proxy-ca \(extraCA) is not a readable PEM file of certificates")
                }
            }
        }
        OpenSSLErrorQueue.clear()
    }

    deinit {
        SSL_CTX_free(context)
    }

    public var scheme: String { "https" }

    public func makeClientStream(fileDescriptor: Int32, serverName: String) -> any ByteStream {
        TLSClientStream(fileDescriptor: fileDescriptor, context: self, serverName: serverName)
    }
}
