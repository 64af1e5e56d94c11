// A minimal Hummingbird server used as the comparison peer in bench/run.sh and
// bench/sse/run.sh:
//
//   GET  /health   -> {"status":"ok"}                 (bench/run.sh)
//   GET  /sse      -> a text/event-stream that receives every broadcast event
//   POST /publish  {"data":"...","count":N} -> broadcasts N events (ids 1, 2, ...) to every
//                  current subscriber; answers {"id":"<last id>","delivered":<subscribers>}
//
// The SSE part follows hummingbird-examples/server-sent-events: a publisher hands each
// subscriber an AsyncStream, the response body writes what the stream yields, and
// `consumeWithInboundCloseHandler` unsubscribes when the client goes away (the example's
// graceful-shutdown handler is left out: it needs swift-service-lifecycle as a direct
// dependency, and the benchmark closes every stream before stopping the server). Each event is
// encoded once into one ByteBuffer that every subscriber's stream shares (copy-on-write).
//
// Usage: HummingbirdPeer [PORT]   (or PORT=... in the environment; 0 = pick a free port)
// Listens on 127.0.0.1 only. Once bound it prints one line to stdout:
//   hummingbird listening on http://127.0.0.1:PORT
import Foundation
import Hummingbird
import Logging
import Synchronization

let arguments = CommandLine.arguments
let portText = arguments.count > 1 ? arguments[1] : (ProcessInfo.processInfo.environment["PORT"] ?? "8080")
guard let port = Int(portText), (0...65535).contains(port) else {
    FileHandle.standardError.write(Data("invalid port: \(portText)\n".utf8))
    exit(2)
}

let body = ByteBuffer(string: #"{"status":"ok"}"#)

/// Every live SSE subscriber, and the id of the last event.
final class Broadcaster: Sendable {
    private struct State {
        var nextSubscriber: UInt64 = 0
        var lastEventID: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<ByteBuffer>.Continuation] = [:]
    }

    private let state = Mutex(State())

    func subscribe() -> (AsyncStream<ByteBuffer>, UInt64) {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        return (stream, id)
    }

    func unsubscribe(_ id: UInt64) {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: id) }
        continuation?.finish()
    }

    /// Broadcasts `count` events with data `data`; returns the last id and the number of subscribers.
    func publish(data: String, count: Int) -> (lastID: UInt64, subscribers: Int) {
        state.withLock { state in
            for _ in 0..<count {
                state.lastEventID += 1
                let event = ByteBuffer(string: "id: \(state.lastEventID)\ndata: \(data)\n\n")
                for continuation in state.subscribers.values { continuation.yield(event) }
            }
            return (state.lastEventID, state.subscribers.count)
        }
    }
}

struct PublishRequest: Decodable {
    var data: String
    var count: Int?
}

struct PublishResult: ResponseEncodable {
    var id: String
    var delivered: Int
}

let broadcaster = Broadcaster()
let router = Router()
router.get("health") { _, _ -> Response in
    Response(
        status: .ok,
        headers: [.contentType: "application/json"],
        body: ResponseBody(byteBuffer: body)
    )
}
router.get("sse") { request, _ -> Response in
    Response(
        status: .ok,
        headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
        body: ResponseBody { writer in
            let (events, id) = broadcaster.subscribe()
            // Ends the loop (by finishing the stream) when the client closes the connection.
            try await request.body.consumeWithInboundCloseHandler { _ in
                for await event in events {
                    try await writer.write(event)
                }
            } onInboundClosed: {
                broadcaster.unsubscribe(id)
            }
            broadcaster.unsubscribe(id)
            try await writer.finish(nil)
        }
    )
}
router.post("publish") { request, context -> PublishResult in
    let publish = try await request.decode(as: PublishRequest.self, context: context)
    let count = publish.count ?? 1
    guard (1...1_000_000).contains(count) else { throw HTTPError(.badRequest, message: "count must be 1...1000000") }
    let result = broadcaster.publish(data: publish.data, count: count)
    return PublishResult(id: String(result.lastID), delivered: result.subscribers)
}

var logger = Logger(label: "hummingbird-peer")
logger.logLevel = .warning

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        let bound = channel.localAddress?.port ?? port
        print("hummingbird listening on http://127.0.0.1:\(bound)")
        fflush(nil)
    },
    logger: logger
)
try await app.runService()
