import Foundation
import MockBackend
import MockBackendAPI
import TestSupport
import Testing

/// What the tests of the backends do through the app in memory: a manual clock, uploads,
/// logins, and answers decoded into the wire types.
extension InMemoryApp {
    /// The app on `--clock manual`, with `configure` applied.
    static func manual(_ configure: (inout MockBackendConfiguration) -> Void = { _ in }) throws -> InMemoryApp {
        var configuration = MockBackendConfiguration()
        configuration.clock = .manual
        configure(&configuration)
        return try InMemoryApp(configuration)
    }

    /// Uploads a CSV of `rows` good rows, as `curl -F file=@books.csv` sends it; the job id.
    func uploadCSV(rows: Int, path: String = "/api/v2/imports") throws -> String {
        let csv = (["title,author,year"] + (1...rows).map { "Book \($0),Author \($0),\(1900 + $0 % 100)" })
            .joined(separator: "\r\n")
        let boundary = "test-boundary"
        let body =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"books.csv\"\r\n"
            + "Content-Type: text/csv\r\n\r\n\(csv)\r\n--\(boundary)--\r\n"
        let answer = answer(
            "POST", path, headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body)
        try #require(answer.status == 202, "\(answer.status) \(answer.text)")
        return try JSONDecoder().decode(ImportAccepted.self, from: Data(answer.body)).jobId
    }

    /// A bearer token of the generation API, a session of `email`.
    func generationToken(_ email: String = "demo@example.com", password: String = "demo1234") throws -> String {
        let answer = answer(
            "POST", "/api/auth/login", body: #"{"email":"\#(email)","password":"\#(password)"}"#)
        let json = try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
        guard case .string(let token)? = json["token"] else { throw CocoaError(.coderReadCorrupt) }
        return token
    }

    /// A player session of `username`.
    func playerSession(_ username: String = "demo", password: String = "demo1234") throws -> PlayerLoginResponse {
        let answer = answer(
            "POST", "/v1/player/legislation/login", body: #"{"username":"\#(username)","password":"\#(password)"}"#)
        return try JSONDecoder().decode(PlayerLoginResponse.self, from: Data(answer.body))
    }

    /// Starts a generation with `token`; its id.
    func createGeneration(token: String) throws -> String {
        let answer = answer(
            "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"], body: #"{"prompt":"a cat"}"#)
        try #require(answer.status == 201, "\(answer.status) \(answer.text)")
        return try JSONDecoder().decode(GenerationCreated.self, from: Data(answer.body)).id
    }

    /// `GET target` (with `headers`), decoded as `type`.
    func get<T: Decodable>(_ type: T.Type, _ target: String, headers: [String: String] = [:]) throws -> T {
        let answer = answer("GET", target, headers: headers)
        try #require(answer.status == 200, "\(target): \(answer.status) \(answer.text)")
        return try JSONDecoder().decode(type, from: Data(answer.body))
    }
}

extension InMemoryApp.Response {
    /// The body as a JSON object.
    func object() throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(body))
    }
}
