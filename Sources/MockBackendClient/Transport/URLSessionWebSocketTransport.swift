import Foundation
import MockBackendSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The production `WebSocketTransport`: `URLSessionWebSocketTask`, on iOS and macOS.
///
/// It compiles everywhere but does not work on Linux with the swift.org toolchains: their
/// FoundationNetworking is built against a libcurl without WebSocket support, so every
/// task fails with "WebSockets not supported by libcurl" whatever libcurl is installed.
/// Tests on Linux use `LoopbackWebSocketTransport` from `MockBackendTesting`.
///
/// URLSession answers pings and close frames itself and reports neither; a peer's close
/// frame is surfaced as `.close` from the task's `closeCode` once reading fails.
public struct URLSessionWebSocketTransport: WebSocketTransport {
    public let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Starts the task and returns at once: a refused handshake fails the first `receive()`.
    public func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
        let task = session.webSocketTask(with: request)
        task.resume()
        return URLSessionWebSocketConnection(task: task)
    }
}

/// One `URLSessionWebSocketTask`, read through `WebSocketConnection`.
final class URLSessionWebSocketConnection: WebSocketConnection {
    let task: URLSessionWebSocketTask
    /// Set by `cancel(code:)`: reading then fails with `cancelled`, not with our own close.
    private let isCancelled = LockedValue(false)

    init(task: URLSessionWebSocketTask) {
        self.task = task
    }

    func receive() async throws -> WebSocketMessage {
        do {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default: throw WebSocketTransportError.protocolViolation("an unknown kind of message")
            }
        } catch {
            if isCancelled.current { throw WebSocketTransportError.cancelled }
            // A close frame from the server ends reading with an error; the task keeps its code.
            guard task.closeCode != .invalid else { throw error }
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return .close(code: UInt16(clamping: task.closeCode.rawValue), reason: reason)
        }
    }

    func cancel(code: UInt16) {
        isCancelled.withLock { $0 = true }
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .goingAway, reason: nil)
    }
}
