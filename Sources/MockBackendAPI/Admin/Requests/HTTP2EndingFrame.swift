/// An HTTP/2 frame that ended a stream or the connection it was on, as the request and
/// stream journals show it (`http2Endings`): a RST_STREAM (RFC 9113 §6.4) or a GOAWAY
/// (§6.8), sent by the mock or received from the client, with its error code (§7).
public struct HTTP2EndingFrame: Codable, Sendable, Equatable {
    /// `RST_STREAM` or `GOAWAY`.
    public var frame: String
    /// The error code, e.g. 8.
    public var code: Int
    /// Its name in RFC 9113 §7, e.g. `CANCEL`; absent for a code the RFC does not name.
    public var codeName: String?
    /// `server` when the mock sent the frame, `client` when the client did.
    public var sentBy: String
    /// A GOAWAY's last stream id: streams above it were not processed.
    public var lastStreamId: Int?

    public init(frame: String, code: Int, sentBy: String, lastStreamId: Int? = nil) {
        self.frame = frame
        self.code = code
        self.codeName = Self.codeNames.indices.contains(code) ? Self.codeNames[code] : nil
        self.sentBy = sentBy
        self.lastStreamId = lastStreamId
    }

    /// RFC 9113 §7, in code order from 0x0.
    public static let codeNames = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]
}
