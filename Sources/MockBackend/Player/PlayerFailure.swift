import MockBackendAPI
import MockBackendHTTP

/// An error of the player API, answered with its own body rather than problem+json:
/// `{"success":false,"errorCode":403,"error":"Session expired",...}`.
struct PlayerFailure: HTTPResponseError {
    let status: Int
    let message: String

    var response: HTTPResponse {
        let body = PlayerErrorBody(errorCode: status, error: message, nwaTraceId: SecureToken.uuid())
        let bytes = (try? JSONCoding.encoder.encode(body)).map(Array.init) ?? []
        return .json(bytes: bytes, status: status)
    }

    static func forbidden(_ message: String) -> PlayerFailure { PlayerFailure(status: 403, message: message) }
    static func badRequest(_ message: String) -> PlayerFailure { PlayerFailure(status: 400, message: message) }
}
