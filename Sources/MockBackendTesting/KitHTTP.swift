import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request, one response, JSON both ways: the transport of `AdminClient` and
/// `TestAPIClient`. Paths are written as the API documents them; each segment a caller
/// supplies is percent-encoded by `segment(_:)`.
struct KitHTTP: Sendable {
    let baseURL: URL
    /// Sent with every request (the admin token).
    let headers: [String: String]
    let session: URLSession

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
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw Self.error(request: "\(method) \(path)", status: status, body: data)
        }
        return data
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
