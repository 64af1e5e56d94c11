import Dispatch
import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// The same stream behaviours over HTTP/1.1 and over HTTP/2 with prior knowledge (h2c),
/// against the server in-process, with curl as the client (Debian's curl speaks h2 through
/// nghttp2): resume after Last-Event-ID, `retry:`, a resume after the last event, a dropped
/// stream, and what the journal records. `Tests/RealClients/h2_clients.py` covers h2 over
/// TLS and the frames themselves.
@Suite("Streams over HTTP/1.1 and h2c")
struct StreamsOverEveryProtocolTests {
    enum WireProtocol: String, CaseIterable, Sendable {
        case http11 = "http/1.1"
        case h2c

        var curlOption: String { self == .http11 ? "--http1.1" : "--http2-prior-knowledge" }
    }

    struct CurlResult {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs curl off the cooperative threads (it blocks until the answer ends).
    static func curl(_ arguments: [String], over version: WireProtocol) async throws -> CurlResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["curl", "-s", "-S", "--max-time", "10", version.curlOption] + arguments
                let output = Pipe()
                let error = Pipe()
                process.standardOutput = output
                process.standardError = error
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let out = output.fileHandleForReading.readDataToEndOfFile()
                let err = error.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: CurlResult(
                        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                        error: String(decoding: err, as: UTF8.self)))
            }
        }
    }

    private static let events = #"""
        {"request": {"urlPath": "/both/events"}, "response": {"sse": {"resumable": true, "retry": 2500,
          "events": [{"id": "1", "data": "one"}, {"id": "2", "data": "two"}, {"id": "3", "data": "three"}]}}}
        """#

    /// A server with the resumable stub of `events`, and its base URL.
    private static func withEventsStub(_ body: (RunningServer, String) async throws -> Void) async throws {
        try await withRunningServer { server in
            #expect(try await server.request("POST", "/__admin/mappings", body: Self.events).status == 201)
            try await body(server, "http://127.0.0.1:\(server.port)")
        }
    }

    @Test(arguments: WireProtocol.allCases)
    func aStreamResumesAfterLastEventIDWithItsRetry(_ version: WireProtocol) async throws {
        try await Self.withEventsStub { server, base in
            let whole = try await Self.curl(["-N", base + "/both/events"], over: version)
            #expect(whole.status == 0, "\(whole.error)")
            #expect(whole.output == "retry: 2500\n\nid: 1\ndata: one\n\nid: 2\ndata: two\n\nid: 3\ndata: three\n\n")
            let resumed = try await Self.curl(["-N", "-H", "Last-Event-ID: 2", base + "/both/events"], over: version)
            #expect(resumed.output == "id: 3\ndata: three\n\n", "\(resumed.output)")
            let journal = try await server.request("GET", "/__admin/requests?limit=2").text
            #expect(journal.contains(#""protocol":"\#(version.rawValue)""#), "\(journal)")
            #expect(journal.contains(#""streamId""#) == (version == .h2c), "\(journal)")
        }
    }

    /// A client that read the whole stream and resumes after its last event gets the end at
    /// once, over the protocol it asked for.
    @Test(arguments: WireProtocol.allCases)
    func aResumeAfterTheLastEventEndsAtOnce(_ version: WireProtocol) async throws {
        try await Self.withEventsStub { _, base in
            let result = try await Self.curl(
                [
                    "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "-H", "Last-Event-ID: 3",
                    base + "/both/events",
                ],
                over: version)
            // The resumable stub has nothing after its last event: the end of the body at once.
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.hasSuffix(version == .h2c ? " 2" : " 1.1"), "\(result.output)")
        }
    }

    /// A drop: HTTP/1.1 loses the connection mid-body; h2 loses the stream (RST_STREAM), and
    /// curl says which. (curl drops DATA it has not written out yet when the reset comes in
    /// the same read, so over h2 the event may be missing from its output; the frames
    /// themselves are checked by `Tests/RealClients/h2_clients.py`.)
    @Test(arguments: WireProtocol.allCases)
    func aDroppedStreamEndsAsItsProtocolEndsIt(_ version: WireProtocol) async throws {
        try await Self.withEventsStub { server, base in
            let fault = try await server.request(
                "POST", "/__admin/faults",
                body: #"{"match":{"path":"/both/events"},"fault":{"kind":"drop_after_events","events":1},"times":1}"#)
            #expect(fault.status == 201)
            let result = try await Self.curl(["-N", base + "/both/events"], over: version)
            let expected = "retry: 2500\n\nid: 1\ndata: one\n\n"
            if version == .h2c {
                #expect(expected.hasPrefix(result.output), "\(result.output)")
            } else {
                #expect(result.output == expected, "\(result.output)")
            }
            // curl: 18 "transfer closed with outstanding read data"; 92 "HTTP/2 stream was not closed cleanly".
            #expect(result.status == (version == .h2c ? 92 : 18), "\(result.status) \(result.error)")
        }
    }
}
