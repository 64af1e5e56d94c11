#if canImport(CNghttp2)
import CNghttp2
import MockBackendHTTP
import MockBackendTesting

/// One request's stream on an `HTTP2TestConnection`, read as `StreamClient` reads a socket.
///
/// How a stream ended, in `RawCloseOutcome`'s words: END_STREAM and RST_STREAM `CANCEL` (a
/// drop) are `.fin`, as a FIN is over HTTP/1.1; any other RST_STREAM code (`INTERNAL_ERROR`
/// for a drop with `"reset":true`) and a connection reset are `.reset`. `end` has the code.
public final class HTTP2StreamClient: StreamClient {
    private let connection: HTTP2TestConnection
    public let stream: Int32

    init(connection: HTTP2TestConnection, stream: Int32) {
        self.connection = connection
        self.stream = stream
    }

    /// The RST_STREAM code the server ended the stream with, if it did.
    public var resetCode: UInt32? {
        if case .reset(let code)? = connection.stream(stream).end { return code }
        return nil
    }

    /// The GOAWAY code of a connection that ended under this stream.
    public var goAwayCode: UInt32? {
        if case .connectionLost(let code?, _)? = connection.stream(stream).end { return code }
        return nil
    }

    public var streamedBody: [UInt8] { connection.stream(stream).body }

    public var responseHeaders: HTTPHeaders { HTTPHeaders(connection.stream(stream).fields) }

    public func receiveSome(timeout: Duration) async {
        try? await Task.sleep(for: min(timeout, .milliseconds(5)))
    }

    /// Waits for the answer's head; `RawClientError.closedByPeer` when the stream ends
    /// without one.
    func waitForHead(timeout: Duration = .seconds(20)) async throws {
        let headed = try await eventually(timeout: timeout) {
            let state = connection.stream(stream)
            if state.headComplete { return true }
            if state.end != nil { throw RawClientError.closedByPeer }
            return false
        }
        guard headed else { throw RawClientError.timedOut }
    }

    public func receive(untilContains text: String, timeout: Duration) async throws {
        let needle = Array(text.utf8)
        let found = try await eventually(timeout: timeout) {
            let state = connection.stream(stream)
            if RawHTTPClient.find(needle, in: state.body) != nil { return true }
            if state.end != nil { throw RawClientError.closedByPeer }
            return false
        }
        guard found else { throw RawClientError.timedOut }
    }

    public func readResponse(timeout: Duration) async throws -> RawResponse {
        guard await waitForClose(timeout: timeout) != .stillOpen else { throw RawClientError.timedOut }
        let state = connection.stream(stream)
        guard state.end == .endStream, let status = state.status else { throw RawClientError.closedByPeer }
        return RawResponse(version: "HTTP/2", status: status, headers: HTTPHeaders(state.fields), body: state.body)
    }

    public func waitForClose(timeout: Duration) async -> RawCloseOutcome {
        var outcome = RawCloseOutcome.stillOpen
        _ = await eventually(timeout: timeout) {
            switch connection.stream(stream).end {
            case nil: break
            case .endStream?, .connectionLost(_, transportReset: false)?: outcome = .fin
            case .reset(let code)?: outcome = code == NGHTTP2_CANCEL.rawValue ? .fin : .reset
            case .connectionLost(_, transportReset: true)?: outcome = .reset
            }
            return outcome != .stillOpen
        }
        return outcome
    }

    /// More of an upload's body (`HTTP2App.startUpload`); `end` sends END_STREAM with it.
    public func sendBody(_ bytes: [UInt8], end: Bool) {
        connection.sendBody(stream: stream, bytes, end: end)
    }

    /// How many of the body's bytes have gone out in DATA frames (flow control permitting).
    public var bodyBytesSent: Int { connection.bodyBytesSent(stream: stream) }

    /// Ends the stream from this side (RST_STREAM CANCEL); the connection stays.
    public func close() {
        connection.reset(stream: stream)
    }
}
#endif

/// RST_STREAM codes of RFC 9113 §7 that tests compare with.
public enum HTTP2ErrorCode {
    public static let internalError: UInt32 = 0x2
    public static let cancel: UInt32 = 0x8
}

extension StreamClient {
    /// The RST_STREAM code that ended this stream, when it is an h2 stream the server reset.
    public var http2ResetCode: UInt32? {
        #if canImport(CNghttp2)
        (self as? HTTP2StreamClient)?.resetCode
        #else
        nil
        #endif
    }
}
