/// How an upstream connection turns a connecting socket into a byte stream: plain TCP here,
/// TLS from the `MockBackendTLS` module (`TLSClientContext`).
public protocol UpstreamTransport: Sendable {
    /// `http` or `https`.
    var scheme: String { get }
    /// Wraps a non-blocking socket whose connect may still be under way, and takes ownership
    /// of it. `serverName` is the host asked for (SNI, certificate checks).
    func makeClientStream(fileDescriptor: Int32, serverName: String) -> any ByteStream
}

/// Plain TCP to the upstream.
public struct PlainUpstreamTransport: UpstreamTransport {
    public init() {}

    public var scheme: String { "http" }

    public func makeClientStream(fileDescriptor: Int32, serverName: String) -> any ByteStream {
        TCPByteStream(fileDescriptor: fileDescriptor)
    }
}
