import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// The request and stream journals show the RST_STREAM and GOAWAY frames that ended an
/// h2 exchange, sent by the server or by the client, with their codes.
@Suite("HTTP/2 endings in the journals")
struct HTTP2EndingJournalTests {
    static let http2: [Transport] = Transport.overSockets.filter { $0 != .http11 }

    /// Opens `/sse/channels/NAME` and waits until it is subscribed.
    private func open(_ server: any AppUnderTest, _ name: String, subscribers: Int = 1) async throws
        -> any StreamClient
    {
        let stream = try await server.openStream("/sse/channels/\(name)")
        #expect(
            await eventually {
                server.app.streams.existingStream(named: "channels/\(name)")?.subscriberCount == subscribers
            })
        return stream
    }

    /// The endings both journals show for the one request to `path`, once the request
    /// journal has them.
    private func endings(_ server: any AppUnderTest, _ path: String, stream: String) async throws
        -> (requests: [HTTP2EndingFrame]?, streams: [HTTP2EndingFrame]?)
    {
        var result: ([HTTP2EndingFrame]?, [HTTP2EndingFrame]?) = (nil, nil)
        _ = await eventually {
            let request = try? await server.admin.requests.list(path: path).first
            let record = try? await server.admin.streams.connections(stream: stream).first
            result = (request?.http2Endings, record?.http2Endings)
            return result.0 != nil && result.1 != nil
        }
        return result
    }

    @Test(arguments: Self.http2, [false, true])
    func aDropIsARSTStreamTheServerSent(over transport: Transport, reset: Bool) async throws {
        try await withApp(over: transport) { server in
            try await server.admin.faults.add(.dropAfterEvents(1, reset: reset), match: .init(path: "/sse/channels/d"))
            let stream = try await open(server, "d")
            server.app.streams.stream(named: "channels/d").publish(ServerSentEvent(data: "one"))
            _ = await stream.waitForClose()
            let (requests, streams) = try await endings(server, "/sse/channels/d", stream: "channels/d")
            let expected = [
                HTTP2EndingFrame(frame: "RST_STREAM", code: reset ? 2 : 8, sentBy: "server")
            ]
            #expect(requests == expected)
            #expect(streams == expected)
            #expect(requests?.first?.codeName == (reset ? "INTERNAL_ERROR" : "CANCEL"))
        }
    }

    @Test(arguments: Self.http2)
    func aClientsCancelIsARSTStreamTheClientSent(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let stream = try await open(server, "c")
            stream.close()
            let (requests, streams) = try await endings(server, "/sse/channels/c", stream: "channels/c")
            let expected = [HTTP2EndingFrame(frame: "RST_STREAM", code: 8, sentBy: "client")]
            #expect(requests == expected)
            #expect(streams == expected)
        }
    }

    /// A `goaway` fault ends the connection: every stream open on it shows the GOAWAY with
    /// its code and last stream id; a request answered before it shows none.
    @Test(arguments: Self.http2)
    func aGoAwayShowsOnEveryStreamOpenOnItsConnection(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            #expect(try await server.request("GET", "/health").status == 200)
            try await server.admin.faults.add(
                .goAway(code: 11, afterEvents: 1, lastStreamID: 1), match: .init(path: "/sse/channels/g"))
            let first = try await open(server, "g")
            let second = try await open(server, "g", subscribers: 2)
            server.app.streams.stream(named: "channels/g").publish(ServerSentEvent(data: "one"))
            _ = await first.waitForClose()
            _ = await second.waitForClose()
            let journal = try await server.admin.requests.list(path: "/sse/channels/g")
            #expect(journal.count == 2)
            for entry in journal {
                #expect(
                    entry.http2Endings?.contains(
                        HTTP2EndingFrame(frame: "GOAWAY", code: 11, sentBy: "server", lastStreamId: 1)) == true,
                    "\(entry)")
            }
            #expect(journal.first?.http2Endings?.first?.codeName == "ENHANCE_YOUR_CALM")
            #expect(try await server.admin.requests.list(path: "/health").first?.http2Endings == nil)
        }
    }
}
