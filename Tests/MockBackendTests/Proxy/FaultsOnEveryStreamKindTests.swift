import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import Testing

/// Every fault kind acts the same on the three kinds of event stream a client meets: a
/// built-in stream (a channel), an `sse` stub, and a proxied stream whose events come from
/// an upstream. Five events go out on each; the client sees the same status, the same
/// events and the same ending.
@Suite("Faults on built-in, stubbed and proxied streams")
struct FaultsOnEveryStreamKindTests {
    /// What a client saw of a stream.
    struct Outcome: Equatable, CustomStringConvertible {
        var status: Int?
        var events: [String]
        var ending: RawCloseOutcome

        var description: String { "\(status.map(String.init) ?? "no head") \(events) \(ending)" }
    }

    static let events = (1...5).map { "e\($0)" }

    static let faults: [(String, Fault)] = [
        ("status", .status(503, body: nil, retryAfter: nil)),
        ("forbidden", .forbidden(status: 403)),
        ("delay", .delay(milliseconds: 50)),
        ("latency", .latency(milliseconds: 10)),
        ("drop_after_events", .dropAfterEvents(2, reset: false)),
        ("drop_after_bytes", .dropAfterBytes(1, reset: true)),
        ("cut_inside_event", .cutInsideEvent(event: 3, afterBytes: 4, reset: false)),
        ("fragment", .fragment(.bytes(3), pauseMilliseconds: 1)),
        ("stall", .stall(afterEvents: 2, milliseconds: nil)),
        ("mute", .mute(milliseconds: nil)),
        ("blackhole", .blackhole(afterEvents: 3)),
        ("buffer", .buffer(bytes: 64 * 1024)),
        ("reset", .reset),
        ("empty_response", .emptyResponse),
        ("malformed", .malformed(.malformedResponseChunk)),
        ("refuse_stream", .refuseStream(status: 503, hang: false)),
    ]

    @Test(arguments: Self.faults.map(\.0))
    func aFaultActsAlikeOnEveryKindOfStream(kind: String) async throws {
        let fault = try #require(Self.faults.first { $0.0 == kind }?.1)
        let expected = Self.expected[kind]
        async let builtInOutcome = Self.builtIn(fault, expected: expected)
        async let stubbedOutcome = Self.stubbed(fault, expected: expected)
        async let proxiedOutcome = Self.proxied(fault, expected: expected)
        let (builtIn, stubbed, proxied) = try await (builtInOutcome, stubbedOutcome, proxiedOutcome)
        #expect(builtIn == stubbed, "\(kind): built-in \(builtIn), stub \(stubbed)")
        #expect(builtIn == proxied, "\(kind): built-in \(builtIn), proxied \(proxied)")
        #expect(builtIn == expected, "\(kind): \(builtIn)")
    }

    /// What each fault leaves a client with, the same on every kind.
    static let expected: [String: Outcome] = [
        "status": Outcome(status: 503, events: [], ending: .stillOpen),
        "forbidden": Outcome(status: 403, events: [], ending: .stillOpen),
        "delay": Outcome(status: 200, events: events, ending: .stillOpen),
        "latency": Outcome(status: 200, events: events, ending: .stillOpen),
        "drop_after_events": Outcome(status: 200, events: ["e1", "e2"], ending: .fin),
        "drop_after_bytes": Outcome(status: 200, events: [], ending: .reset),
        "cut_inside_event": Outcome(status: 200, events: ["e1", "e2"], ending: .fin),
        "fragment": Outcome(status: 200, events: events, ending: .stillOpen),
        "stall": Outcome(status: 200, events: ["e1", "e2"], ending: .stillOpen),
        "mute": Outcome(status: 200, events: [], ending: .stillOpen),
        "blackhole": Outcome(status: 200, events: ["e1", "e2", "e3"], ending: .stillOpen),
        "buffer": Outcome(status: nil, events: [], ending: .stillOpen),
        "reset": Outcome(status: nil, events: [], ending: .reset),
        "empty_response": Outcome(status: nil, events: [], ending: .fin),
        "malformed": Outcome(status: 200, events: [], ending: .fin),
        "refuse_stream": Outcome(status: 503, events: [], ending: .stillOpen),
    ]

    // MARK: The three kinds

    /// How long to wait for the subscriber: long for a fault that lets events through (it
    /// must come), short for one that may answer in the stream's place.
    static func subscriptionWait(_ expected: Outcome?) -> Duration {
        expected?.events.isEmpty == false ? .seconds(5) : .milliseconds(500)
    }

    static func builtIn(_ fault: Fault, expected: Outcome?) async throws -> Outcome {
        try await withRunningServer { server in
            try await server.admin.faults.add(fault, match: .init(path: "/sse/channels/f"))
            return try await observe(server, target: "/sse/channels/f", expected: expected) {
                let subscribed = await eventually(timeout: Self.subscriptionWait(expected)) {
                    server.subscribers(of: "channels/f") == 1
                }
                // A fault that lets events through lets the subscription through too.
                if expected?.events.isEmpty == false { #expect(subscribed, "no subscriber for \(fault)") }
                guard subscribed else { return }
                for event in events { server.publish("channels/f", event) }
            }
        }
    }

    static func stubbed(_ fault: Fault, expected: Outcome?) async throws -> Outcome {
        try await withRunningServer { server in
            let parts = events.map { #"{"data":"\#($0)"}"# }.joined(separator: ",")
            let stub = try await server.request(
                "POST", "/__admin/mappings",
                body: #"{"request":{"urlPath":"/f"},"response":{"sse":{"events":[\#(parts)],"close":false}}}"#)
            #expect(stub.status == 201)
            try await server.admin.faults.add(fault, match: .init(path: "/f"))
            return try await observe(server, target: "/f", expected: expected) {}
        }
    }

    static func proxied(_ fault: Fault, expected: Outcome?) async throws -> Outcome {
        try await withProxiedUpstream { upstream, proxy in
            try await proxy.admin.faults.add(fault, match: .init(path: "/sse/channels/f"))
            return try await observe(proxy, target: "/sse/channels/f", expected: expected) {
                let subscribed = await eventually(timeout: Self.subscriptionWait(expected)) {
                    upstream.subscribers(of: "channels/f") == 1
                }
                // A fault that lets events through lets the subscription through too.
                if expected?.events.isEmpty == false { #expect(subscribed, "no subscriber for \(fault)") }
                guard subscribed else { return }
                for event in events { upstream.publish("channels/f", event) }
            }
        }
    }

    /// Opens `target`, runs `publish`, and reads until the client has what `expected` says
    /// (or 10 s have passed): its events, and its end unless it stays open; one that should
    /// stay open is watched 300 ms more.
    static func observe(
        _ server: RunningServer, target: String, expected: Outcome?, publish: () async throws -> Void
    ) async throws -> Outcome {
        let client = try server.connect()
        defer { client.close() }
        try client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try await publish()
        func seen(_ ending: RawCloseOutcome) -> Outcome {
            let text = String(decoding: client.buffer, as: UTF8.self)
            let status = text.hasPrefix("HTTP/1.1 ") ? Int(text.dropFirst(9).prefix(3)) : nil
            let events = status == 200 ? eventData(client.streamedBody) : []
            return Outcome(status: status, events: events, ending: ending)
        }
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(10))
        var ending = RawCloseOutcome.stillOpen
        while ContinuousClock.now < deadline {
            let current = seen(.stillOpen)
            if let expected, expected.ending == .stillOpen, current.status == expected.status,
                current.events == expected.events
            {
                break
            }
            ending = await client.waitForClose(timeout: .milliseconds(100))
            if ending != .stillOpen { break }
        }
        if ending == .stillOpen { ending = await client.waitForClose(timeout: .milliseconds(300)) }
        return seen(ending)
    }
}

extension RunningServer {
    /// Subscribers of the stream `name` now.
    fileprivate func subscribers(of name: String) -> Int {
        app.streams.existingStream(named: name)?.subscriberCount ?? 0
    }
}
