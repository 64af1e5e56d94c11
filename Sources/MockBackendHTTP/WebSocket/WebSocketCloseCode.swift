/// A status code of a close frame (RFC 6455 §7.4), or one of the codes an endpoint reports
/// without having received it in a frame (1005, 1006).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the server is going down, or a page is navigating away.
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: reported (never sent) when a close frame carried no code (§7.1.5).
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: reported (never sent) when the connection ended without a close frame (§7.1.5).
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a text message was not UTF-8 (§8.1).
    public static let invalidPayload = WebSocketCloseCode(1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1011: the server met a condition that kept it from fulfilling the request.
    public static let internalError = WebSocketCloseCode(1011)

    /// Whether the code may appear in a close frame on the wire (§7.4.1, §7.4.2, and the
    /// IANA registry of §11.7). Not: 0-999 (unused), 1004 (reserved), 1005, 1006 and 1015
    /// (reported locally only), 1016-2999 (reserved for future revisions of the protocol and
    /// extensions, none assigned), 5000 and above (undefined). A close frame carrying any of
    /// them fails the connection with 1002.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { "\(rawValue)" }
}
