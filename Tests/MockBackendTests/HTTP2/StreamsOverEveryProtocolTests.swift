import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// The same stream behaviours over HTTP/1.1, h2 (TLS, ALPN) and h2c (prior knowledge),
/// against the server in-process, with curl as the client (Debian's curl speaks h2 through
/// nghttp2): resume after Last-Event-ID, `retry:`, a resume after the last event, a dropped
/// stream, and what the journal records. `Tests/RealClients/h2_clients.py` checks the
/// frames themselves.
@Suite("Streams over every protocol, with curl")
struct StreamsOverEveryProtocolTests {
    struct CurlResult {
        var status: Int32
        var output: String
    }

    /// Where curl reaches `server` over `transport`, and the options that make it speak it.
    static func endpoint(_ server: any AppUnderTest, _ transport: Transport) -> (base: String, options: [String]) {
        switch server {
        case let http2 as HTTP2App where http2.overTLS:
            // The certificate is a fresh self-signed one: trust is not under test here.
            return ("https://127.0.0.1:\(http2.server.tlsPort ?? 0)", ["--http2", "--insecure"])
        case let http2 as HTTP2App:
            return ("http://127.0.0.1:\(http2.server.port)", ["--http2-prior-knowledge"])
        case let plain as RunningServer:
            return ("http://127.0.0.1:\(plain.port)", ["--http1.1"])
        default:
            Issue.record("\(transport) has no socket")
            return ("", [])
        }
    }

    /// Runs curl to its end (`ToolRun`). Silent: what it prints is the body alone, and a
    /// failure shows in its exit status.
    static func curl(_ arguments: [String], options: [String]) async throws -> CurlResult {
        let run = try ToolRun("/usr/bin/env", ["curl", "-s", "--max-time", "10"] + options + arguments)
        let status = await run.exitStatus() ?? -1
        return CurlResult(status: status, output: run.output)
    }

    private static let events = #"""
        {"request": {"urlPath": "/both/events"}, "response": {"sse": {"resumable": true, "retry": 2500,
          "events": [{"id": "1", "data": "one"}, {"id": "2", "data": "two"}, {"id": "3", "data": "three"}]}}}
        """#

    /// A server with the resumable stub of `events`, reached over `transport`: the server,
    /// its base URL and curl's options for it.
    private static func withEventsStub(
        over transport: Transport, _ body: (any AppUnderTest, String, [String]) async throws -> Void
    ) async throws {
        try await withApp(over: transport) { server in
            #expect(try await server.request("POST", "/__admin/mappings", body: Self.events).status == 201)
            let (base, options) = endpoint(server, transport)
            try await body(server, base, options)
        }
    }

    @Test(arguments: Transport.overSockets)
    func aStreamResumesAfterLastEventIDWithItsRetry(over transport: Transport) async throws {
        try await Self.withEventsStub(over: transport) { server, base, options in
            let whole = try await Self.curl(["-N", base + "/both/events"], options: options)
            #expect(whole.status == 0)
            #expect(whole.output == "retry: 2500\n\nid: 1\ndata: one\n\nid: 2\ndata: two\n\nid: 3\ndata: three\n\n")
            let resumed = try await Self.curl(
                ["-N", "-H", "Last-Event-ID: 2", base + "/both/events"], options: options)
            #expect(resumed.output == "id: 3\ndata: three\n\n", "\(resumed.output)")
            let journal = try await server.request("GET", "/__admin/requests?limit=2").text
            let expected: [Transport: String] = [.http11: "http/1.1", .h2: "h2", .h2c: "h2c"]
            #expect(journal.contains(#""protocol":"\#(expected[transport] ?? "")""#), "\(journal)")
            #expect(journal.contains(#""streamId""#) == (transport != .http11), "\(journal)")
        }
    }

    /// A client that read the whole stream and resumes after its last event gets the end at
    /// once, over the protocol it asked for.
    @Test(arguments: Transport.overSockets)
    func aResumeAfterTheLastEventEndsAtOnce(over transport: Transport) async throws {
        try await Self.withEventsStub(over: transport) { _, base, options in
            let result = try await Self.curl(
                [
                    "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "-H", "Last-Event-ID: 3",
                    base + "/both/events",
                ],
                options: options)
            // The resumable stub has nothing after its last event: the end of the body at once.
            #expect(result.status == 0)
            #expect(result.output.hasSuffix(transport == .http11 ? " 1.1" : " 2"), "\(result.output)")
        }
    }

    /// A drop: HTTP/1.1 loses the connection mid-body; h2 loses the stream (RST_STREAM), and
    /// curl says which. (curl drops DATA it has not written out yet when the reset comes in
    /// the same read, so over h2 the event may be missing from its output; the frames
    /// themselves are checked by `Tests/RealClients/h2_clients.py`.)
    @Test(arguments: Transport.overSockets)
    func aDroppedStreamEndsAsItsProtocolEndsIt(over transport: Transport) async throws {
        try await Self.withEventsStub(over: transport) { server, base, options in
            let fault = try await server.request(
                "POST", "/__admin/faults",
                body: #"{"match":{"path":"/both/events"},"fault":{"kind":"drop_after_events","events":1},"times":1}"#)
            #expect(fault.status == 201)
            let result = try await Self.curl(["-N", base + "/both/events"], options: options)
            let expected = "retry: 2500\n\nid: 1\ndata: one\n\n"
            if transport != .http11 {
                #expect(expected.hasPrefix(result.output), "\(result.output)")
            } else {
                #expect(result.output == expected, "\(result.output)")
            }
            // curl: 18 "transfer closed with outstanding read data"; 92 "HTTP/2 stream was not closed cleanly".
            #expect(result.status == (transport == .http11 ? 18 : 92), "\(result.status)")
        }
    }
}
