/// Why a request cannot be upgraded to WebSocket, as the problem+json answer it gets
/// (RFC 6455 §4.2.1, §4.4). Each has a stable `code`.
public struct WebSocketHandshakeError: HTTPResponseError, Equatable {
    public var problem: ProblemDetails
    /// Fields the answer carries besides the problem (`Upgrade`, `Sec-WebSocket-Version`).
    public var headers: HTTPHeaders

    public init(problem: ProblemDetails, headers: HTTPHeaders = HTTPHeaders()) {
        self.problem = problem
        self.headers = headers
    }

    public var response: HTTPResponse {
        var response = problem.response
        for field in headers { response.headers.set(field.name, field.value) }
        return response
    }

    /// A request without `Upgrade: websocket` where only WebSocket is served: 426, with the
    /// `Upgrade` field RFC 9110 §15.5.22 requires naming the protocol to switch to.
    public static let upgradeRequired = WebSocketHandshakeError(
        problem: ProblemDetails(
            status: 426, code: "WEBSOCKET_UPGRADE_REQUIRED",
            detail: "This resource speaks WebSocket only: send Upgrade: websocket (RFC 6455 §4.1)."),
        headers: ["Upgrade": "websocket"])

    static func methodNotGET(_ method: String) -> WebSocketHandshakeError {
        WebSocketHandshakeError(
            problem: .badRequest(
                "A WebSocket handshake is a GET request, not \(method) (RFC 6455 §4.2.1).",
                code: "WEBSOCKET_METHOD_NOT_GET"))
    }

    static let http10 = WebSocketHandshakeError(
        problem: .badRequest(
            "A WebSocket handshake needs HTTP/1.1 or higher (RFC 6455 §4.2.1).", code: "WEBSOCKET_HTTP_VERSION"))

    static let connectionNotUpgrade = WebSocketHandshakeError(
        problem: .badRequest(
            "The Connection field of a WebSocket handshake must include the upgrade token (RFC 6455 §4.2.1).",
            code: "WEBSOCKET_CONNECTION_NOT_UPGRADE"))

    /// §4.4: 426 with the versions the server speaks.
    static func unsupportedVersion(_ sent: String) -> WebSocketHandshakeError {
        let what = sent.isEmpty ? "Sec-WebSocket-Version is missing" : "Sec-WebSocket-Version \"\(sent)\" is not 13"
        return WebSocketHandshakeError(
            problem: ProblemDetails(
                status: 426, code: "WEBSOCKET_VERSION_UNSUPPORTED",
                detail: "\(what); this server speaks version 13 only (RFC 6455 §4.4)."),
            headers: ["Upgrade": "websocket", "Sec-WebSocket-Version": WebSocketHandshake.version])
    }

    /// `what` finishes the sentence after the field's name: `is missing`, `"abc" is not …`.
    static func invalidKey(_ what: String) -> WebSocketHandshakeError {
        WebSocketHandshakeError(
            problem: .badRequest(
                "Sec-WebSocket-Key \(what) (RFC 6455 §4.2.1 item 5).", code: "WEBSOCKET_KEY_INVALID"))
    }
}
