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

/// A RST_STREAM or GOAWAY that ended an exchange (a request and its answer) over HTTP/2,
/// sent by the server or received from the client: what the journals show of it. A GOAWAY
/// is told for each exchange open on its connection when it went.
public struct HTTP2EndingNote: Sendable, Equatable {
    public enum Frame: String, Sendable {
        case rstStream = "RST_STREAM"
        case goAway = "GOAWAY"
    }

    /// The exchange's id (`HTTPRequest.connectionID`).
    public var exchangeID: UInt64
    public var frame: Frame
    /// The error code (RFC 9113 §7).
    public var code: UInt32
    /// A GOAWAY's last stream id.
    public var lastStreamID: Int32?
    /// Whether the server sent it (else the client did).
    public var sentByServer: Bool

    public init(exchangeID: UInt64, frame: Frame, code: UInt32, lastStreamID: Int32? = nil, sentByServer: Bool) {
        self.exchangeID = exchangeID
        self.frame = frame
        self.code = code
        self.lastStreamID = lastStreamID
        self.sentByServer = sentByServer
    }
}
