/// Whether this build speaks HTTP/2: it does where the system nghttp2 (`libnghttp2-dev`)
/// was found when it was built — Linux. Elsewhere the server speaks HTTP/1.1 only, and says
/// so when asked for h2.
public enum HTTP2Support {
    #if canImport(CNghttp2)
    public static let isAvailable = true
    #else
    public static let isAvailable = false
    #endif
}

/// The settings the server announces (RFC 9113 §6.5.2).
public struct HTTP2Settings: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams: UInt32 = 100
    /// SETTINGS_INITIAL_WINDOW_SIZE: how much request body a stream may send unacknowledged.
    public var initialWindowSize: UInt32 = 65_535
    /// SETTINGS_MAX_HEADER_LIST_SIZE.
    public var maxHeaderListSize: UInt32 = 64 * 1024

    public init() {}
}
