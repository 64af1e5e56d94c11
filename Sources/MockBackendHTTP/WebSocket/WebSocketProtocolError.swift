/// Why the frames a client sent cannot be accepted, with the close code the connection is
/// failed with (RFC 6455 §7.1.7, §7.4.1): 1002 for framing and sequencing, 1007 for text
/// that is not UTF-8, 1009 for a message over the limit.
public struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The code of the close frame the server sends.
    public var closeCode: WebSocketCloseCode
    /// What was wrong, for people and logs; sent as the close frame's reason, cut to fit.
    public var detail: String

    public init(closeCode: WebSocketCloseCode, detail: String) {
        self.closeCode = closeCode
        self.detail = detail
    }

    public var description: String { "\(closeCode.rawValue): \(detail)" }

    static func protocolError(_ detail: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: .protocolError, detail: detail)
    }

    static func invalidUTF8(_ detail: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: .invalidPayload, detail: detail)
    }

    static func messageTooBig(_ limit: Int) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: .messageTooBig, detail: "A message is larger than \(limit) bytes.")
    }
}
