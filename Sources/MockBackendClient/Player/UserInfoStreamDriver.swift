import Foundation
import MockBackendAPI
import MockBackendSupport

/// The work of a `UserInfoStream`: its phase, its session, the event source of that
/// session, and the read loop (`UserInfoStreamDriver+Connections.swift`). It never refers to
/// the `UserInfoStream`, so the loop's task does not keep the stream alive; the stream stops
/// it when the consumer of `messages` leaves or the stream is released.
final class UserInfoStreamDriver: Sendable {
    /// Where the stream is in its life.
    enum Phase: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// Connected, or reconnecting.
        case running
        /// Closed by `suspend()` until `resume()` or `reconnectNow()`.
        case suspended
        /// Over: `stop()`, a terminal message, an error, or nobody reading any more.
        case stopped
    }

    struct State: Sendable {
        var phase = Phase.idle
        var sessionId: String
        var lastEventID: String
        var exit: SessionExpirationBody?
        /// The event source of the current session.
        var source: EventSource?
    }

    let baseURL: URL
    let userId: Int
    let configuration: UserInfoStreamConfiguration
    let sink: AsyncThrowingStream<UserInfoMessage, any Error>.Continuation
    let state: LockedValue<State>

    init(
        baseURL: URL, userId: Int, sessionId: String, configuration: UserInfoStreamConfiguration,
        sink: AsyncThrowingStream<UserInfoMessage, any Error>.Continuation
    ) {
        self.baseURL = baseURL
        self.userId = userId
        self.configuration = configuration
        self.sink = sink
        state = LockedValue(State(sessionId: sessionId, lastEventID: configuration.lastEventID ?? ""))
    }

    func start() {
        let first = state.withLock { state in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        if first { Task { await run() } }
    }

    /// Stops for good; a second call does nothing.
    func stop() {
        let (source, neverStarted) = state.withLock { state in
            defer { state.phase = .stopped }
            return (state.source, state.phase == .idle)
        }
        source?.stop()
        if neverStarted { sink.finish() }
    }

    func suspend() {
        let source = state.withLock { state -> EventSource? in
            guard state.phase == .running else { return nil }
            state.phase = .suspended
            return state.source
        }
        source?.suspend()
    }

    func resume() {
        let source = state.withLock { state -> EventSource? in
            guard state.phase == .suspended else { return nil }
            state.phase = .running
            return state.source
        }
        source?.resume()
    }

    func reconnectNow() {
        let source = state.withLock { state -> EventSource? in
            guard state.phase == .running || state.phase == .suspended else { return nil }
            state.phase = .running
            return state.source
        }
        source?.reconnectNow()
    }
}
