import MockBackendHTTP
import Testing

@testable import MockBackend

/// What the journal keeps of answers for the HAR export stays bounded: 16 KiB a body, the
/// newest 1,000 entries, and nothing more once an entry is let go of.
@Suite("Request journal: answers kept for HAR")
struct ResponseCaptureTests {
    private static func capture() -> ResponseCapture {
        ResponseCapture(
            status: 200, headers: ["Content-Type": "text/event-stream"], scheme: "http", httpVersion: "HTTP/1.1")
    }

    @Test func aBodyIsKeptUpToItsExcerptAndCountedWhole() {
        let capture = Self.capture()
        #expect(capture.append([UInt8](repeating: 1, count: 10_000)))
        #expect(!capture.append([UInt8](repeating: 2, count: 10_000)))
        let kept = capture.snapshot
        #expect(kept.body.count == ResponseCapture.excerptLength)
        #expect(kept.omitted == 20_000 - ResponseCapture.excerptLength)
        #expect(kept.body.last == 2)
    }

    @Test func aBodyKnownInFullIsKeptAsItIsAndTakesNoWrites() {
        let body = [UInt8](repeating: 7, count: 20_000)
        let capture = ResponseCapture(
            status: 200, headers: [:], scheme: "https", httpVersion: "HTTP/1.1", body: body)
        #expect(!capture.append([1]))
        #expect(capture.snapshot.body == Array(body.prefix(ResponseCapture.excerptLength)))
        #expect(capture.snapshot.omitted == 20_000 - ResponseCapture.excerptLength)
        #expect(capture.snapshot.scheme == "https")
    }

    @Test func theJournalLetsGoOfAnswersPastItsNewestThousand() {
        let journal = RequestJournal()
        let oldest = Self.capture()
        journal.record(HTTPRequest(method: "GET", target: "/old"), status: 200, duration: .zero, capture: oldest)
        oldest.append(Array("id: 1\ndata: kept\n\n".utf8))
        for index in 0..<RequestJournal.captureCapacity {
            journal.record(
                HTTPRequest(method: "GET", target: "/\(index)"), status: 200, duration: .zero, capture: Self.capture())
        }
        // A stream still open past its entry keeps nothing more.
        #expect(!oldest.append(Array("data: more\n\n".utf8)))
        #expect(oldest.snapshot.body.isEmpty)
        let rows = journal.entriesWithAnswers(matching: RequestMatcher(), since: nil, limit: .max)
        #expect(rows.count == RequestJournal.captureCapacity + 1)
        #expect(rows.last?.entry.target == "/old")
        #expect(rows.last?.answer == nil)
        #expect(rows.first?.answer != nil)
    }
}
