import Foundation
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event-stream client with reconnection done right: exponential backoff with jitter,
/// the server's `retry:` honoured, `Last-Event-ID` resent, a stop on 204, 401/403 or a wrong
/// content type, and a hand-over to a polling fallback when reconnection gives up.
///
/// ```swift
/// let source = EventSource(url: url, configuration: .init(policy: .generation))
/// source.start()
/// for try await event in source.events { ... }
/// ```
/// `events` ends normally when the source stops for an expected reason (204, `stop()`,
/// polling finished) and throws `EventSourceError` when it stops on a failure.
public final class EventSource: Sendable {
    private struct Shared {
        var machine: ReconnectionStateMachine
        var lastEventID: String
        var task: URLSessionDataTask?
        var runner: Task<Void, Never>?
    }

    public let url: URL
    public let configuration: EventSourceConfiguration
    /// The events, in order, across reconnections.
    public let events: AsyncThrowingStream<ServerSentEvent, any Error>
    /// Every state change, in order.
    public let states: AsyncStream<EventSourceState>
    private let eventSink: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private let stateSink: AsyncStream<EventSourceState>.Continuation
    private let shared: LockedValue<Shared>
    private let session: StreamingSession
    private let clock: any Clock<Duration>

    /// - Parameters:
    ///   - clock: what backoff delays are slept on; tests pass their own.
    ///   - random: the jitter source, returning values in 0..<1.
    public init(
        url: URL, configuration: EventSourceConfiguration = EventSourceConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.url = url
        self.configuration = configuration
        self.clock = clock
        (events, eventSink) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        (states, stateSink) = AsyncStream.makeStream(of: EventSourceState.self)
        let machine = ReconnectionStateMachine(
            policy: configuration.policy, hasPollingFallback: configuration.pollingFallback != nil, random: random)
        shared = LockedValue(Shared(machine: machine, lastEventID: configuration.lastEventID ?? ""))
        session = StreamingSession(idleTimeout: configuration.idleTimeout)
    }

    deinit {
        session.invalidate()
    }

    /// The state now.
    public var state: EventSourceState { shared.withLock { $0.machine.state } }

    /// The last event ID seen: what the next connection sends as `Last-Event-ID`.
    public var lastEventID: String { shared.withLock { $0.lastEventID } }

    /// Connects; does nothing if already started.
    public func start() {
        shared.withLock { shared in
            guard shared.runner == nil else { return }
            shared.runner = Task { [self] in await run() }
        }
    }

    /// Stops for good: no further reconnection.
    public func stop(_ reason: EventSourceStopReason = .stopped) {
        let action = apply(.stop(reason))
        let (task, runner) = shared.withLock { ($0.task, $0.runner) }
        task?.cancel()
        runner?.cancel()
        if case .stop(let reason) = action { finish(reason) }
    }

    private func run() async {
        var action = apply(.start)
        var parser = SSEParser(lastEventID: lastEventID)
        while true {
            switch action {
            case .connect:
                action = await connectOnce(parser: &parser)
            case .wait(let delay):
                do {
                    try await clock.sleep(for: delay, tolerance: nil)
                } catch {
                    return
                }
                action = apply(.delayElapsed)
            case .startPolling:
                await configuration.pollingFallback?(lastEventID)
                action = apply(.pollingFinished)
            case .stop(let reason):
                finish(reason)
                return
            case .none:
                // Only a stop from outside leaves the loop with nothing to do.
                return
            }
            if Task.isCancelled { return }
        }
    }

    /// One connection, read until it ends; returns what to do next.
    private func connectOnce(parser: inout SSEParser) async -> ReconnectionStateMachine.Action {
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        let lastEventID = lastEventID
        if !lastEventID.isEmpty { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
        guard let (task, transport) = session.start(request) else { return apply(.stop(.stopped)) }
        shared.withLock { $0.task = task }
        defer { shared.withLock { $0.task = nil } }
        parser.reset()
        var opened = false
        for await event in transport {
            switch event {
            case .response(let status, let contentType):
                let action = apply(.response(status: status, contentType: contentType))
                guard action == .none else {
                    task.cancel()
                    return action
                }
                opened = true
            case .data(let data):
                for output in parser.feed(data) {
                    switch output {
                    case .event(let event):
                        eventSink.yield(event)
                        if let reason = configuration.stopWhen?(event) {
                            task.cancel()
                            return apply(.stop(reason))
                        }
                    case .retry(let milliseconds): _ = apply(.retryAdvertised(milliseconds: milliseconds))
                    case .comment: break
                    }
                }
                let seen = parser.lastEventID
                shared.withLock { $0.lastEventID = seen }
            case .completed(let failed):
                return apply(opened && !failed ? .streamEnded : .connectionFailed)
            }
        }
        return apply(.connectionFailed)
    }

    /// Feeds the state machine and publishes a state change.
    private func apply(_ input: ReconnectionStateMachine.Input) -> ReconnectionStateMachine.Action {
        let (action, before, after) = shared.withLock { shared in
            let before = shared.machine.state
            let action = shared.machine.handle(input)
            return (action, before, shared.machine.state)
        }
        if before != after || input == .start { stateSink.yield(after) }
        return action
    }

    private func finish(_ reason: EventSourceStopReason) {
        switch reason {
        case .noContent, .stopped, .pollingFinished, .sessionOver:
            eventSink.finish()
        case .unauthorized, .wrongContentType, .httpStatus, .retriesExhausted:
            eventSink.finish(throwing: EventSourceError(reason: reason))
        }
        stateSink.finish()
        session.invalidate()
    }
}
