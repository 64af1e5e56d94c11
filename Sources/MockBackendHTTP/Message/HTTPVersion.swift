/// An HTTP protocol version: a request line's, or 2.0 for a request that came over HTTP/2.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http10 = HTTPVersion(major: 1, minor: 0)
    public static let http11 = HTTPVersion(major: 1, minor: 1)
    /// A request that came as an HTTP/2 stream (RFC 9113).
    public static let http2 = HTTPVersion(major: 2, minor: 0)

    /// Whether persistent connections are the default (HTTP/1.1 and later 1.x, RFC 9112 §9.3).
    public var keepsAliveByDefault: Bool { major == 1 && minor >= 1 }

    public var description: String { "HTTP/\(major).\(minor)" }
}
