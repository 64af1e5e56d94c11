import Foundation
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendHTTP

/// Feeds `input` to a fresh parser in pieces cut at `cuts` and returns every event.
private func events(_ input: [UInt8], cuts: [Int] = [], limits: HTTPParserLimits = HTTPParserLimits())
    -> [HTTPParserEvent]
{
    var parser = HTTPRequestParser(limits: limits)
    var result: [HTTPParserEvent] = []
    var start = 0
    for cut in cuts + [input.count] where cut >= start {
        result += parser.feed(input[start..<cut])
        start = cut
    }
    return result
}

private func events(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> [HTTPParserEvent] {
    events(Array(text.utf8), limits: limits)
}

private func failure(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> HTTPParseError? {
    for event in events(text, limits: limits) {
        if case .failure(let error) = event { return error }
    }
    return nil
}

private func requests(_ events: [HTTPParserEvent]) -> [HTTPRequest] {
    events.compactMap { if case .request(let request) = $0 { request } else { nil } }
}

@Suite("HTTPRequestParser")
struct HTTPRequestParserTests {
    static let corpus: [String] = [
        "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "GET /b HTTP/1.1\r\nHost: h\r\n\r\n",
        "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nTrailer: x\r\n\r\n",
        "PUT /d HTTP/1.1\nHost: h\nContent-Length: 3\n\nabc",
        "POST /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
        "GET /f HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /g HTTP/1.0\r\n\r\n",
        "GET /h HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "GET /i HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n",
    ]

    @Test("gives the same events fed whole, one byte at a time, and split at every index", arguments: corpus)
    func splitInvariance(_ text: String) {
        let input = Array(text.utf8)
        let whole = events(input)
        #expect(!whole.isEmpty)
        #expect(events(input, cuts: Array(0..<input.count)) == whole)
        for index in 0...input.count {
            #expect(events(input, cuts: [index]) == whole, "split at \(index)")
        }
    }

    @Test func parsesRequestLineHeadersAndQuery() throws {
        let request = try #require(
            requests(events("GET /a/b?x=1&y=a%20b+c HTTP/1.1\r\nHost: h\r\nX-Key:  v  \r\n\r\n")).first)
        #expect(request.method == "GET")
        #expect(request.path == "/a/b")
        #expect(request.query == "x=1&y=a%20b+c")
        #expect(request.queryValue("y") == "a b c")
        #expect(request.version == .http11)
        #expect(request.headers["x-key"] == "v")
        #expect(request.body.isEmpty)
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        let input =
            "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nPOST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: h\r\n\r\n"
        let parsed = requests(events(input))
        #expect(parsed.map(\.path) == ["/1", "/2", "/3"])
        #expect(parsed[1].body == Array("abc".utf8))
    }

    @Test func decodesChunkedBodyAndDropsTrailers() throws {
        let input =
            "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\nT: 1\r\n\r\n"
        let request = try #require(requests(events(input)).first)
        #expect(String(decoding: request.body, as: UTF8.self) == "Wikipedia")
    }

    @Test func signalsExpectContinueBeforeTheBody() {
        let head = "POST /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        var parser = HTTPRequestParser()
        #expect(parser.feed(Array(head.utf8)) == [.continueExpected])
        #expect(parser.isReadingBody)
        let rest = parser.feed(Array("ok".utf8))
        #expect(requests(rest).first?.body == Array("ok".utf8))
    }

    @Test func absoluteFormTargetBecomesOriginForm() throws {
        let request = try #require(
            requests(events("GET http://example.com/x?y=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")).first)
        #expect(request.path == "/x")
        #expect(request.query == "y=1")
    }

    @Test func ignoresEmptyLinesBeforeTheRequestLine() {
        #expect(requests(events("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")).count == 1)
    }

    @Test func repeatedIdenticalContentLengthIsOneValue() throws {
        let request = try #require(
            requests(events("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n\r\nok")).first)
        #expect(request.body.count == 2)
    }

    @Test(
        "refuses bad input with the right status",
        arguments: [
            ("GARBAGE\r\n\r\n", 400, "MALFORMED_REQUEST_LINE"),
            ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "MALFORMED_REQUEST_LINE"),
            ("GET / HTTP/1.1 extra\r\nHost: h\r\n\r\n", 400, "MALFORMED_REQUEST_LINE"),
            ("GET / HTTP/x.y\r\nHost: h\r\n\r\n", 400, "MALFORMED_REQUEST_LINE"),
            ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "MALFORMED_REQUEST_LINE"),
            ("GET relative HTTP/1.1\r\nHost: h\r\n\r\n", 400, "MALFORMED_REQUEST_LINE"),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "HTTP_VERSION_NOT_SUPPORTED"),
            ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505, "HTTP_VERSION_NOT_SUPPORTED"),
            ("GET / HTTP/1.1\r\n\r\n", 400, "MISSING_HOST"),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "MISSING_HOST"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  folded\r\n\r\n", 400, "OBSOLETE_LINE_FOLDING"),
            ("GET / HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n", 400, "MALFORMED_HEADER"),
            ("GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n", 400, "MALFORMED_HEADER"),
            ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, "MALFORMED_HEADER"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", 400, "MALFORMED_HEADER"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400, "MALFORMED_HEADER"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                400, "CONFLICTING_FRAMING"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400,
                "CONFLICTING_CONTENT_LENGTH"
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\n", 400, "CONFLICTING_CONTENT_LENGTH"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "INVALID_CONTENT_LENGTH"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n", 400, "INVALID_CONTENT_LENGTH"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "INVALID_CHUNK"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n", 400, "INVALID_CHUNK"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n 3\r\nabc\r\n", 400, "INVALID_CHUNK"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
                400, "INVALID_CHUNK"
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "CHUNKED_NOT_FINAL"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
                "UNSUPPORTED_TRANSFER_CODING"
            ),
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "TRANSFER_ENCODING_IN_HTTP_1_0"),
        ])
    func refusesBadInput(_ input: String, status: Int, code: String) throws {
        let error = try #require(failure(input))
        #expect(error.status == status)
        #expect(error.code == code)
    }

    @Test func enforcesTargetHeaderAndBodyLimits() {
        var limits = HTTPParserLimits()
        limits.maxTargetLength = 64
        limits.maxHeaderBytes = 256
        limits.maxHeaderCount = 5
        limits.maxBodyBytes = 10
        let longTarget = "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(failure(longTarget, limits: limits)?.status == 414)
        // Without a line end in sight, a long request line is still 414, before the head ends.
        #expect(failure("GET /" + String(repeating: "a", count: 500), limits: limits)?.status == 414)
        let bigHeader = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 300) + "\r\n\r\n"
        #expect(failure(bigHeader, limits: limits)?.status == 431)
        #expect(
            failure("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 1000), limits: limits)?.status
                == 431)
        let manyHeaders = "GET / HTTP/1.1\r\nHost: h\r\n" + (1...6).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        #expect(failure(manyHeaders, limits: limits)?.status == 431)
        #expect(failure("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: limits)?.status == 413)
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n"
        #expect(failure(chunked, limits: limits)?.status == 413)
    }

    @Test func ignoresEverythingAfterAFailure() {
        var parser = HTTPRequestParser()
        let first = parser.feed(Array("BROKEN\r\n\r\n".utf8))
        #expect(first.count == 1)
        #expect(parser.feed(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)).isEmpty)
    }

    @Test func reportsPartialState() {
        var parser = HTTPRequestParser()
        #expect(!parser.hasPartialRequest)
        _ = parser.feed(Array("GET / HT".utf8))
        #expect(parser.hasPartialRequest)
        #expect(!parser.isReadingBody)
        _ = parser.feed(Array("TP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab".utf8))
        #expect(parser.isReadingBody)
        _ = parser.feed(Array("cd".utf8))
        #expect(!parser.hasPartialRequest)
    }
}

/// Inputs the fuzzer found (fuzz/regressions/) and its seeds, replayed with the fuzzer's
/// small limits: each must give the same events however it is split.
@Suite("HTTPRequestParser fuzz regressions")
struct HTTPRequestParserRegressionTests {
    static let limits: HTTPParserLimits = {
        var limits = HTTPParserLimits()
        limits.maxTargetLength = 64
        limits.maxHeaderBytes = 256
        limits.maxHeaderCount = 8
        limits.maxBodyBytes = 64 * 1024
        limits.maxChunkLineLength = 32
        return limits
    }()

    static let inputs: [String] = ["fuzz/regressions", "fuzz/seeds"].flatMap { folder -> [String] in
        let directory = PackageRoot.path + "/" + folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().map { "\(folder)/\($0)" }
    }

    @Test("splitting never changes the events", arguments: inputs)
    func splitInvariance(_ path: String) throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/" + path)))
        let whole = events(input, limits: Self.limits)
        if input.count <= 4096 {
            #expect(events(input, cuts: Array(0..<input.count), limits: Self.limits) == whole, "byte by byte")
        }
        for index in 0...input.count {
            #expect(events(input, cuts: [index], limits: Self.limits) == whole, "split at \(index)")
        }
    }

    @Test func thereAreRegressionsToReplay() {
        #expect(Self.inputs.contains { $0.hasPrefix("fuzz/regressions/") })
    }
}
