import COpenSSL
import Logging
import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server side of TLS: one OpenSSL context with the identity, TLS 1.2 at least, `h2`
/// and `http/1.1` by ALPN (`http/1.1` only without HTTP/2). Hand it to `HTTPServer` as its
/// transport.
///
/// OpenSSL contexts are safe to share once configured, and this one is never changed
/// after `init`.
public final class TLSContext: StreamTransport, @unchecked Sendable {
    /// `SSL_CTX*`.
    let context: OpaquePointer
    let logger: Logger
    public let identity: TLSIdentity

    /// Configures a server context. Also ignores SIGPIPE for the whole process: OpenSSL
    /// writes to the socket with plain `write()`, which cannot be told `MSG_NOSIGNAL`, and
    /// a client that goes away mid-write must not kill the server.
    public init(identity: TLSIdentity, logger: Logger, offersHTTP2: Bool = HTTP2Support.isAvailable) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.openSSL("cannot create a TLS context")
        }
        self.context = context
        self.identity = identity
        self.logger = logger
        signal(SIGPIPE, SIG_IGN)
        _ = mockbackend_SSL_CTX_set_server_modes(context)
        mockbackend_SSL_CTX_set_server_options(context)
        mockbackend_SSL_CTX_enable_read_ahead(context)
        mockbackend_SSL_CTX_disable_session_cache(context)
        guard mockbackend_SSL_CTX_require_tls12(context) == 1 else {
            throw TLSError.openSSL("cannot require TLS 1.2")
        }
        guard SSL_CTX_use_certificate(context, identity.certificates[0]) == 1 else {
            throw TLSError.openSSL("the certificate is not usable")
        }
        for intermediate in identity.certificates.dropFirst()
        where mockbackend_SSL_CTX_add1_chain_cert(context, intermediate) != 1 {
            throw TLSError.openSSL("an intermediate certificate is not usable")
        }
        guard SSL_CTX_use_PrivateKey(context, identity.privateKey) == 1, SSL_CTX_check_private_key(context) == 1
        else { throw TLSError.openSSL("the private key does not fit the certificate") }
        SSL_CTX_set_alpn_select_cb(context, offersHTTP2 ? Self.selectH2 : Self.selectHTTP11, nil)
    }

    deinit {
        SSL_CTX_free(context)
    }

    public var scheme: String { "https" }

    public func makeStream(fileDescriptor: Int32) -> any ByteStream {
        TLSByteStream(fileDescriptor: fileDescriptor, context: self)
    }

    private typealias ALPNSelector =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
            UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
        ) -> Int32

    /// ALPN (RFC 7301) with HTTP/1.1 only. A client that does not offer it gets no ALPN
    /// answer and goes on with HTTP/1.1 anyway.
    private static let selectHTTP11: ALPNSelector = { _, selected, selectedLength, offered, offeredLength, _ in
        TLSContext.select(["http/1.1"], selected, selectedLength, offered, offeredLength)
    }

    /// ALPN with HTTP/2 first (RFC 9113 §3.2), then HTTP/1.1: a client that offers `h2`
    /// speaks it.
    private static let selectH2: ALPNSelector = { _, selected, selectedLength, offered, offeredLength, _ in
        TLSContext.select(["h2", "http/1.1"], selected, selectedLength, offered, offeredLength)
    }

    /// The first of `preferences` the client offers.
    private static func select(
        _ preferences: [String], _ selected: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
        _ selectedLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32
    ) -> Int32 {
        guard let selected, let selectedLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
        for wanted in preferences.map({ Array($0.utf8) }) {
            var index = 0
            // The list is a series of length-prefixed names.
            while index < Int(offeredLength) {
                let length = Int(offered[index])
                let start = index + 1
                if length == wanted.count, start + length <= Int(offeredLength),
                    (0..<length).allSatisfy({ offered[start + $0] == wanted[$0] })
                {
                    selected.pointee = offered + start
                    selectedLength.pointee = UInt8(length)
                    return SSL_TLSEXT_ERR_OK
                }
                index = start + length
            }
        }
        return SSL_TLSEXT_ERR_NOACK
    }
}
