#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response as a handler builds it. The connection adds the framing headers
/// (`Date`, `Server`, `Content-Length` or `Transfer-Encoding`, `Connection`).
public struct HTTPResponse: Sendable {
    /// How the body is produced.
    public enum Body: Sendable {
        /// A body known in full; sent with `Content-Length` in the same write as the head.
        case bytes([UInt8])
        /// A body produced over time through a sink (`ResponseBodyWriter` on a connection,
        /// a recording sink in a test); sent chunked on HTTP/1.1 and delimited by close on
        /// HTTP/1.0. The closure runs once the head has been queued, on the sink's executor;
        /// it must not block.
        case stream(@Sendable (any StreamSink) -> Void)
        /// No body: the connection switches to WebSocket (RFC 6455 §4.2.2). The status is
        /// sent as 101 whatever `status` says. Made by `HTTPResponse.webSocket(upgrading:)`,
        /// which checks the handshake first.
        case webSocket(WebSocketUpgrade)
        /// Not known yet: the connection waits for `DeferredResponse.complete(with:)`, with
        /// no timeout, and answers with that. `status` and `headers` here mean nothing.
        case deferred(DeferredResponse)
    }

    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body
    /// Shapes the bytes of this response on their way to the socket; the seam the fault
    /// layer uses to delay, fragment, cut or reset a response. Nil sends bytes as they come.
    public var shaper: (any ResponseShaper)?
    /// For a stream whose length is known before it starts (a relayed body that came with
    /// `Content-Length`): sent with that `Content-Length` instead of chunked, and the
    /// connection stays open after it. The producer writes exactly that many bytes, or
    /// aborts. Nil: chunked.
    public var declaredLength: Int?
    /// For an answer that came from an upstream server (a proxy's): what the journals show
    /// of the upstream's part. Nil for the mock's own answers.
    public var relay: RelayedAnswer?

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the body is streamed.
    public var isStream: Bool {
        if case .stream = body { return true }
        return false
    }

    /// A text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: .bytes(Array(text.utf8)))
    }

    /// A JSON response from already encoded bytes.
    public static func json(bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": MediaType.json], body: .bytes(bytes))
    }

    /// A JSON response encoding `value` with sorted keys, so bodies are stable.
    public static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> HTTPResponse {
        .json(bytes: Array(try JSONCoding.encoder.encode(value)), status: status)
    }

    /// A streamed response.
    public static func stream(
        status: Int = 200, headers: HTTPHeaders, _ produce: @escaping @Sendable (any StreamSink) -> Void
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: .stream(produce))
    }
}

/// The upstream's part in a proxied answer.
public struct RelayedAnswer: Sendable, Equatable {
    /// The upstream's status; nil when it gave none (unreachable, timed out, unreadable).
    public var upstreamStatus: Int?
    /// From sending the request upstream to its answer's head, or to the failure.
    public var latency: Duration

    public init(upstreamStatus: Int?, latency: Duration) {
        self.upstreamStatus = upstreamStatus
        self.latency = latency
    }
}

/// The media types the server names more than once.
package enum MediaType {
    package static let json = "application/json; charset=utf-8"
    package static let problemJSON = "application/problem+json"
    package static let eventStream = "text/event-stream; charset=utf-8"
}

/// Shared JSON coders. `JSONEncoder` is thread-safe once configured.
package enum JSONCoding {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
