import Foundation
import Logging
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The connection loop of an `EventSource`: connects, parses, backs off, hands over to
/// polling, as its `ReconnectionStateMachine` says. It never refers to the `EventSource`,
/// so the task it runs on does not keep the source alive; the source stops it from
/// `deinit`.
final class EventSourceDriver: Sendable {
    private struct Shared {
        var machine: ReconnectionStateMachine
        var lastEventID: String
        var task: URLSessionDataTask?
        var runner: Task<Void, Never>?
    }

    let broadcaster = StateBroadcaster<EventSourceState>()
    private let url: URL
    private let configuration: EventSourceConfiguration
    private let eventSink: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private let shared: LockedValue<Shared>
    private let session: StreamingSession
    private let clock: any Clock<Duration>

    init(
        url: URL, configuration: EventSourceConfiguration, clock: any Clock<Duration>,
        random: @escaping @Sendable () -> Double,
        eventSink: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    ) {
        self.url = url
        self.configuration = configuration
        self.clock = clock
        self.eventSink = eventSink
        let machine = ReconnectionStateMachine(
            policy: configuration.policy, hasPollingFallback: configuration.pollingFallback != nil, clock: clock,
            random: random)
        shared = LockedValue(Shared(machine: machine, lastEventID: configuration.lastEventID ?? ""))
        session = StreamingSession(idleTimeout: configuration.idleTimeout)
    }

    deinit {
        session.invalidate()
    }

    var state: EventSourceState { shared.withLock { $0.machine.state } }

    var lastEventID: String { shared.withLock { $0.lastEventID } }

    func start() {
        shared.withLock { shared in
            guard shared.runner == nil, !shared.machine.isStopped else { return }
            shared.runner = Task { [self] in await run() }
        }
    }

    func stop(_ reason: EventSourceStopReason) {
        let action = apply(.stop(reason))
        let (task, runner) = shared.withLock { ($0.task, $0.runner) }
        task?.cancel()
        runner?.cancel()
        if case .stop(let reason) = action { finish(reason) }
    }

    private func run() async {
        var action = apply(.start)
        var parser = SSEParser(lastEventID: lastEventID, limits: configuration.parserLimits)
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
        guard !Task.isCancelled, let (task, transport) = session.start(request) else {
            return apply(.stop(.stopped))
        }
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
                if let stop = deliver(parser.feed(data)) {
                    task.cancel()
                    return stop
                }
                let seen = parser.lastEventID
                shared.withLock { $0.lastEventID = seen }
            case .completed(let failed):
                return apply(opened && !failed ? .streamEnded : .connectionFailed)
            }
        }
        return apply(.connectionFailed)
    }

    /// Passes on what the parser found; returns the action when it ends the connection.
    private func deliver(_ outputs: [SSEParserOutput]) -> ReconnectionStateMachine.Action? {
        for output in outputs {
            switch output {
            case .event(let event):
                configuration.logger?.trace(
                    "event", metadata: ["url": "\(url)", "type": "\(event.effectiveType)", "id": "\(event.id ?? "")"])
                eventSink.yield(event)
                // Asked before anything else is read, so a terminal event stops the source
                // before the stream's end could schedule a reconnection.
                if let reason = configuration.stopWhen?(event) { return apply(.stop(reason)) }
                _ = apply(.eventReceived)
            case .retry(let milliseconds):
                _ = apply(.retryAdvertised(milliseconds: milliseconds))
            case .comment:
                break
            case .limitExceeded(let error):
                return apply(.stop(.streamLimitExceeded(error)))
            }
        }
        return nil
    }

    /// Feeds the state machine and publishes a state change, in order.
    private func apply(_ input: ReconnectionStateMachine.Input) -> ReconnectionStateMachine.Action {
        let (action, changed, after) = shared.withLock { shared in
            let before = shared.machine.state
            let action = shared.machine.handle(input)
            let after = shared.machine.state
            let changed = before != after || input == .start
            // Published under the lock, so concurrent inputs reach subscribers in order.
            if changed { broadcaster.publish(after) }
            return (action, changed, after)
        }
        if changed { log(after) }
        return action
    }

    private func log(_ state: EventSourceState) {
        guard let logger = configuration.logger else { return }
        let url: Logger.MetadataValue = "\(url)"
        switch state {
        case .connecting(let attempt):
            logger.debug(
                "connecting", metadata: ["url": url, "attempt": "\(attempt)", "lastEventID": "\(lastEventID)"])
        case .open:
            logger.info("open", metadata: ["url": url])
        case .backingOff(let delay, let attempt):
            logger.info("backing off", metadata: ["url": url, "delay": "\(delay)", "attempt": "\(attempt)"])
        case .polling:
            logger.notice("reconnection gave up; polling", metadata: ["url": url])
        case .closed(let reason):
            let failed = EventSourceError.isFailure(reason)
            logger.log(level: failed ? .warning : .info, "stopped", metadata: ["url": url, "reason": "\(reason)"])
        }
    }

    private func finish(_ reason: EventSourceStopReason) {
        if EventSourceError.isFailure(reason) {
            eventSink.finish(throwing: EventSourceError(reason: reason))
        } else {
            eventSink.finish()
        }
        broadcaster.finish()
        session.invalidate()
    }
}
