import Dispatch
import Logging
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting

/// The WebSocket connections opened on a `WebSocketTestRoutes` server and what they saw.
final class WebSocketRegistry: Sendable {
    let writers = LockedValue<[WebSocketWriter]>([])
    let received = LockedValue<[String]>([])
    let closeEvents = LockedValue<[WebSocketCloseEvent]>([])
    /// The writes each shaped connection's shaper saw, by kind, in order.
    let shapedKinds = LockedValue<[ResponseWriteKind]>([])
    let broadcast = LockedValue(SinkGroup())

    func add(_ writer: WebSocketWriter) {
        writers.withLock { $0.append(writer) }
        writer.onClose { [closeEvents] event in closeEvents.withLock { $0.append(event) } }
    }

    var last: WebSocketWriter? { writers.current.last }
}

/// Records the kind of every write and shapes some: `pauseMilliseconds` before each
/// message, and after `closeAfterMessages` messages the given ending (a close or a blackhole).
struct RecordingShaper: ResponseShaper {
    let registry: WebSocketRegistry
    var pauseMilliseconds = 0
    var closeAfterMessages: Int?
    var ending = OutboundSegment.close(reset: false)
    var pacedPieceBytes: Int?
    private var messages = 0

    init(
        registry: WebSocketRegistry, pauseMilliseconds: Int = 0, closeAfterMessages: Int? = nil,
        ending: OutboundSegment = .close(reset: false), pacedPieceBytes: Int? = nil
    ) {
        self.registry = registry
        self.pauseMilliseconds = pauseMilliseconds
        self.closeAfterMessages = closeAfterMessages
        self.ending = ending
        self.pacedPieceBytes = pacedPieceBytes
    }

    mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        registry.shapedKinds.withLock { $0.append(kind) }
        guard kind == .message else { return [.bytes(bytes)] }
        messages += 1
        var segments: [OutboundSegment] = []
        if pauseMilliseconds > 0 { segments.append(.pause(milliseconds: pauseMilliseconds)) }
        if let size = pacedPieceBytes {
            segments.append(.paced(PacedBytes(bytes, cut: .every(size), pauseMilliseconds: 5)))
        } else {
            segments.append(.bytes(bytes))
        }
        if let limit = closeAfterMessages, messages >= limit { segments.append(ending) }
        return segments
    }
}

/// Routes for WebSocket tests over real sockets.
enum WebSocketTestRoutes {
    static func responder(_ registry: WebSocketRegistry = WebSocketRegistry()) -> RoutingResponder {
        var router = Router()
        router.get("/hello") { _ in .text("hello") }
        // Echoes every message as it came (the Autobahn echo server).
        router.get("/echo") { request in
            .webSocket(upgrading: request) { writer in
                registry.add(writer)
                writer.onText { writer.send(text: $0) }
                writer.onBinary { writer.send(binary: $0) }
            }
        }
        // Records text messages; sends nothing of its own.
        router.get("/record") { request in
            .webSocket(upgrading: request) { writer in
                registry.add(writer)
                writer.onText { text in registry.received.withLock { $0.append(text) } }
            }
        }
        // Sends `count` messages "m1"..."mN" of history, joins the broadcast, and with
        // `close=1` closes with 1000 after the history.
        router.get("/history") { request in
            let count = request.queryValue("count").flatMap { Int($0) } ?? 3
            let closes = request.queryValue("close") == "1"
            var response = HTTPResponse.webSocket(upgrading: request, headers: ["X-Test": "history"]) { writer in
                registry.add(writer)
                registry.broadcast.withLock { group in
                    for index in 1...max(1, count) where count > 0 { writer.send(text: "m\(index)") }
                    group.insert(writer)
                }
                writer.onEnd { _ in registry.broadcast.withLock { $0.remove(writer) } }
                if closes { writer.close(code: .normalClosure, reason: "done") }
            }
            if let pause = request.queryValue("pause").flatMap({ Int($0) }) {
                response.shaper = RecordingShaper(registry: registry, pauseMilliseconds: pause)
            } else if let after = request.queryValue("cutAfter").flatMap({ Int($0) }) {
                let ending: OutboundSegment =
                    request.queryValue("ending") == "blackhole"
                    ? .blackhole : .close(reset: request.queryValue("ending") == "reset")
                response.shaper = RecordingShaper(registry: registry, closeAfterMessages: after, ending: ending)
            } else if let piece = request.queryValue("paced").flatMap({ Int($0) }) {
                response.shaper = RecordingShaper(registry: registry, pacedPieceBytes: piece)
            } else if request.queryValue("shaped") == "1" {
                response.shaper = RecordingShaper(registry: registry)
            }
            return response
        }
        let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        return RoutingResponder(router: router, logger: silent)
    }
}

extension RawWebSocketClient {
    /// Connects to a bare test server and upgrades `GET path`.
    static func connect(_ server: HTTPServer, path: String = "/echo") async throws -> RawWebSocketClient {
        try await connect(port: server.port ?? 0, path: path)
    }
}

extension SinkGroup {
    /// Sends one WebSocket message to every member.
    func send(_ message: PreparedWebSocketMessage) {
        send(PreparedWebSocketMessages([message]))
    }

    /// Sends WebSocket messages to every member, as one payload.
    func send(_ messages: PreparedWebSocketMessages) {
        send(StreamPayload(messages: messages, events: messages.frames.count))
    }
}
