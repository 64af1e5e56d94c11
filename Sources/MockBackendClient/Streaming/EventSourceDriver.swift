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
///
/// `suspend()`, `resume()` and `reconnectNow()` come from other tasks: each that changes
/// the state bumps `generation`, cancels the request in flight and wakes a waiting loop.
/// The loop feeds the machine what it saw together with the generation it saw it in, so
/// a report from a connection the app has since dropped is never taken for news.
final class EventSourceDriver: Sendable {
    struct Shared {
        var machine: ReconnectionStateMachine
        var lastEventID: String
        var task: URLSessionDataTask?
        var runner: Task<Void, Never>?
        /// Counts the lifecycle changes (`suspend`, `resume`, `reconnectNow`) so far.
        var generation: UInt64 = 0
        /// The backoff being slept.
        var sleeper: Task<Void, Never>?
        /// The loop, while it waits for a lifecycle change.
        var waiter: CheckedContinuation<Void, Never>?
        /// What the request provider threw, when that stopped the source.
        var requestError: (any Error)?
    }

    /// What the loop does next, and the generation that decision belongs to.
    typealias Step = (action: ReconnectionStateMachine.Action, generation: UInt64)

    let broadcaster = StateBroadcaster<EventSourceState>()
    let label: String
    let configuration: EventSourceConfiguration
    let shared: LockedValue<Shared>
    let clock: any Clock<Duration>
    private let requestProvider: @Sendable () async throws -> URLRequest
    private let eventSink: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private let session: StreamingSession

    init(
        label: String, configuration: EventSourceConfiguration, clock: any Clock<Duration>,
        random: @escaping @Sendable () -> Double,
        requestProvider: @escaping @Sendable () async throws -> URLRequest,
        eventSink: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    ) {
        self.label = label
        self.configuration = configuration
        self.clock = clock
        self.requestProvider = requestProvider
        self.eventSink = eventSink
        let machine = ReconnectionStateMachine(
            policy: configuration.policy, hasPollingFallback: configuration.pollingFallback != nil, clock: clock,
            random: random)
        shared = LockedValue(Shared(machine: machine, lastEventID: configuration.lastEventID ?? ""))
        session = StreamingSession(
            idleTimeout: configuration.idleTimeout, configuration: configuration.sessionConfiguration?(),
            challengeHandler: configuration.challengeHandler)
    }

    deinit {
        session.invalidate()
    }

    var state: EventSourceState { shared.withLock { $0.machine.state } }

    var lastEventID: String { shared.withLock { $0.lastEventID } }

    /// Starts the machine here, in the caller's task, so a `suspend()` or `stop()` right
    /// after `start()` finds it started; the loop then runs on a task of its own.
    func start() {
        let first = apply(.start)
        guard first.action == .connect else { return }
        shared.withLock { shared in
            guard !shared.machine.isStopped else { return }
            shared.runner = Task { [self] in await run(from: first) }
        }
    }

    func stop(_ reason: EventSourceStopReason) {
        let (action, _) = apply(.stop(reason))
        let (task, runner) = shared.withLock { ($0.task, $0.runner) }
        task?.cancel()
        runner?.cancel()
        if case .stop(let reason) = action { finish(reason) }
    }

    private func run(from first: Step) async {
        var (action, generation) = first
        var parser = SSEParser(lastEventID: lastEventID, limits: configuration.parserLimits)
        while true {
            switch action {
            case .connect:
                (action, generation) = await connectOnce(parser: &parser, generation: generation)
            case .wait(let delay):
                await sleep(for: delay, unlessChangedFrom: generation)
                if Task.isCancelled { return }
                (action, generation) = apply(.delayElapsed, generation: generation)
            case .waitForResume:
                await waitForChange(from: generation)
                if Task.isCancelled { return }
                (action, generation) = apply(.interrupted, generation: generation)
            case .startPolling:
                await configuration.pollingFallback?(lastEventID)
                (action, generation) = apply(.pollingFinished)
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

    /// The provider's request, with what an event stream needs (WHATWG HTML §9.2.3):
    /// `Accept`, no caching, and the `Last-Event-ID` to resume from.
    private func makeRequest() async throws -> URLRequest {
        var request = try await requestProvider()
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        let lastEventID = lastEventID
        if !lastEventID.isEmpty { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
        return request
    }

    /// One connection, read until it ends; returns what to do next.
    private func connectOnce(parser: inout SSEParser, generation: UInt64) async -> Step {
        // Suspended or sent elsewhere since this connection was decided: not even asked.
        if shared.withLock({ $0.generation }) != generation { return apply(.interrupted, generation: generation) }
        let request: URLRequest
        do {
            request = try await makeRequest()
        } catch {
            shared.withLock { $0.requestError = error }
            configuration.logger?.error("request provider failed", metadata: ["url": "\(label)", "error": "\(error)"])
            let next = apply(.stop(.requestFailed(String(describing: error))), generation: generation)
            // A suspension meanwhile made the failure moot: no later stop may carry it.
            if case .stop(.requestFailed) = next.action {} else { shared.withLock { $0.requestError = nil } }
            return next
        }
        guard !Task.isCancelled, let (task, transport) = session.makeTask(request) else {
            return apply(.stop(.stopped))
        }
        // Sent only if no lifecycle change came while the request was made: a `suspend()`
        // right after `start()` opens no connection at all. Resumed under the lock, so a
        // change that comes later finds the task and cancels it.
        let current = shared.withLock { shared in
            guard shared.generation == generation else { return false }
            shared.task = task
            task.resume()
            return true
        }
        guard current else {
            session.discard(task)
            return apply(.interrupted, generation: generation)
        }
        defer { shared.withLock { if $0.task === task { $0.task = nil } } }
        parser.reset()
        var opened = false
        for await event in transport {
            switch event {
            case .response(let status, let contentType):
                let next = apply(.response(status: status, contentType: contentType), generation: generation)
                guard next.action == .none else {
                    task.cancel()
                    return next
                }
                opened = true
            case .data(let data):
                if let stop = deliver(parser.feed(data), generation: generation) {
                    task.cancel()
                    return stop
                }
                let seen = parser.lastEventID
                shared.withLock { $0.lastEventID = seen }
            case .completed(let failed):
                return apply(opened && !failed ? .streamEnded : .connectionFailed, generation: generation)
            }
        }
        return apply(.connectionFailed, generation: generation)
    }

    /// Passes on what the parser found; returns the action when it ends the connection.
    private func deliver(_ outputs: [SSEParserOutput], generation: UInt64) -> Step? {
        for output in outputs {
            switch output {
            case .event(let event):
                configuration.logger?.trace(
                    "event", metadata: ["url": "\(label)", "type": "\(event.effectiveType)", "id": "\(event.id ?? "")"])
                eventSink.yield(event)
                // Asked before anything else is read, so a terminal event stops the source
                // before the stream's end could schedule a reconnection.
                if let reason = configuration.stopWhen?(event) { return apply(.stop(reason)) }
                _ = apply(.eventReceived, generation: generation)
            case .retry(let milliseconds):
                _ = apply(.retryAdvertised(milliseconds: milliseconds), generation: generation)
            case .comment:
                break
            case .limitExceeded(let error):
                return apply(.stop(.streamLimitExceeded(error)))
            }
        }
        return nil
    }

    /// Feeds the state machine and publishes a state change, in order. A report on a
    /// connection or a backoff of an earlier `generation` becomes `.interrupted`: the app
    /// has changed course since. Returns the action and the generation it belongs to.
    @discardableResult
    func apply(_ input: ReconnectionStateMachine.Input, generation: UInt64? = nil) -> Step {
        let (action, changed, after, current) = shared.withLock { shared in
            let input = generation.map { $0 == shared.generation } == false ? .interrupted : input
            let before = shared.machine.state
            let action = shared.machine.handle(input)
            let after = shared.machine.state
            let changed = before != after || input == .start
            // Published under the lock, so concurrent inputs reach subscribers in order.
            if changed { broadcaster.publish(after) }
            return (action, changed, after, shared.generation)
        }
        if changed { log(after) }
        return (action, current)
    }

    func log(_ state: EventSourceState) {
        guard let logger = configuration.logger else { return }
        let url: Logger.MetadataValue = "\(label)"
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
        case .suspended:
            logger.info("suspended", metadata: ["url": url])
        case .closed(let reason):
            let failed = EventSourceError.isFailure(reason)
            logger.log(level: failed ? .warning : .info, "stopped", metadata: ["url": url, "reason": "\(reason)"])
        }
    }

    private func finish(_ reason: EventSourceStopReason) {
        if EventSourceError.isFailure(reason) {
            let underlying = shared.withLock { $0.requestError }
            eventSink.finish(throwing: EventSourceError(reason: reason, underlyingError: underlying))
        } else {
            eventSink.finish()
        }
        broadcaster.finish()
        session.invalidate()
    }
}
