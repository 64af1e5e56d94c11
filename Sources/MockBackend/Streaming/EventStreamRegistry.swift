import MockBackendHTTP

/// Every named stream of the app, and the one timer that sends their heartbeats.
public final class EventStreamRegistry: Sendable {
    public let journal: StreamJournal
    private let streams = LockedValue<[String: EventStream]>([:])
    private let heartbeatTimer = LockedValue<SimulationClock.Timer?>(nil)

    /// Events a stream keeps for replay unless its settings say otherwise.
    public let defaultRetention: Int

    /// How long a flood waits for a subscriber that takes nothing (`EventFlood`).
    public let floodPatience: Duration

    public init(
        journal: StreamJournal = StreamJournal(), defaultRetention: Int = 1000, floodPatience: Duration = .seconds(2)
    ) {
        self.journal = journal
        self.defaultRetention = max(1, defaultRetention)
        self.floodPatience = floodPatience
    }

    /// The stream of that name, created with `settings` if it does not exist yet.
    public func stream(named name: String, settings: EventStreamSettings = EventStreamSettings()) -> EventStream {
        streams.withLock { streams in
            if let existing = streams[name] { return existing }
            let stream = EventStream(
                name: name, settings: settings, defaultRetention: defaultRetention, journal: journal)
            streams[name] = stream
            return stream
        }
    }

    /// The stream of that name, if it exists.
    public func existingStream(named name: String) -> EventStream? {
        streams.withLock { $0[name] }
    }

    /// Every stream, by name.
    public var all: [EventStream] {
        streams.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }

    /// Forgets every stream but those named in `keeping` (after disconnecting its
    /// subscribers), and the journal.
    public func removeAll(keeping kept: Set<String> = []) {
        let removed = streams.withLock { streams in
            let removed = streams.filter { !kept.contains($0.key) }
            streams = streams.filter { kept.contains($0.key) }
            return Array(removed.values)
        }
        for stream in removed { stream.disconnect() }
        journal.clear()
    }

    /// Sends heartbeat comments on every stream that wants them, every `interval` of
    /// simulated time.
    public func startHeartbeats(every interval: Duration, on clock: SimulationClock) {
        guard interval > .zero else { return }
        let timer = clock.repeating(every: interval) { [weak self] in
            for stream in self?.all ?? [] { stream.sendHeartbeat() }
        }
        heartbeatTimer.withLock { existing in
            if let existing { clock.cancel(existing) }
            existing = timer
        }
    }
}
