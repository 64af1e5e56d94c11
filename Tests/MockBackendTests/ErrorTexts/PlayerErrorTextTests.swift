import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// The player API's errors: one `error` text per condition, in the backend's own body, as
/// the README's table lists them; and the `forbidden` fault in both of the backend's
/// flavours, 403 and 401, with that same body.
@Suite("Player API error texts")
struct PlayerErrorTextTests {
    /// The status and `error` of a player API error body, checking its shape.
    private func playerError(_ answer: InMemoryApp.Response) throws -> (status: Int, error: String) {
        #expect(answer.headers["Content-Type"] == "application/json; charset=utf-8")
        let body = try JSONDecoder().decode(PlayerErrorBody.self, from: Data(answer.body))
        #expect(body.success == false)
        #expect(body.errorCode == answer.status)
        return (answer.status, body.error)
    }

    /// Every way a request can lack a live session of the right user answers the same 403
    /// text, whatever ended the session.
    @Test func everyRefusedSessionHasOneText() throws {
        let app = try InMemoryApp.manual()
        let alice = try app.playerSession("alice", password: "alice1234")
        let expired = try app.playerSession().sessionId
        _ = app.answer("POST", "/__admin/sessions/\(expired)/expire")
        let terminated = try app.playerSession().sessionId
        _ = app.answer("POST", "/__admin/sessions/\(terminated)/terminate")
        let loggedOut = try app.playerSession().sessionId
        _ = app.answer("POST", "/v1/player/logout", headers: ["X-SessionId": loggedOut])

        let balance = "/v2/player/7000001/balance"
        let refusals: [(String, InMemoryApp.Response)] = [
            ("none sent", app.answer("GET", balance)),
            ("unknown", app.answer("GET", balance, headers: ["X-SessionId": "nope"])),
            ("expired", app.answer("GET", balance, headers: ["X-SessionId": expired])),
            ("terminated", app.answer("GET", balance, headers: ["X-SessionId": terminated])),
            ("logged out", app.answer("GET", balance, headers: ["X-SessionId": loggedOut])),
            ("another user's", app.answer("GET", balance, headers: ["X-SessionId": alice.sessionId])),
            ("no cookie", app.answer("GET", "/v1/casino/games/recent")),
            ("logout without one", app.answer("POST", "/v1/player/logout")),
        ]
        for (condition, answer) in refusals {
            let (status, error) = try playerError(answer)
            #expect(status == 403, "\(condition)")
            #expect(error == "Session expired", "\(condition)")
        }
    }

    @Test func wrongCredentialsHaveTheirOwnText() throws {
        let app = try InMemoryApp.manual()
        for body in [#"{"username":"demo","password":"wrong"}"#, #"{"username":"nobody","password":"demo1234"}"#] {
            let (status, error) = try playerError(app.answer("POST", "/v1/player/legislation/login", body: body))
            #expect(status == 403)
            #expect(error == "Invalid username or password")
        }
    }

    /// The README's table of player API errors is what the server answers.
    @Test func theReadmeTableListsEachText() throws {
        let readme = try String(contentsOfFile: PackageRoot.path + "/README.md", encoding: .utf8)
        for row in [
            "| no live session of that user: none sent, unknown, expired, terminated, logged out, another user's | 403 | `Session expired` |",
            "| login with a wrong username or password | 403 | `Invalid username or password` |",
            "| `userId` in the path not a number | 400 | `userId must be a number` |",
            "| `limit` not a number from 1 to 100 | 400 | `limit must be a number from 1 to 100` |",
        ] {
            #expect(readme.contains(row), "README.md lacks the row \(row)")
        }
        let app = try InMemoryApp.manual()
        let session = try app.playerSession().sessionId
        let headers = ["X-SessionId": session]
        #expect(
            try playerError(app.answer("GET", "/v1/player/abc/details", headers: headers)).error
                == "userId must be a number")
        #expect(
            try playerError(app.answer("GET", "/v1/player/7000001/bets/open?limit=0", headers: headers)).error
                == "limit must be a number from 1 to 100")
    }

    /// `{"kind":"forbidden"}` answers 403, `{"kind":"forbidden","status":401}` the backend's
    /// 401 flavour: the same body with `errorCode` 401. Neither touches the session.
    @Test(arguments: [(#"{"kind":"forbidden"}"#, 403), (#"{"kind":"forbidden","status":401}"#, 401)])
    func theForbiddenFaultAnswersEitherFlavour(_ fault: String, _ status: Int) throws {
        let app = try InMemoryApp.manual()
        let session = try app.playerSession().sessionId
        let rule = app.answer(
            "POST", "/__admin/faults",
            body: #"{"match":{"path":"/v2/player/*/balance"},"fault":\#(fault),"times":1}"#)
        #expect(rule.status == 201, "\(rule.text)")
        #expect(rule.text.contains(#""status":\#(status)"#))
        let headers = ["X-SessionId": session]
        let (answered, error) = try playerError(app.answer("GET", "/v2/player/7000001/balance", headers: headers))
        #expect(answered == status)
        #expect(error == "Session expired")
        #expect(app.answer("GET", "/v2/player/7000001/balance", headers: headers).status == 200)
    }

    @Test(
        arguments: [
            (#"{"kind":"forbidden","status":404}"#, "INVALID_FAULT"),
            (#"{"kind":"forbidden","status":"401"}"#, "INVALID_BODY"),
        ])
    func theForbiddenFaultTakesNoOtherStatus(_ fault: String, _ code: String) throws {
        let app = try InMemoryApp.manual()
        let rule = app.answer("POST", "/__admin/faults", body: #"{"fault":\#(fault)}"#)
        #expect(rule.status == 400)
        #expect(rule.text.contains(code))
        #expect(rule.text.contains("fault.status"))
    }
}
