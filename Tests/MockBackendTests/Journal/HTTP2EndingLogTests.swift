import MockBackend
import MockBackendAPI
import MockBackendHTTP
import Testing

/// The log behind the journals' `http2Endings`: frames by exchange, a peer's repeats cut,
/// and only the exchanges noted last kept.
@Suite("HTTP/2 ending log")
struct HTTP2EndingLogTests {
    private static func reset(_ id: UInt64, code: UInt32 = 8, byServer: Bool = true) -> HTTP2EndingNote {
        HTTP2EndingNote(exchangeID: id, frame: .rstStream, code: code, sentByServer: byServer)
    }

    @Test func keepsEachExchangesFramesInOrder() {
        let log = HTTP2EndingLog()
        log.note(Self.reset(1, code: 8, byServer: false))
        log.note(HTTP2EndingNote(exchangeID: 1, frame: .goAway, code: 0, lastStreamID: 5, sentByServer: true))
        log.note(Self.reset(2, code: 2))
        #expect(
            log.endings(exchange: 1) == [
                HTTP2EndingFrame(frame: "RST_STREAM", code: 8, sentBy: "client", lastStreamId: nil),
                HTTP2EndingFrame(frame: "GOAWAY", code: 0, sentBy: "server", lastStreamId: 5),
            ])
        #expect(log.endings(exchange: 2)?.map(\.code) == [2])
        #expect(log.endings(exchange: 3) == nil)
    }

    @Test func aPeersRepeatsStopAtFourFrames() {
        let log = HTTP2EndingLog()
        for _ in 0..<10 { log.note(Self.reset(7, byServer: false)) }
        #expect(log.endings(exchange: 7)?.count == 4)
    }

    @Test func keepsOnlyTheExchangesNotedLast() {
        let log = HTTP2EndingLog(capacity: 3)
        for id in UInt64(1)...5 { log.note(Self.reset(id)) }
        // A later frame of a kept exchange does not count as a new one.
        log.note(Self.reset(4))
        log.note(Self.reset(6))
        #expect((1...3).allSatisfy { log.endings(exchange: $0) == nil })
        #expect(log.endings(exchange: 4)?.count == 2)
        #expect(log.endings(exchange: 5)?.count == 1)
        #expect(log.endings(exchange: 6)?.count == 1)
        log.note(Self.reset(7))
        #expect(log.endings(exchange: 4) == nil)
        #expect(log.endings(exchange: 7)?.count == 1)
    }

    @Test func clearForgetsEverything() {
        let log = HTTP2EndingLog(capacity: 2)
        for id in UInt64(1)...3 { log.note(Self.reset(id)) }
        log.clear()
        #expect(log.endings(exchange: 3) == nil)
        log.note(Self.reset(9))
        log.note(Self.reset(10))
        #expect(log.endings(exchange: 9)?.count == 1)
        #expect(log.endings(exchange: 10)?.count == 1)
    }
}
