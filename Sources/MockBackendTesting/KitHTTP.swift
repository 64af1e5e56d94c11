import Foundation
import MockBackendHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request, one response, JSON both ways: the transport of `AdminClient` and
/// `TestAPIClient`. Paths are written as the API documents them; each segment a caller
/// supplies is percent-encoded by `segment(_:)`.
struct KitHTTP: Sendable {
    /// How a request reaches the server.
    enum Transport: Sendable {
        /// Over the network, with this session.
        case network(URLSession)
        /// Straight to a server's responder in the same process, without a socket (a test
        /// of the app in memory). Only answers with a body known in full.
        case inMemory(@Sendable (HTTPRequest) -> HTTPResponse)
    }

    let baseURL: URL
    /// Sent with every request (the admin token).
    let headers: [String: String]
    let transport: Transport

    init(baseURL: URL, headers: [String: String], session: URLSession) {
        self.init(baseURL: baseURL, headers: headers, transport: .network(session))
    }

    init(baseURL: URL, headers: [String: String], transport: Transport) {
        self.baseURL = baseURL
        self.headers = headers
        self.transport = transport
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// `text` as one path segment: `/` and everything outside the path's characters encoded.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends a request and returns the body; a status outside 200–299 throws.
    @discardableResult
    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
        contentType: String = "application/json", headers extra: [String: String] = [:]
    ) async throws -> Data {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        let basePath = components?.path ?? ""
        components?.percentEncodedPath = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + path
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers.merging(extra, uniquingKeysWith: { $1 }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, status) = try await exchange(request)
        guard (200..<300).contains(status) else {
            throw Self.error(request: "\(method) \(path)", status: status, body: data)
        }
        return data
    }

    /// The body and status of the answer to `request`, by the transport.
    private func exchange(_ request: URLRequest) async throws -> (Data, Int) {
        switch transport {
        case .network(let session):
            let (data, response) = try await session.data(for: request)
            return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
        case .inMemory(let respond):
            var headers = HTTPHeaders()
            headers.set("Host", request.url?.host ?? "127.0.0.1")
            for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.set(name, value) }
            let url = request.url
            let target = (url?.path ?? "/") + (url?.query.map { "?" + $0 } ?? "")
            let response = respond(
                HTTPRequest(
                    method: request.httpMethod ?? "GET", target: target, headers: headers,
                    body: Array(request.httpBody ?? Data())))
            guard case .bytes(let body) = response.body else { throw URLError(.cannotDecodeContentData) }
            return (Data(body), response.status)
        }
    }

    /// Sends `body` as JSON and decodes the answer.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], json body: (any Encodable)? = nil,
        as type: Answer.Type = Answer.self
    ) async throws -> Answer {
        let data = try await send(method, path, query: query, body: try body.map { try Self.encoder.encode($0) })
        return try JSONDecoder().decode(Answer.self, from: data)
    }

    private static func error(request: String, status: Int, body: Data) -> UnexpectedResponseError {
        let problem = try? JSONDecoder().decode(Problem.self, from: body)
        return UnexpectedResponseError(
            request: request, status: status, code: problem?.code, detail: problem?.detail,
            body: String(decoding: body, as: UTF8.self))
    }

    /// The fields of a problem body (RFC 9457) that an error reports.
    private struct Problem: Decodable {
        var code: String?
        var detail: String?
    }
}
