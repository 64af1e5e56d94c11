import MockBackendHTTP
import Testing

@testable import MockBackend

/// How secrets are shown, without a socket: never whole, wherever they are.
@Suite("Secret redaction")
struct SecretRedactionTests {
    static let token = "0123456789abcdefghij"

    @Test func aSecretKeepsAtMostSixCharactersAndAThird() {
        #expect(SecretRedaction.redact(Self.token) == "012345…")
        #expect(SecretRedaction.redact("abcdef") == "ab…")
        #expect(SecretRedaction.redact("ab") == "…")
    }

    @Test func headersCookiesAndTheNamedHeaderAreRedacted() {
        let redaction = SecretRedaction(token: .header("X-SessionId"))
        let shown = redaction.redacting(
            HTTPHeaders([
                ("Authorization", "Bearer \(Self.token)"), ("Cookie", "a=\(Self.token); b=\(Self.token)x"),
                ("Set-Cookie", "sid=\(Self.token); Path=/; HttpOnly"), ("x-sessionid", Self.token),
                ("Accept", "text/event-stream"),
            ]))
        #expect(shown["Authorization"] == "Bearer 012345…")
        #expect(shown["Cookie"] == "a=012345…; b=012345…")
        #expect(shown["Set-Cookie"] == "sid=012345…; Path=/; HttpOnly")
        #expect(shown["X-SessionId"] == "012345…")
        #expect(shown["Accept"] == "text/event-stream")
    }

    @Test func aQueryTokenIsRedactedInTargetsAndLogLines() {
        let redaction = SecretRedaction(token: .query("access_token"))
        let request = HTTPRequest(method: "GET", target: "/v1/events?x=1&access_token=\(Self.token)&y=2")
        #expect(redaction.redacting(request).target == "/v1/events?x=1&access_token=012345…&y=2")
        #expect(redaction.loggedTarget(of: request) == "/v1/events?x=1&access_token=012345…&y=2")
    }

    @Test func aTokenInAnAdminPathIsRedactedInLogLinesButAnIDIsNot() {
        let redaction = SecretRedaction(token: .bearer)
        let expire = HTTPRequest(method: "POST", target: "/__admin/proxy/sessions/\(Self.token)/expire")
        #expect(redaction.loggedTarget(of: expire) == "/__admin/proxy/sessions/012345…/expire")
        let byID = HTTPRequest(method: "DELETE", target: "/__admin/proxy/sessions/t12")
        #expect(redaction.loggedTarget(of: byID) == "/__admin/proxy/sessions/t12")
        let other = HTTPRequest(method: "GET", target: "/api/x?access_token=\(Self.token)")
        #expect(redaction.loggedTarget(of: other) == other.target)
    }
}
