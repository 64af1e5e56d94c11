import Logging
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendHTTP

/// The request lines a server logged for `message` (`"GET /stream 200"`).
private func lines(_ message: String, in records: CapturingLogHandler.Records) -> [CapturedLogRecord] {
    records.all.filter { $0.message == message }
}

/// `duration_ms` of a record as a number.
private func milliseconds(_ record: CapturedLogRecord?) -> Double? {
    record?.metadata["duration_ms"].flatMap { Double($0) }
}

@Suite("One log line per request, however its response ends")
struct RequestLogTests {
    /// A response that takes 300 ms is logged as taking about 300 ms. Fails if the
    /// duration is reported in another unit (hundredths of a second read `0.30`).
    @Test func delayedResponseIsLoggedWithItsDurationInMilliseconds() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        try await withHTTPServer(responder: TestRoutes.responder(), logger: logger) { server in
            let client = try RawHTTPClient(server)
            #expect(try await client.get("/delayed?ms=300").text == "done")
            #expect(await eventually { !lines("GET /delayed?ms=300 200", in: records).isEmpty })
            let logged = lines("GET /delayed?ms=300 200", in: records)
            #expect(logged.count == 1)
            let duration = try #require(milliseconds(logged.first), "\(logged)")
            #expect(duration >= 290, "\(logged)")
            #expect(duration < Double(TestTiming.scale) * 5000, "\(logged)")
            #expect(logged.first?.metadata["end"] == "finished")
            #expect(logged.first?.level == .info)
        }
    }

    /// An ordinary request: one line, a small duration, ended `finished`.
    @Test func plainRequestIsLoggedOnceWithASmallDuration() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        try await withHTTPServer(responder: TestRoutes.responder(), logger: logger) { server in
            let client = try RawHTTPClient(server)
            #expect(try await client.get("/hello").text == "hello")
            #expect(await eventually { !lines("GET /hello 200", in: records).isEmpty })
            let logged = lines("GET /hello 200", in: records)
            #expect(logged.count == 1)
            let duration = try #require(milliseconds(logged.first), "\(logged)")
            #expect(duration >= 0)
            #expect(duration < Double(TestTiming.scale) * 1000, "\(logged)")
            #expect(logged.first?.metadata["end"] == "finished")
            #expect(logged.first?.metadata["connection"] != nil)
        }
    }

    /// A stream the client leaves is logged once, when it ends, as `client_closed`. Fails
    /// if only responses that are written to the end are logged.
    @Test func streamTheClientClosesIsLoggedOnce() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        let streams = StreamRegistry()
        try await withHTTPServer(responder: TestRoutes.responder(streams: streams), logger: logger) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: "open\n")
            client.close()
            #expect(await eventually { server.statistics.openConnections == 0 })
            let logged = lines("GET /stream 200", in: records)
            #expect(logged.count == 1, "\(records.all)")
            #expect(logged.first?.metadata["end"] == "client_closed")
            #expect(milliseconds(logged.first) != nil)
        }
    }

    /// Streams the server drops (a producer's abort, a reader too slow) and streams ended
    /// by a stop are each logged once with the reason.
    @Test func streamsTheServerEndsAreLoggedWithTheReason() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        let streams = StreamRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.maxUnsentStreamBytes = 256 * 1024
        try await withHTTPServer(
            configuration: configuration, responder: TestRoutes.responder(streams: streams), logger: logger
        ) { server in
            let aborted = try RawHTTPClient(server)
            try aborted.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            try await aborted.receive(untilContains: "open\n")
            streams.last?.abort(reset: false)
            #expect(await eventually { lines("GET /stream 200", in: records).count == 1 })
            #expect(lines("GET /stream 200", in: records).first?.metadata["end"] == "aborted")

            // The client asks for 8 MiB, more than the socket buffers take, and reads none of it.
            let slow = try RawHTTPClient(port: server.port ?? 0, receiveBufferSize: 4096)
            try slow.send("GET /flood?kib=8192 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await eventually { !lines("GET /flood?kib=8192 200", in: records).isEmpty })
            #expect(lines("GET /flood?kib=8192 200", in: records).map { $0.metadata["end"] } == ["slow_reader"])

            let stopped = try RawHTTPClient(server)
            try stopped.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            try await stopped.receive(untilContains: "\r\n\r\n")
            await server.stop()
            let logged = lines("GET /events 200", in: records)
            #expect(logged.map { $0.metadata["end"] } == ["server_stopping"], "\(records.all)")
            #expect(lines("GET /stream 200", in: records).count == 1)
        }
    }

    @Test func durationsAreWrittenInMillisecondsWithTwoDecimals() {
        #expect(HTTPConnection.milliseconds(.milliseconds(312) + .microseconds(450)) == "312.45")
        #expect(HTTPConnection.milliseconds(.zero) == "0.00")
        #expect(HTTPConnection.milliseconds(.microseconds(50)) == "0.05")
        #expect(HTTPConnection.milliseconds(.microseconds(1_999)) == "1.99")
        #expect(HTTPConnection.milliseconds(.seconds(2) + .microseconds(3_070)) == "2003.07")
        #expect(HTTPConnection.milliseconds(.seconds(61)) == "61000.00")
    }
}
