import MockBackendHTTP
import MockBackendSupport

/// Every named stream of the app, and the timers that send their heartbeats and close
/// their idle connections.
package final class EventStreamRegistry: Sendable {
    package let journal: StreamJournal
    /// The simulated time heartbeats and idle closes run on.
    package let clock: SimulationClock
    private let streams = LockedValue<[String: EventStream]>([:])
    private let timers = LockedValue<[SimulationClock.Timer]>([])
    private let readHooks = LockedValue<[@Sendable () -> Void]>([])

    /// Events a stream keeps for replay unless its settings say otherwise.
    package let defaultRetention: Int

    /// How long a flood waits for a subscriber that takes nothing (`EventFlood`).
    package let floodPatience: Duration

    package init(
        journal: StreamJournal = StreamJournal(), clock: SimulationClock = SimulationClock(),
        defaultRetention: Int = 1000, floodPatience: Duration = .seconds(2)
    ) {
        self.journal = journal
        self.clock = clock
        self.defaultRetention = max(1, defaultRetention)
        self.floodPatience = floodPatience
    }

    /// The stream of that name, created with `settings` if it does not exist yet.
    package func stream(named name: String, settings: EventStreamSettings = EventStreamSettings()) -> EventStream {
        streams.withLock { streams in
            if let existing = streams[name] { return existing }
            let stream = EventStream(
                name: name, settings: settings, defaultRetention: defaultRetention, journal: journal, clock: clock)
            streams[name] = stream
            return stream
        }
    }

    /// The stream of that name, if it exists.
    package func existingStream(named name: String) -> EventStream? {
        runBeforeReading()
        return streams.withLock { $0[name] }
    }

    /// Forgets the stream of that name (a finished job's, past the bound on finished jobs).
    /// Connections still on it keep it until they end.
    package func remove(named name: String) {
        streams.withLock { streams in
            streams[name] = nil
            streams.shrinkIfSparse()
        }
    }

    /// Runs `body` with the relayed stream of that name (`proxy/<path>`), created if it
    /// does not exist. The stream is reserved while `body` runs (outside the registry's
    /// lock: a subscriber's end may call `removeIfUnused` at once), so a subscriber attached
    /// in `body` cannot be lost to a `removeIfUnused` of the same name meanwhile; a stream
    /// left unused once `body` is done is forgotten then.
    func withRelayStream<Result>(named name: String, _ body: (EventStream) -> Result) -> Result {
        let stream = streams.withLock { streams in
            let stream =
                streams[name]
                ?? EventStream(
                    name: name, settings: EventStreamSettings(heartbeat: false, retention: 1), defaultRetention: 1,
                    journal: journal, clock: clock)
            streams[name] = stream
            stream.relayReservations.withLock { $0 += 1 }
            return stream
        }
        defer {
            stream.relayReservations.withLock { $0 -= 1 }
            removeIfUnused(named: name)
        }
        return body(stream)
    }

    /// Forgets the stream of that name if nobody is subscribed to it and no subscriber is
    /// being attached (a proxied stream whose last connection ended).
    func removeIfUnused(named name: String) {
        streams.withLock { streams in
            guard let stream = streams[name], stream.subscriberCount == 0, stream.relayReservations.current == 0
            else { return }
            streams[name] = nil
            streams.shrinkIfSparse()
        }
    }

    /// Every stream, by name.
    package var all: [EventStream] {
        runBeforeReading()
        return streams.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }

    /// Every stream, without the work done before reading (`beforeReading`): for the
    /// timers, whose heartbeats and idle checks read no stream's log. Running the hooks
    /// there would log the admin feed's waiting request events every heartbeat.
    private var unread: [EventStream] { streams.withLock { Array($0.values) } }

    /// Adds work to do before the admin API reads streams (`all`, `existingStream`): a
    /// stream whose events wait to be logged logs them (`AdminEventFeed.flushDeferred`).
    package func beforeReading(_ hook: @escaping @Sendable () -> Void) {
        readHooks.withLock { $0.append(hook) }
    }

    private func runBeforeReading() {
        for hook in readHooks.current { hook() }
    }

    /// Forgets every stream but those named in `keeping` (after ending its connections as
    /// `reset`), and the journal.
    package func removeAll(keeping kept: Set<String> = []) {
        let removed = streams.withLock { streams in
            let removed = streams.filter { !kept.contains($0.key) }
            streams = streams.filter { kept.contains($0.key) }
            return Array(removed.values)
        }
        for stream in removed { stream.disconnect(cause: .reset) }
        journal.clear()
    }

    /// Starts the timers: heartbeat comments on every stream that wants them every
    /// `heartbeat` of simulated time (zero: none), and a check every `idleCheck` that ends
    /// connections idle past their stream's `idleTimeout`.
    package func startTimers(heartbeat: Duration, idleCheck: Duration = .seconds(1)) {
        var started: [SimulationClock.Timer] = []
        if heartbeat > .zero {
            started.append(
                clock.repeating(every: heartbeat, order: .housekeeping) { [weak self] in
                    for stream in self?.unread ?? [] { stream.sendHeartbeat() }
                })
        }
        if idleCheck > .zero {
            started.append(
                clock.repeating(every: idleCheck, order: .housekeeping) { [weak self] in
                    guard let self else { return }
                    let now = clock.now
                    for stream in unread where stream.settings.idleTimeout != nil {
                        stream.closeIdleSubscribers(now: now)
                    }
                })
        }
        let previous = timers.withLock { timers in
            defer { timers = started }
            return timers
        }
        for timer in previous { clock.cancel(timer) }
    }
}
