import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// A session that ends in the instant its user-info stream opens: the stream answers 403,
/// or it carries the session's last frame; never a stream that just ends, or stays open.
@Suite("User-info stream: an expiry racing an open")
struct UserInfoExpiryRaceTests {
    @Test func aStreamOpenedAsItsSessionEndsAnswers403OrCarriesTheFrame() async throws {
        try await withRunningServer { server in
            var outcomes: [String: Int] = [:]
            for round in 0..<150 {
                let session = try await login(server)
                let stream = try server.connect()
                let expire = try server.connect()
                let request =
                    "GET /v2/player/7000001/information/updates HTTP/1.1\r\nHost: t\r\nX-SessionId: \(session.sessionId)\r\n\r\n"
                let expiry =
                    "POST /__admin/sessions/\(session.sessionId)/\(round % 2 == 0 ? "expire" : "terminate") HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
                // Both requests leave as close together as two writes can.
                if round % 3 == 0 {
                    try expire.send(expiry)
                    try stream.send(request)
                } else {
                    try stream.send(request)
                    try expire.send(expiry)
                }
                #expect(try await expire.readResponse().status == 200)
                let response = try await stream.readResponse(timeout: .seconds(10))
                switch response.status {
                case 403:
                    outcomes["403", default: 0] += 1
                case 200:
                    let types = frameTypes(sseEvents(response.body))
                    let last = round % 2 == 0 ? "SESSION_EXPIRATION" : "SESSION_TERMINATED"
                    #expect(types == [last], "round \(round): \(response.text)")
                    outcomes["frame", default: 0] += 1
                default:
                    Issue.record("round \(round): status \(response.status)")
                }
            }
            #expect(outcomes.values.reduce(0, +) == 150)
        }
    }
}
