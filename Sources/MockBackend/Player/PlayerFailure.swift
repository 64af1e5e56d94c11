import MockBackendAPI
import MockBackendHTTP

/// An error of the player API, answered with its own body rather than problem+json:
/// `{"success":false,"errorCode":403,"error":"Session expired",...}`.
///
/// One `error` text per condition, as the backend has it (README, "Player API errors"):
/// every request without a live session of the right user — none sent, unknown, expired,
/// terminated, logged out, another user's — gets `sessionExpired`, whatever ended it (the
/// admin API's session list tells them apart); a login with wrong credentials gets
/// `invalidCredentials`. The texts do not vary, so a client may match them.
struct PlayerFailure: HTTPResponseError {
    let status: Int
    let message: String

    var response: HTTPResponse {
        let body = PlayerErrorBody(errorCode: status, error: message, nwaTraceId: SecureToken.uuid())
        let bytes = (try? JSONCoding.encoder.encode(body)).map(Array.init) ?? []
        return .json(bytes: bytes, status: status)
    }

    /// The text of every refused session.
    static let sessionExpiredText = "Session expired"

    /// No live session of the right user: 403, or `status` (the `forbidden` fault's 401).
    static func sessionExpired(status: Int = 403) -> PlayerFailure {
        PlayerFailure(status: status, message: sessionExpiredText)
    }

    /// A login whose username and password match no user.
    static let invalidCredentials = PlayerFailure(status: 403, message: "Invalid username or password")

    static func badRequest(_ message: String) -> PlayerFailure { PlayerFailure(status: 400, message: message) }
}
