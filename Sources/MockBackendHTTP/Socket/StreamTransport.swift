/// How a server turns accepted sockets into byte streams: plain TCP here, TLS from the
/// `MockBackendTLS` module. The HTTP code never knows which one it talks through.
public protocol StreamTransport: Sendable {
    /// `http` or `https`, for URLs and log lines.
    var scheme: String { get }
    /// Wraps an accepted, non-blocking socket and takes ownership of it.
    func makeStream(fileDescriptor: Int32) -> any ByteStream
}

/// Plain TCP: bytes go to the socket as they are.
public struct PlainTransport: StreamTransport {
    public init() {}

    public var scheme: String { "http" }

    public func makeStream(fileDescriptor: Int32) -> any ByteStream {
        TCPByteStream(fileDescriptor: fileDescriptor)
    }
}
