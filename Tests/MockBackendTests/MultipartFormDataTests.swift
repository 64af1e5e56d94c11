import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

/// What a parser made of a whole body: its parts, or the error it threw.
enum MultipartOutcome: Equatable {
    case parts([MultipartPart])
    case failure(MultipartError)

    var parts: [MultipartPart] {
        if case .parts(let parts) = self { parts } else { [] }
    }

    var error: MultipartError? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// A body and how to parse it.
struct MultipartSample: Sendable, CustomTestStringConvertible {
    var label: String
    var body: [UInt8]
    var boundary = curlBoundary
    var maxPartHeaderBytes = 8192
    var maxParts = 100

    var testDescription: String { label }

    /// Feeds the body to a fresh parser in pieces cut at `cuts`, then finishes.
    func outcome(cuts: [Int] = []) -> MultipartOutcome {
        var parser = MultipartParser(boundary: boundary, maxPartHeaderBytes: maxPartHeaderBytes, maxParts: maxParts)
        var parts: [MultipartPart] = []
        var start = 0
        do throws(MultipartError) {
            for cut in cuts + [body.count] where cut >= start {
                parts += try parser.feed(body[start..<cut])
                start = cut
            }
            try parser.finish()
            return .parts(parts)
        } catch {
            return .failure(error)
        }
    }
}

private let curlBoundary = "------------------------d74496d66958873e"

private let seventy = String(repeating: "a", count: 70)

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A body as `curl -F file=@x.csv` sends it.
private let curlBody = bytes(
    "--\(curlBoundary)\r\n"
        + "Content-Disposition: form-data; name=\"file\"; filename=\"x.csv\"\r\n"
        + "Content-Type: text/csv\r\n"
        + "\r\n"
        + "id,name\n1,Ann\n2,Bob\n"
        + "\r\n--\(curlBoundary)--\r\n")

private let twoParts = bytes(
    "--\(curlBoundary)\r\n"
        + "Content-Disposition: form-data; name=\"mode\"\r\n"
        + "\r\n"
        + "replace"
        + "\r\n--\(curlBoundary)\r\n"
        + "Content-Disposition: form-data; name=\"users\"; filename=\"users.csv\"\r\n"
        + "Content-Type: text/csv; charset=utf-8\r\n"
        + "\r\n"
        + "a,b\r\n1,2\r\n"
        + "\r\n--\(curlBoundary)--\r\n")

/// A body line with CRLF, a fake delimiter not at a line start, an LF-led one, a preamble and an epilogue.
private let trickyBody = bytes(
    "This is the preamble.\r\n--not-it\r\n"
        + "--\(curlBoundary) \t\r\n"
        + "content-disposition: FORM-DATA; NAME=\"a\\\"b\"; Filename=\"C:\\\\dir\\\\x.csv\"\r\n"
        + "\r\n"
        + "line one\r\nsee --\(curlBoundary) here\r\n\n--\(curlBoundary)\r\n-\(curlBoundary)\r\n"
        + "\r\n--\(curlBoundary)--"
        + "\r\nThis is the epilogue. --\(curlBoundary)\r\nContent-Type: x\r\n\r\n")

private let trickyPartBody = bytes(
    "line one\r\nsee --\(curlBoundary) here\r\n\n--\(curlBoundary)\r\n-\(curlBoundary)\r\n")

private func sample(_ label: String, _ text: String, boundary: String = "b") -> MultipartSample {
    MultipartSample(label: label, body: bytes(text), boundary: boundary)
}

@Suite("MultipartParser")
struct MultipartFormDataTests {
    static let samples: [MultipartSample] = [
        MultipartSample(label: "curl -F file=@x.csv", body: curlBody),
        MultipartSample(label: "two parts", body: twoParts),
        MultipartSample(label: "preamble, fake delimiters, epilogue", body: trickyBody),
        sample("no headers, empty bodies", "--b\r\n\r\n\r\n--b\r\n\r\nv\r\n--b\r\nX: 1\r\n\r\n\r\n--b--"),
        sample("no parts", "--b--\r\n"),
        sample("no delimiter", "just text, --b not at a line start"),
        sample("ends in the body", "--b\r\n\r\nvalue\r\n--"),
        sample("ends after the boundary", "--b\r\nA: 1\r\n\r\nvalue\r\n--b"),
        sample("ends in the headers", "--b\r\nA: 1\r\n"),
        sample("padding then text", "--b  x\r\n\r\n\r\n--b--"),
        sample("boundary prefix of a line", "--bx\r\n\r\n\r\n--b--"),
        sample("LF-only", "--b\nContent-Disposition: form-data; name=a\n\nv\n--b--\n"),
        sample("no colon", "--b\r\nContent-Disposition form-data\r\n\r\nv\r\n--b--"),
        sample("folded", "--b\r\nA: 1\r\n 2\r\n\r\nv\r\n--b--"),
        sample("bad header name", "--b\r\nBad Name: x\r\n\r\nv\r\n--b--"),
        sample("bare LF in header", "--b\r\nA: 1\nB: 2\r\n\r\nv\r\n--b--"),
        MultipartSample(
            label: "headers too long", body: bytes("--b\r\nA: 12345\r\n\r\nv\r\n--b--"), boundary: "b",
            maxPartHeaderBytes: 10),
        MultipartSample(
            label: "headers just fit", body: bytes("--b\r\nA: 1234\r\n\r\nv\r\n--b--"), boundary: "b",
            maxPartHeaderBytes: 11),
        MultipartSample(
            label: "too many parts", body: bytes("--b\r\n\r\n1\r\n--b\r\n\r\n2\r\n--b--"), boundary: "b",
            maxParts: 1),
    ]

    /// Each failing sample and the start of its error detail.
    static let refusals: [(String, String)] = [
        ("no delimiter", "The body holds no delimiter line \"--b\"; it is not multipart with this boundary."),
        ("ends in the body", "The body ended before the close delimiter \"--b--\"."),
        ("ends after the boundary", "The body ended before the close delimiter \"--b--\"."),
        ("ends in the headers", "The body ended before the close delimiter \"--b--\"."),
        ("padding then text", "A delimiter \"--b\" is followed by more than spaces or tabs and CRLF"),
        ("boundary prefix of a line", "A delimiter \"--b\" is followed by more than spaces or tabs and CRLF"),
        ("LF-only", "A delimiter \"--b\" is followed by more than spaces or tabs and CRLF"),
        ("no colon", "A part header line has no colon: \"Content-Disposition form-data\"."),
        ("folded", "A part header line starts with whitespace; folded lines (RFC 5322 §2.2.3) are not accepted."),
        ("bad header name", "A part header name \"Bad Name\" is empty or not printable ASCII (RFC 5322 §3.6.8)."),
        ("bare LF in header", "The part header \"A\" contains a control character; header lines end in CRLF."),
        ("headers too long", "A part's header section is longer than 10 bytes."),
        ("too many parts", "The body has more than 1 parts."),
    ]

    static let contentTypes: [(String, String)] = [
        ("multipart/form-data; boundary=------------------------d74496d66958873e", curlBoundary),
        ("multipart/form-data; boundary=\"simple boundary\"", "simple boundary"),
        ("Multipart/Form-Data;BOUNDARY=abc", "abc"),
        ("multipart/form-data; charset=utf-8; Boundary=\"a'()+_,-./:=?\"", "a'()+_,-./:=?"),
        ("multipart/form-data ; boundary = x ; other=1", "x"),
        (#"multipart/form-data; boundary=""# + seventy + "\"", seventy),
    ]

    static let notFormData = [
        "multipart/form-data",
        "multipart/form-data; charset=utf-8",
        "multipart/form-data; boundary=",
        "multipart/form-data; boundary=\"\"",
        "multipart/mixed; boundary=abc",
        "text/csv; boundary=abc",
        "multipart/form-data; boundary=\(String(repeating: "a", count: 71))",
        "multipart/form-data; boundary=\"ends in space \"",
        "multipart/form-data; boundary=\"a<b\"",
        "multipart/form-data; boundary=\"é\"",
        "",
    ]

    static func named(_ label: String) -> MultipartSample {
        samples.first { $0.label == label } ?? MultipartSample(label: "missing: \(label)", body: [])
    }

    @Test("gives the same parts or error fed whole, byte by byte and split at every index", arguments: samples)
    func splitInvariance(_ sample: MultipartSample) {
        let whole = sample.outcome()
        #expect(sample.outcome(cuts: Array(0..<sample.body.count)) == whole, "byte by byte")
        for index in 0...sample.body.count {
            #expect(sample.outcome(cuts: [index]) == whole, "split at \(index)")
        }
    }

    @Test func parsesABodyAsCurlSendsIt() throws {
        let parts = try MultipartParser.parse(curlBody, boundary: curlBoundary)
        #expect(parts.count == 1)
        let part = try #require(parts.first)
        #expect(part.name == "file")
        #expect(part.filename == "x.csv")
        #expect(part.contentType == "text/csv")
        #expect(part.body == bytes("id,name\n1,Ann\n2,Bob\n"))
        #expect(part.headers.map(\.name) == ["Content-Disposition", "Content-Type"])
        #expect(part.headers["content-disposition"] == #"form-data; name="file"; filename="x.csv""#)
    }

    @Test func parsesTwoParts() throws {
        let parts = try MultipartParser.parse(twoParts, boundary: curlBoundary)
        #expect(parts.map(\.name) == ["mode", "users"])
        #expect(parts.map(\.filename) == [nil, "users.csv"])
        #expect(parts.map(\.contentType) == [nil, "text/csv; charset=utf-8"])
        #expect(parts.map(\.body) == [bytes("replace"), bytes("a,b\r\n1,2\r\n")])
    }

    @Test func skipsPreambleAndEpilogueAndKeepsFakeDelimitersInTheBody() throws {
        let parts = try MultipartParser.parse(trickyBody, boundary: curlBoundary)
        #expect(parts.count == 1)
        let part = try #require(parts.first)
        #expect(part.body == trickyPartBody)
        // Parameter names ignore case; quoted values lose their backslash escapes.
        #expect(part.name == #"a"b"#)
        #expect(part.filename == #"C:\dir\x.csv"#)
    }

    @Test func readsTokenParametersAndKeepsTheFirstOfARepeatedOne() throws {
        let body =
            "--b\r\nContent-Disposition: form-data ; name = plain ;flag; x=\"a;b\" ; name=second\r\n\r\nv\r\n--b--"
        let part = try #require(try MultipartParser.parse(bytes(body), boundary: "b").first)
        #expect(part.name == "plain")
        #expect(part.filename == nil)
    }

    @Test func acceptsPartsWithoutHeadersOrBodyAndBodiesWithoutParts() throws {
        let outcome = Self.named("no headers, empty bodies").outcome()
        #expect(outcome.parts.map(\.body) == [[], bytes("v"), []])
        #expect(outcome.parts.map(\.headers.count) == [0, 0, 1])
        #expect(outcome.parts.allSatisfy { $0.name == nil && $0.filename == nil && $0.contentType == nil })
        #expect(try MultipartParser.parse(bytes("--b--"), boundary: "b").isEmpty)
        #expect(try MultipartParser.parse(bytes("preamble\r\n--b--\r\nepilogue"), boundary: "b").isEmpty)
    }

    @Test func returnsEachPartOnceTheNextDelimiterArrives() throws {
        var parser = MultipartParser(boundary: "b")
        #expect(try parser.feed(bytes("--b\r\nContent-Disposition: form-data; name=one\r\n\r\n1")).isEmpty)
        #expect(try parser.feed(bytes("\r\n--")).isEmpty)
        let first = try parser.feed(bytes("b\r\n\r\n2\r\n-"))
        #expect(first.map(\.name) == ["one"])
        #expect(first.map(\.body) == [bytes("1")])
        // The part ends at the delimiter, before it is known to be the close one.
        #expect(try parser.feed(bytes("-b")).map(\.body) == [bytes("2")])
        #expect(try parser.feed(bytes("--\r\nepilogue\r\n--b\r\n\r\nx")).isEmpty)
        try parser.finish()
    }

    @Test("refuses", arguments: refusals)
    func refuses(_ label: String, _ detail: String) throws {
        let error = try #require(Self.named(label).outcome().error)
        #expect(error.detail.hasPrefix(detail))
    }

    @Test func headerLimitCountsTheSectionWithItsEmptyLine() {
        // "A: 1234\r\n\r\n" is 11 bytes.
        #expect(Self.named("headers just fit").outcome().parts.first?.headers["A"] == "1234")
        var parser = MultipartParser(boundary: "b", maxPartHeaderBytes: 11)
        #expect(throws: MultipartError.headersTooLong(11)) {
            _ = try parser.feed(bytes("--b\r\nA: 12345678901"))
        }
    }

    @Test func refusesAnEmptyBodyAndADashAfterTheBoundary() {
        #expect(throws: MultipartError.noDelimiter("b")) { try MultipartParser.parse([], boundary: "b") }
        #expect(throws: MultipartError.malformedDelimiterLine("b")) {
            try MultipartParser.parse(bytes("--b-x\r\n\r\n"), boundary: "b")
        }
        #expect(throws: MultipartError.malformedDelimiterLine("b")) {
            try MultipartParser.parse(bytes("--b\r\n\r\nv\r\n--b --"), boundary: "b")
        }
        #expect(throws: MultipartError.invalidFieldName("")) {
            try MultipartParser.parse(bytes("--b\r\n: v\r\n\r\n\r\n--b--"), boundary: "b")
        }
    }

    @Test func keepsThrowingTheFirstError() {
        var parser = MultipartParser(boundary: "b", maxParts: 0)
        #expect(throws: MultipartError.tooManyParts(0)) { _ = try parser.feed(bytes("--b\r\n")) }
        #expect(throws: MultipartError.tooManyParts(0)) { _ = try parser.feed(bytes("\r\nv\r\n--b--")) }
        #expect(throws: MultipartError.tooManyParts(0)) { try parser.finish() }
    }

    @Test func errorBecomesA400Problem() {
        let problem = MultipartError.unexpectedEnd("b").problem
        #expect(problem.status == 400)
        #expect(problem.code == "MALFORMED_MULTIPART")
        #expect(problem.detail == "The body ended before the close delimiter \"--b--\".")
        #expect(MultipartError.unexpectedEnd("b").response.status == 400)
    }

    @Test("reads the boundary of a multipart/form-data Content-Type", arguments: contentTypes)
    func boundary(_ contentType: String, _ expected: String) {
        #expect(MultipartParser.boundary(fromContentType: contentType) == expected)
    }

    @Test("finds no boundary", arguments: notFormData)
    func noBoundary(_ contentType: String) {
        #expect(MultipartParser.boundary(fromContentType: contentType) == nil)
    }
}
