import Foundation
import MockBackendAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of the workflow sessions API (`openapi/openapi.yaml`, tag `workflows`), with
/// the API key on every call.
///
/// Whether a session runs is its status's `mode` (`GET /api/sessions/{id}/status`): the
/// list has no `mode`, and neither has a `status` field, so a client that gates on either
/// in the list never opens a stream. `liveSessions()` and `follow(_:)` read the status.
///
/// ```swift
/// let workflows = WorkflowClient(baseURL: baseURL, apiKey: key)
/// for status in try await workflows.liveSessions() {
///     guard let stream = try await workflows.follow(status.id) else { continue }
///     stream.start()
///     for try await message in stream.messages { print(message) }
/// }
/// ```
public struct WorkflowClient: Sendable {
    public let baseURL: URL
    private let apiKey: String
    private let session: URLSession

    /// - Parameter apiKey: the server's `--api-key`, sent as `Authorization: Bearer`.
    public init(baseURL: URL, apiKey: String, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.session = session
    }

    /// `GET /api/sessions`: every session, oldest first, without `mode`.
    public func sessions() async throws -> [WorkflowSummary] {
        try await call("GET", WorkflowPaths.sessions)
    }

    /// `GET /api/sessions/{id}/status`: the session's state, `mode` included.
    public func status(of id: String) async throws -> WorkflowStatus {
        try await call("GET", WorkflowPaths.status(id: id))
    }

    /// The status of every session whose `mode` is `live`: the list, then each status.
    public func liveSessions() async throws -> [WorkflowStatus] {
        var live: [WorkflowStatus] = []
        for summary in try await sessions() {
            let status = try await status(of: summary.id)
            if status.isLive { live.append(status) }
        }
        return live
    }

    /// The session's event stream, not yet started, when its status says `live`; nil when
    /// it has completed (its stream has ended; the status says how it went).
    public func follow(
        _ id: String, policy: ReconnectionPolicy = ReconnectionPolicy(), lastEventID: String? = nil
    ) async throws -> WorkflowEventStream? {
        guard try await status(of: id).isLive else { return nil }
        return WorkflowEventStream(
            url: baseURL.appendingPathComponent(WorkflowPaths.events(id: id)), sessionId: id,
            headers: ["Authorization": "Bearer \(apiKey)"], policy: policy, lastEventID: lastEventID)
    }

    /// `POST /api/sessions/{id}/pause`: 202 with the status; 409 for a paused or completed one.
    @discardableResult
    public func pause(_ id: String) async throws -> WorkflowStatus {
        try await call("POST", WorkflowPaths.pause(id: id), expecting: 202)
    }

    /// `POST /api/sessions/{id}/resume`: 202 with the status; 409 unless it was paused.
    @discardableResult
    public func resume(_ id: String) async throws -> WorkflowStatus {
        try await call("POST", WorkflowPaths.resume(id: id), expecting: 202)
    }

    /// `POST /api/sessions/{id}/steer` `{"message"}`: 202 with the status.
    @discardableResult
    public func steer(_ id: String, message: String) async throws -> WorkflowStatus {
        try await call("POST", WorkflowPaths.steer(id: id), body: ["message": message], expecting: 202)
    }

    private struct Problem: Decodable {
        var code: String?
    }

    private func call<Answer: Decodable>(
        _ method: String, _ path: String, body: [String: String]? = nil, expecting expected: Int = 200
    ) async throws -> Answer {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == expected else {
            throw WorkflowRequestError(
                request: "\(method) /\(path)", status: status,
                code: (try? JSONDecoder().decode(Problem.self, from: data))?.code)
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }
}
