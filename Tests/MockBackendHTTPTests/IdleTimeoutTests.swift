import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendHTTP

/// How requests paced on one connection went.
private enum PacedRun {
    /// Every request was answered; the last was sent from this instant on.
    case answered(lastSent: ContinuousClock.Instant)
    /// The client itself paused for the server's timeout or longer between two requests
    /// (a loaded machine), and the connection was closed: the server was right to, and
    /// the run proves nothing.
    case clientStalled
}

@Suite("The idle timeout measures idleness")
struct IdleTimeoutTests {
    private static let timeout = TestTiming.scaled(.milliseconds(500))

    /// Sends `request` and reads its response. A timeout the server runs between two
    /// requests (idle, or for the head of the next) starts no earlier than the first was
    /// sent and ends once the second has arrived, so a request sent less than `timeout`
    /// after `previousSent` must be answered. Returns nil if the exchange failed after the
    /// client itself paused longer (a loaded machine): the server was then right to close.
    private static func exchange(
        _ request: String, on client: RawHTTPClient, previousSent: ContinuousClock.Instant
    ) async throws -> RawResponse? {
        var sent: ContinuousClock.Instant?
        do {
            try client.send(request)
            sent = ContinuousClock.now
            return try await client.readResponse()
        } catch {
            if (sent ?? ContinuousClock.now) - previousSent >= timeout { return nil }
            throw error
        }
    }

    /// Sends `request` on `client` every 100 ms for three timeouts and checks each answer
    /// (see `exchange`). `connectedAfter` is an instant before the connection was made.
    private static func pacedRequests(
        _ request: String, answer: String, on client: RawHTTPClient, connectedAfter: ContinuousClock.Instant
    ) async throws -> PacedRun {
        var previousSent = connectedAfter
        while ContinuousClock.now - connectedAfter < timeout * 3 {
            let sending = ContinuousClock.now
            guard let response = try await exchange(request, on: client, previousSent: previousSent) else {
                return .clientStalled
            }
            #expect(response.text == answer)
            #expect(response.headers["Connection"] == nil)
            previousSent = sending
            try await Task.sleep(for: .milliseconds(100))
        }
        return .answered(lastSent: previousSent)
    }

    /// A request every 100 ms for three idle timeouts: the connection is never idle that
    /// long, so every request is answered on it. Once the client stops, the connection is
    /// closed one idle timeout after the last response, not earlier. Fails if the idle
    /// deadline is armed once and never moved on: the connection is then closed one idle
    /// timeout after its first response, while requests keep coming.
    @Test func busyKeepAliveConnectionIsAnsweredEveryTimeAndClosedOnlyOnceIdle() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = Self.timeout
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            for _ in 0..<3 {
                let connecting = ContinuousClock.now
                let client = try RawHTTPClient(server)
                let run = try await Self.pacedRequests(
                    "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n", answer: "hello", on: client, connectedAfter: connecting)
                guard case .answered(let lastSent) = run else { continue }
                // The upper bound: the wait's timeout, scaled by the test time scale and far
                // below the default idle timeout. A loaded machine may notice the close late.
                #expect(await client.waitForClose(timeout: .seconds(10)) == .fin)
                // The idle clock starts when the last response ends, after it was requested.
                let idle = ContinuousClock.now - lastSent
                #expect(idle >= Self.timeout, "closed after \(idle) idle")
                return
            }
        }
    }

    /// A connection that goes quiet after one response is closed one idle timeout later.
    @Test func idleConnectionIsClosedAfterTheIdleTimeout() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = .milliseconds(300)
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            let requested = ContinuousClock.now
            #expect(try await client.get("/hello").status == 200)
            // The upper bound is the wait's scaled timeout, as above.
            #expect(await client.waitForClose(timeout: .seconds(10)) == .fin)
            let idle = ContinuousClock.now - requested
            #expect(idle >= .milliseconds(300), "closed \(idle) after the request")
        }
    }

    /// A client that pipelines, so the start of its next request is always sent with the
    /// previous one, is never idle and never slow with a head: each response restarts the
    /// clock of the request behind it. Fails if the header deadline armed at accept is
    /// kept for as long as some request is partly received.
    @Test func pipeliningClientIsNotCutByTheHeaderTimeout() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.headerTimeout = Self.timeout
        configuration.idleTimeout = Self.timeout
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            for _ in 0..<3 {
                let connecting = ContinuousClock.now
                let client = try RawHTTPClient(server)
                try client.send("GET /hel")
                let run = try await Self.pacedRequests(
                    "lo HTTP/1.1\r\nHost: t\r\n\r\nGET /hel", answer: "hello", on: client, connectedAfter: connecting)
                guard case .answered(let lastSent) = run,
                    let last = try await Self.exchange(
                        "lo HTTP/1.1\r\nHost: t\r\n\r\n", on: client, previousSent: lastSent)
                else { continue }
                #expect(last.text == "hello")
                return
            }
        }
    }

    /// RFC 9112 §9.6: a request that reaches an idle connection as its idle deadline fires
    /// is answered, not dropped. The connection's event loop is held while the deadline
    /// passes and the request arrives, so both wait for the loop at once, the deadline
    /// first. Fails if the deadline closes the connection without looking for input: the
    /// client then sees the connection end instead of a response.
    @Test func requestArrivingAsTheIdleDeadlineFiresIsAnswered() async throws {
        // The loop must be held before the deadline passes; on a loaded machine it may not
        // be, and a longer timeout is tried.
        for attempt in 1...3 {
            var configuration = HTTPServerConfiguration()
            configuration.idleTimeout = Self.timeout * attempt
            if try await Self.requestArrivesAsTheIdleDeadlineFires(configuration) { return }
        }
    }

    /// One run of the test above; false if the loop was held too late to tell anything.
    private static func requestArrivesAsTheIdleDeadlineFires(_ configuration: HTTPServerConfiguration)
        async throws -> Bool
    {
        let gate = LoopGate()
        return try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder(gate: gate)) {
            server in
            defer { gate.open() }
            let client = try RawHTTPClient(server)
            // The server's idle clock starts between these two instants.
            let requested = ContinuousClock.now
            let id = try #require(UInt64(try await client.get("/whoami").text))
            let answered = ContinuousClock.now
            // Connections get ids in turn and are spread over the loops by id: the one
            // `loops` after the client is on its loop. Those in between send nothing.
            let loops = Platform.usableProcessorCount
            var others: [RawHTTPClient] = []
            for _ in 0..<loops { others.append(try RawHTTPClient(server)) }
            let neighbour = others[loops - 1]
            try neighbour.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await eventually { !gate.blockedConnections.isEmpty })
            #expect(gate.blockedConnections == [id + UInt64(loops)])
            // Held before the deadline, which passes while the loop is held.
            guard ContinuousClock.now - requested < configuration.idleTimeout else { return false }
            try await Task.sleep(until: answered + configuration.idleTimeout + .milliseconds(200), clock: .continuous)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            gate.open()
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(try await neighbour.readResponse().text == "unblocked")
            return true
        }
    }
}
