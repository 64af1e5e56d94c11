import MockBackendHTTP
import MockBackendTesting

/// A client reading one streamed answer, the same way over a socket (`RawHTTPClient`) or in
/// memory (`InMemoryStream`): what arrived, waits for more, and the end.
public protocol StreamClient: AnyObject {
    /// The body that arrived so far, transfer coding removed.
    var streamedBody: [UInt8] { get }
    /// Waits until the body holds `text`; throws `RawClientError.timedOut` after `timeout`
    /// (scaled), `.closedByPeer` when the stream ends first.
    func receive(untilContains text: String, timeout: Duration) async throws
    /// Waits for the stream to end, and returns the whole answer.
    func readResponse(timeout: Duration) async throws -> RawResponse
    /// Waits for the server to end the stream and tells how it did.
    func waitForClose(timeout: Duration) async -> RawCloseOutcome
    /// The answer's header fields.
    var responseHeaders: HTTPHeaders { get }
    /// Waits up to `timeout` for more of the body (less when it comes or the stream ends).
    func receiveSome(timeout: Duration) async
    /// The client goes away.
    func close()
}

extension StreamClient {
    public func receive(untilContains text: String) async throws {
        try await receive(untilContains: text, timeout: .seconds(20))
    }

    public func waitForClose() async -> RawCloseOutcome {
        await waitForClose(timeout: .seconds(20))
    }

    public func readResponse() async throws -> RawResponse {
        try await readResponse(timeout: .seconds(20))
    }
}

extension RawHTTPClient: StreamClient {
    public func readResponse(timeout: Duration) async throws -> RawResponse {
        try await readResponse(timeout: timeout, forHEAD: false)
    }

    /// The fields of the head at the start of `buffer` (none until it is whole).
    public var responseHeaders: HTTPHeaders {
        guard let end = Self.find(Array("\r\n\r\n".utf8), in: buffer) else { return HTTPHeaders() }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).split(separator: "\r\n").dropFirst()
        return HTTPHeaders(
            lines.compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            })
    }

    public func receiveSome(timeout: Duration) async {
        _ = try? await receive(timeout: timeout)
    }
}

/// A streamed answer of an `InMemoryApp`, read through its recording sink: every read runs
/// the app's waiting work first, as a socket's reads would find what the server's loop
/// wrote.
public final class InMemoryStream: StreamClient {
    public let sink: RecordingSink
    private let app: InMemoryApp
    private let status: Int
    private let headers: HTTPHeaders

    init(sink: RecordingSink, status: Int, headers: HTTPHeaders, app: InMemoryApp) {
        self.sink = sink
        self.status = status
        self.headers = headers
        self.app = app
    }

    public func readResponse(timeout: Duration) async throws -> RawResponse {
        guard await waitForClose(timeout: timeout) != .stillOpen else { throw RawClientError.timedOut }
        return RawResponse(status: status, headers: headers, body: Array(sink.text.utf8))
    }

    public var streamedBody: [UInt8] {
        app.run()
        return Array(sink.text.utf8)
    }

    public var responseHeaders: HTTPHeaders { headers }

    public func receiveSome(timeout: Duration) async {
        app.run()
        try? await Task.sleep(for: min(timeout, .milliseconds(5)))
        app.run()
    }

    public func receive(untilContains text: String, timeout: Duration) async throws {
        let found = try await eventually(timeout: timeout) {
            app.run()
            if sink.text.contains(text) { return true }
            if sink.isClosed { throw RawClientError.closedByPeer }
            return false
        }
        guard found else { throw RawClientError.timedOut }
    }

    public func waitForClose(timeout: Duration) async -> RawCloseOutcome {
        var outcome = RawCloseOutcome.stillOpen
        _ = await eventually(timeout: timeout) {
            app.run()
            switch sink.entries.last {
            case .finished?, .aborted(reset: false)?: outcome = .fin
            case .aborted(reset: true)?: outcome = .reset
            default: if sink.isClosed { outcome = .fin }
            }
            return outcome != .stillOpen
        }
        return outcome
    }

    public func close() {
        sink.clientCloses()
        app.run()
    }
}
