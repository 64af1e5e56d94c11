import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents
import TestSupport

@testable import MockBackend

/// A stream on a manual clock with its journal, and sinks to subscribe to it: the stream
/// domain without sockets. Every sink shares one manual executor, as connections share an
/// event loop; `run()` does what the loop would.
struct StreamBench {
    let clock = SimulationClock(mode: .manual)
    let journal = StreamJournal()
    let executor = ManualExecutor()
    let stream: EventStream
    private let nextConnection = Counter()

    init(name: String = "channels/test", settings: EventStreamSettings = EventStreamSettings(), retention: Int = 1000) {
        stream = EventStream(
            name: name, settings: settings, defaultRetention: retention, journal: journal, clock: clock)
    }

    /// A new sink on the bench's executor, subscribed as a client that sent `lastEventID`;
    /// everything the subscription does on the executor has run.
    @discardableResult
    func subscribe(
        lastEventID: String? = nil, audience: String? = nil, framing: StreamFraming = .eventStream,
        holding: Bool = false, client: String = "client"
    ) -> RecordingSink {
        let sink = RecordingSink(
            connectionID: nextConnection.next() + 1000, framing: framing, executor: executor, holding: holding)
        subscribe(sink, lastEventID: lastEventID, audience: audience, client: client)
        return sink
    }

    /// Subscribes `sink` (made by the test, on the bench's executor) as a client that sent
    /// `lastEventID`, and runs what the subscription queued.
    func subscribe(
        _ sink: RecordingSink, lastEventID: String? = nil, audience: String? = nil, client: String = "client"
    ) {
        var request = HTTPRequest(method: "GET", target: "/" + stream.name, headers: ["X-Client-Id": client])
        request.connectionID = sink.connectionID
        stream.attach(sink, request: request, lastEventID: lastEventID, audience: audience)
        executor.run()
    }

    /// Publishes frames with data `texts`, and runs what they queue.
    @discardableResult
    func publish(_ texts: String...) -> [LoggedEvent] {
        let logged = texts.map { stream.publish(ServerSentEvent(data: $0)) }
        executor.run()
        return logged
    }

    /// Runs the executor's waiting work.
    func run() { executor.run() }

    /// The journal's record of `sink`'s connection.
    func record(of sink: RecordingSink) -> StreamConnectionSnapshot? {
        journal.snapshots(stream: stream.name).last { $0.connection == sink.connectionID }
    }
}

/// Numbers from 1, one at a time, from any thread.
final class Counter: Sendable {
    private let value = LockedValue<UInt64>(0)

    func next() -> UInt64 {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
