import Foundation
import Logging
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting

/// Streams opened through `GET /stream`, so a test can write to them and see them end.
final class StreamRegistry: Sendable {
    let writers = LockedValue<[any StreamSink]>([])
    let endReasons = LockedValue<[StreamEndReason]>([])

    func add(_ writer: any StreamSink) {
        writers.withLock { $0.append(writer) }
        writer.onEnd { [endReasons] reason in endReasons.withLock { $0.append(reason) } }
    }

    var last: (any StreamSink)? { writers.current.last }
}

/// Holds the event loops of the connections that request `GET /block` until `open()`,
/// so a test can let timers expire and bytes arrive while a loop cannot run them.
final class LoopGate: Sendable {
    private let state = LockedValue((blocked: [UInt64](), isOpen: false))
    private let semaphore = DispatchSemaphore(value: 0)

    /// The connections whose requests were held so far (still held or let go), in order.
    var blockedConnections: [UInt64] { state.withLock { $0.blocked } }

    /// Blocks the calling thread until `open()`; returns at once once it has been called.
    func block(connection: UInt64) {
        let isOpen = state.withLock { state in
            if !state.isOpen { state.blocked.append(connection) }
            return state.isOpen
        }
        if !isOpen { semaphore.wait() }
    }

    /// Lets every held responder go, and every later one through. Later calls do nothing.
    func open() {
        let waiting = state.withLock { state in
            defer { state.isOpen = true }
            return state.isOpen ? 0 : state.blocked.count
        }
        for _ in 0..<waiting { semaphore.signal() }
    }
}

/// Routes for exercising the HTTP core.
enum TestRoutes {
    static func responder(
        streams: StreamRegistry = StreamRegistry(), gate: LoopGate = LoopGate(), middleware: [any HTTPMiddleware] = []
    ) -> RoutingResponder {
        var router = Router()
        router.get("/hello") { _ in .text("hello") }
        router.get("/whoami") { request in .text("\(request.connectionID)") }
        router.get("/block") { request in
            // Runs on the connection's event loop: nothing else on that loop runs meanwhile.
            gate.block(connection: request.connectionID)
            return .text("unblocked")
        }
        router.get("/delayed") { request in
            // A stream that ends `ms` milliseconds after it starts.
            let delay = request.queryValue("ms").flatMap { Int($0) } ?? 300
            return .stream(headers: ["Content-Type": "text/plain"]) { writer in
                streams.add(writer)
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
                    writer.write("done")
                    writer.finish()
                }
            }
        }
        router.post("/echo") { request in
            HTTPResponse(
                status: 200, headers: ["Content-Type": request.headers["Content-Type"] ?? "application/octet-stream"],
                body: .bytes(request.body))
        }
        router.get("/items/{id}") { request in .text("item \(request.pathParameters["id"] ?? "")") }
        router.get("/no-content") { _ in HTTPResponse(status: 204) }
        router.get("/fail") { _ in throw CocoaError(.fileNoSuchFile) }
        router.get("/stream") { _ in
            .stream(headers: ["Content-Type": "text/plain"]) { writer in
                streams.add(writer)
                writer.write("open\n")
            }
        }
        router.get("/json") { request in
            // A JSON array of `bytes` bytes (at least 2).
            let size = max(2, request.queryValue("bytes").flatMap { Int($0) } ?? 2048)
            return .json(bytes: Array(("[" + String(repeating: " ", count: size - 2) + "]").utf8))
        }
        router.get("/events") { _ in
            .stream(headers: ["Content-Type": MediaType.eventStream]) { writer in
                streams.add(writer)
            }
        }
        router.get("/flood") { request in
            // Writes `kib` KiB at once, as a broadcaster would: more than the kernel's
            // socket buffers and the unsent-bytes bound together.
            let kib = request.queryValue("kib").flatMap { Int($0) } ?? 32 * 1024
            return .stream(headers: ["Content-Type": "text/plain"]) { writer in
                streams.add(writer)
                let line = Array(repeating: UInt8(ascii: "x"), count: 1023) + [10]
                for _ in 0..<kib { writer.write(line) }
            }
        }
        let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        return RoutingResponder(router: router, middleware: middleware, logger: silent)
    }
}

extension RawHTTPClient {
    /// Connects to a bare test server.
    convenience init(_ server: HTTPServer) throws {
        try self.init(port: server.port ?? 0)
    }
}
