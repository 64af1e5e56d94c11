/// An HTTP/1.x protocol version from a request line.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http10 = HTTPVersion(major: 1, minor: 0)
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    /// Whether persistent connections are the default (HTTP/1.1 and later 1.x, RFC 9112 §9.3).
    public var keepsAliveByDefault: Bool { major == 1 && minor >= 1 }

    public var description: String { "HTTP/\(major).\(minor)" }
}
