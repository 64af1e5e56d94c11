import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

/// Plays an `sse` or `webSocket` stub to one client as a stream of the mock: subscribed to
/// `replay/<path>` (listed, journaled with the ids it writes, pushable between its writes,
/// disconnectable, its events and messages counted by the faults), each write when the
/// simulation clock reaches its offset — on the real clock as recorded, under
/// `--clock manual` when `clock/advance` passes it — then ended as the stub says.
///
/// Offsets count from when the request was answered, not from the write before: a late
/// timer does not push every later write back.
final class StubReplay: Sendable {
    /// What a replay uses of the app.
    struct Services: Sendable {
        let streams: EventStreamRegistry
        let clock: SimulationClock
        let events: AdminEventFeed
    }

    /// One write of the stream.
    enum Write: Sendable {
        /// Event stream bytes, byte for byte.
        case bytes([UInt8])
        /// A WebSocket message.
        case message(PreparedWebSocketMessage)
    }

    /// What happens after the last write.
    enum Ending: Sendable, Equatable {
        /// The body's end (chunked terminator).
        case clean
        /// FIN, without the body's end.
        case fin
        /// RST.
        case rst
        /// Nothing: the stream stays open until the client or an admin ends it.
        case open
        /// A WebSocket closing handshake.
        case close(code: UInt16, reason: String)
    }

    private struct State {
        var sink: (any StreamSink)?
        var stream: EventStream?
        var record: StreamConnectionRecord?
        var next = 0
        /// The clock's timer for the next write, while one is set.
        var timer: SimulationClock.Timer?
        var splitter = SSEBlockSplitter()
        var stopped = false
    }

    /// The writes, each with its offset from the start of the client's stream.
    private let writes: [(offset: Duration, write: Write)]
    private let ending: Ending
    private let request: HTTPRequest
    private let lastEventID: String?
    private let services: Services
    /// When the stream started on the simulation clock: when the request was answered, not
    /// when the connection got round to starting the body (a clock advanced in between
    /// counts).
    private let origin: Duration
    private let state = LockedValue(State())

    init(writes: [(offset: Duration, write: Write)], ending: Ending, request: HTTPRequest, services: Services) {
        self.writes = writes
        self.ending = ending
        self.request = request
        lastEventID = SSEEndpoint.lastEventID(of: request)
        self.services = services
        origin = services.clock.now
    }

    /// An `sse` stub's replay: for a resumable stub, a client that sends `Last-Event-ID`
    /// (or `?lastEventId=`) with an id the stub writes resumes right after that event, the
    /// rest keeping their delays.
    convenience init(_ stub: StubEventStream, request: HTTPRequest, services: Services) {
        let lastEventID = stub.resumable ? SSEEndpoint.lastEventID(of: request) : nil
        let ending: Ending =
            switch stub.ending {
            case .clean: .clean
            case .fin: .fin
            case .rst: .rst
            case .open: .open
            }
        self.init(
            writes: Self.writes(of: stub, resumingAfter: lastEventID).map { ($0.0, .bytes($0.1)) }, ending: ending,
            request: request, services: services)
    }

    /// A `webSocket` stub's replay.
    convenience init(_ script: StubWebSocketScript, request: HTTPRequest, services: Services) {
        var offset = Duration.zero
        let writes = script.messages.map { message -> (Duration, Write) in
            offset += .milliseconds(message.delayMilliseconds)
            return (offset, .message(message.message))
        }
        self.init(
            writes: writes, ending: script.close.map { .close(code: $0.code, reason: $0.reason) } ?? .open,
            request: request, services: services)
    }

    /// `replay/<path>`: the name a played stream is listed under.
    static func streamName(of request: HTTPRequest) -> String {
        EventStream.replayPrefix + (request.path.hasPrefix("/") ? request.path.dropFirst() : request.path[...])
    }

    /// Subscribes `sink` and starts the clock on its writes.
    func start(_ sink: any StreamSink) {
        let streams = services.streams
        let (stream, record) = streams.withRelayStream(named: Self.streamName(of: request)) { stream in
            let record = stream.attachRelay(
                sink, request: request, lastEventID: lastEventID, events: services.events, proxied: false
            ) { [weak self] in
                self?.stop()
                streams.removeIfUnused(named: stream.name)
            }
            return (stream, record)
        }
        state.withLock { state in
            state.sink = sink
            state.stream = stream
            state.record = record
        }
        playDue()
    }

    /// The writes of `stub` with their offsets from the start, from just after the event
    /// with id `lastEventID` when the stub writes one (what came with it in the same write
    /// goes at once), else all of them.
    static func writes(of stub: StubEventStream, resumingAfter lastEventID: String?) -> [(Duration, [UInt8])] {
        let resumeAt = lastEventID.flatMap { resumeOffset(in: stub, after: $0) } ?? 0
        var writes: [(Duration, [UInt8])] = []
        var offset = Duration.zero
        var partStart = 0
        for part in stub.parts {
            defer { partStart += part.bytes.count }
            let partEnd = partStart + part.bytes.count
            if partEnd <= resumeAt { continue }
            if partStart < resumeAt {
                writes.append((.zero, Array(part.bytes[(resumeAt - partStart)...])))
                continue
            }
            offset += .milliseconds(part.delayMilliseconds)
            writes.append((offset, part.bytes))
        }
        return writes
    }

    /// Where in the stub's bytes, all writes together, the first event with id `id` ends.
    private static func resumeOffset(in stub: StubEventStream, after id: String) -> Int? {
        // The splitter hands the bytes on unchanged, so blocks laid end to end are the
        // stream's bytes up to the last block's end.
        var splitter = SSEBlockSplitter()
        var end = 0
        for part in stub.parts {
            for block in splitter.feed(part.bytes) {
                end += block.bytes.count
                if block.isEvent, block.id == id { return end }
            }
        }
        return nil
    }

    // MARK: Playing

    /// Writes every write that is due, then sets the clock for the next one, or ends the
    /// stream after the last. A write due now goes at once, under a manual clock too.
    private func playDue() {
        let clock = services.clock
        while true {
            let step = state.withLock { state -> Step in
                guard !state.stopped, let stream = state.stream, let sink = state.sink else { return .stop }
                guard state.next < writes.count else { return .end }
                let delay = origin + writes[state.next].offset - clock.now
                guard delay <= .zero else { return .wait(delay) }
                let write = writes[state.next].write
                state.next += 1
                var blocks: [SSEBlock] = []
                if case .bytes(let bytes) = write { blocks = state.splitter.feed(bytes) }
                return .write(stream, sink.connectionID, write, blocks)
            }
            switch step {
            case .stop:
                return
            case .end:
                end()
                return
            case .wait(let delay):
                // The clock holds the replay until its next write: nothing else keeps it.
                let timer = clock.schedule(after: delay) { self.playDue() }
                state.withLock { state in
                    if state.stopped {
                        clock.cancel(timer)
                    } else {
                        state.timer = timer
                    }
                }
                return
            case .write(let stream, let connection, .bytes(let bytes), let blocks):
                stream.relay(bytes, completing: blocks, toConnection: connection)
            case .write(let stream, let connection, .message(let message), _):
                stream.relay(message, toConnection: connection)
            }
        }
    }

    private enum Step {
        case stop
        case end
        case wait(Duration)
        case write(EventStream, UInt64, Write, [SSEBlock])
    }

    /// Ends the client's stream as the stub says.
    private func end() {
        let (sink, record) = state.withLock { ($0.sink, $0.record) }
        guard let sink else { return }
        switch ending {
        case .open:
            return
        case .clean:
            record?.noteEnding(.finished)
            sink.finish(.complete)
        case .close(let code, let reason):
            record?.noteEnding(.finished)
            if let socket = sink as? WebSocketWriter {
                socket.close(code: WebSocketCloseCode(rawValue: code), reason: reason)
            } else {
                sink.finish(.complete)
            }
        case .fin, .rst:
            sink.nameEnd((record?.noteEnding(.upstreamClosed) ?? .upstreamClosed).rawValue)
            sink.abort(reset: ending == .rst)
        }
    }

    /// The client's stream ended: no more writes.
    private func stop() {
        let timer = state.withLock { state -> SimulationClock.Timer? in
            state.stopped = true
            state.sink = nil
            defer { state.timer = nil }
            return state.timer
        }
        if let timer { services.clock.cancel(timer) }
    }
}
