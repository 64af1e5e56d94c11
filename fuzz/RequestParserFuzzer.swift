// libFuzzer target for HTTPRequestParser (Sources/MockBackendHTTP/Parsing/).
//
// Built by fuzz/run.sh together with the parser's sources into one module, so the
// parser's internal API is visible here. Every input is fed to a fresh parser in several
// ways; the events must be identical whatever the split (the parser's documented
// contract), and every event must respect the invariants checked below. Any violation
// prints what differs and aborts, which libFuzzer records as a crash.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small limits so that every limit is reachable by inputs shorter than `byteAtATimeLimit`
/// (the head's incremental size check trips at target + 64 + header bytes = 384); the body
/// limit is large enough for real bodies but small enough to be exceeded by a declared
/// Content-Length or chunk size.
let fuzzLimits: HTTPParserLimits = {
    var limits = HTTPParserLimits()
    limits.maxTargetLength = 64
    limits.maxHeaderBytes = 256
    limits.maxHeaderCount = 8
    limits.maxBodyBytes = 64 * 1024
    limits.maxChunkLineLength = 32
    return limits
}()

/// Bytes fed after a failure: a valid request, which must produce nothing.
let afterFailure = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)

/// Inputs shorter than this are also fed one byte at a time.
let byteAtATimeLimit = 512

// MARK: - Reporting

func escaped(_ bytes: some Collection<UInt8>, max: Int = 600) -> String {
    var out = ""
    for (index, byte) in bytes.enumerated() {
        if index == max {
            out += "...(\(bytes.count - max) more bytes)"
            break
        }
        switch byte {
        case UInt8(ascii: "\r"): out += "\\r"
        case UInt8(ascii: "\n"): out += "\\n"
        case UInt8(ascii: "\t"): out += "\\t"
        case UInt8(ascii: "\\"): out += "\\\\"
        case UInt8(ascii: "\""): out += "\\\""
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return "\"" + out + "\""
}

func describe(_ event: HTTPParserEvent) -> String {
    switch event {
    case .continueExpected:
        return "continueExpected"
    case .request(let request):
        let headers = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: " | ")
        return "request(\(request.method) \(request.target) \(request.version) headers=[\(headers)] "
            + "body=\(request.body.count) bytes \(escaped(request.body, max: 80)))"
    case .failure(let error):
        return "failure(\(error.status) \(error.code): \(error.detail))"
    case .streamingRequest(let request, let expectsContinue):
        return "streamingRequest(\(request.method) \(request.target) expectsContinue=\(expectsContinue))"
    case .bodyPart(let bytes):
        return "bodyPart(\(bytes.count) bytes)"
    case .bodyEnd:
        return "bodyEnd"
    }
}

/// Turns a streamed request's events (`HTTPRequestParser.streamsBody`) into what the same
/// request gives read whole: its head and parts become one `.request` at its body's end
/// (after `.continueExpected` when it asked), so both ways of reading compare.
struct StreamedBodies {
    private var pending: HTTPRequest?

    mutating func normalize(_ events: [HTTPParserEvent]) -> [HTTPParserEvent] {
        var result: [HTTPParserEvent] = []
        for event in events {
            switch event {
            case .streamingRequest(var request, let expectsContinue):
                if expectsContinue { result.append(.continueExpected) }
                request.bodyStream = nil
                pending = request
            case .bodyPart(let bytes):
                pending?.body += bytes
            case .bodyEnd:
                if let request = pending { result.append(.request(request)) }
                pending = nil
            case .failure:
                pending = nil
                result.append(event)
            default:
                result.append(event)
            }
        }
        return result
    }
}

func describe(_ events: [HTTPParserEvent]) -> String {
    events.isEmpty ? "  (no events)" : events.enumerated().map { "  [\($0)] \(describe($1))" }.joined(separator: "\n")
}

/// Signatures of split-dependence findings to tolerate, from `FUZZ_IGNORE` (comma-separated
/// substrings, e.g. `MALFORMED_REQUEST_LINE->URI_TOO_LONG`). For exploring past a known
/// finding only; CI never sets it.
let ignoredSignatures: [String] = {
    guard let raw = getenv("FUZZ_IGNORE") else { return [] }
    return String(cString: raw).split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
}()

func fail(_ message: String, input: [UInt8], signature: String? = nil) -> Never {
    let signatureLine = signature.map { "signature: \($0)\n" } ?? ""
    let text = """

        ==== HTTPRequestParser invariant violated ====
        \(signatureLine)\(message)
        input (\(input.count) bytes): \(escaped(input, max: 2000))
        ==============================================

        """
    var bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + written, $0.count - written) }
        if result <= 0 { break }
        written += result
    }
    abort()
}

// MARK: - One way of feeding

struct Outcome {
    var events: [HTTPParserEvent] = []
    var hasPartialRequest = false
    var isReadingBody = false
}

/// Feeds `input` cut at `cuts` (ascending offsets) to a fresh parser and checks the
/// per-feed invariants: nothing after a failure, a failure is the last event of its feed,
/// a failed parser ignores further bytes.
func feed(_ input: [UInt8], cuts: [Int], way: String, streaming: Bool = false) -> Outcome {
    var parser = HTTPRequestParser(limits: fuzzLimits)
    var streamed = StreamedBodies()
    if streaming { parser.streamsBody = { _ in true } }
    var outcome = Outcome()
    var failed = false
    var start = 0
    for cut in cuts + [input.count] where cut >= start && cut <= input.count {
        var events = streamed.normalize(parser.feed(input[start..<cut]))
        // RFC 9110 §7.8: the parser stops after a request to switch protocols until the
        // server answers. Declining each at once makes what follows HTTP again, so every
        // way of feeding must still give the same events.
        while parser.isAwaitingUpgrade {
            guard case .request(let request)? = events.last, request.asksToSwitchProtocols else {
                fail(
                    "\(way): the parser awaits an upgrade its last event did not ask for:\n\(describe(events))",
                    input: input)
            }
            events += streamed.normalize(parser.declineUpgrade())
        }
        if failed, !events.isEmpty {
            fail(
                "\(way): events after a .failure (feed of bytes \(start)..<\(cut)):\n\(describe(events))",
                input: input)
        }
        if let index = events.firstIndex(where: { if case .failure = $0 { true } else { false } }) {
            if index != events.count - 1 {
                fail("\(way): events follow a .failure within one feed:\n\(describe(events))", input: input)
            }
            failed = true
        }
        outcome.events += events
        start = cut
    }
    if failed {
        if parser.hasPartialRequest || parser.isReadingBody {
            fail("\(way): a failed parser still reports a partial request or a body in progress", input: input)
        }
        let extra = streamed.normalize(parser.feed(afterFailure))
        if !extra.isEmpty {
            fail("\(way): a failed parser produced events for further bytes:\n\(describe(extra))", input: input)
        }
    }
    outcome.hasPartialRequest = parser.hasPartialRequest
    outcome.isReadingBody = parser.isReadingBody
    return outcome
}

// MARK: - Invariants of single events

func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

func checkRequest(_ request: HTTPRequest, index: Int, input: [UInt8]) {
    func violated(_ what: String) -> Never {
        fail("event [\(index)] \(what):\n  \(describe(HTTPParserEvent.request(request)))", input: input)
    }
    if request.method.isEmpty { violated("has an empty method") }
    if !request.method.utf8.allSatisfy(isTokenByte) { violated("has a method that is not a token") }
    if !(request.path.hasPrefix("/") || request.path == "*") {
        violated("has a path that neither starts with \"/\" nor is \"*\"")
    }
    if request.path == "*", request.method != "OPTIONS" {
        violated("has target \"*\" with a method other than OPTIONS")
    }
    if request.target.utf8.count > fuzzLimits.maxTargetLength { violated("has a target longer than maxTargetLength") }
    if !request.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
        violated("has a target with a byte outside visible ASCII")
    }
    if request.version.major != 1 || !(0...9).contains(request.version.minor) {
        violated("has a version other than 1.x")
    }
    if request.body.count > fuzzLimits.maxBodyBytes {
        violated("has a body of \(request.body.count) bytes, over maxBodyBytes \(fuzzLimits.maxBodyBytes)")
    }
    if request.headers.count > fuzzLimits.maxHeaderCount { violated("has more than maxHeaderCount headers") }
    for (name, value) in request.headers {
        if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) { violated("has a header name that is not a token") }
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            violated("has a header value with a control character (CR, LF, NUL...)")
        }
        if let first = value.utf8.first, first == 0x20 || first == 0x09 {
            violated("has a header value with leading OWS")
        }
        if let last = value.utf8.last, last == 0x20 || last == 0x09 { violated("has a header value with trailing OWS") }
    }
    let hosts = request.headers.values(for: "Host").count
    if request.version.minor >= 1, hosts != 1 { violated("is HTTP/1.1 without exactly one Host") }
    if hosts > 1 { violated("has several Host headers") }
    let hasTE = request.headers.contains("Transfer-Encoding")
    let hasCL = request.headers.contains("Content-Length")
    if hasTE, hasCL { violated("has both Transfer-Encoding and Content-Length") }
    if hasTE, request.version.minor == 0 { violated("is HTTP/1.0 with Transfer-Encoding") }
    if hasCL, let value = request.headers["Content-Length"] {
        let first = value.split(separator: ",").first.map { String($0.trimmingSpaces()) } ?? ""
        if let length = Int(first), length != request.body.count {
            violated("has a body of \(request.body.count) bytes but Content-Length \(length)")
        }
    }
    if !hasTE, !hasCL, !request.body.isEmpty { violated("has a body without Content-Length or Transfer-Encoding") }
}

func checkEvents(_ events: [HTTPParserEvent], input: [UInt8]) {
    var previousWasContinue = false
    for (index, event) in events.enumerated() {
        switch event {
        case .request(let request):
            checkRequest(request, index: index, input: input)
            if previousWasContinue, request.headers["Expect"] == nil {
                fail(
                    "event [\(index)] follows continueExpected but has no Expect header:\n\(describe(events))",
                    input: input)
            }
            previousWasContinue = false
        case .continueExpected:
            if previousWasContinue { fail("two continueExpected in a row:\n\(describe(events))", input: input) }
            previousWasContinue = true
        case .failure:
            if index != events.count - 1 {
                fail("events follow a .failure:\n\(describe(events))", input: input)
            }
        case .streamingRequest, .bodyPart, .bodyEnd:
            fail("a streamed body's event where none streams:\n\(describe(events))", input: input)
        }
    }
}

/// A short name of an event for signatures: the failure code, "request", "continue" or "end".
func kind(_ events: [HTTPParserEvent], _ index: Int) -> String {
    guard index < events.count else { return "end" }
    switch events[index] {
    case .continueExpected: return "continue"
    case .request: return "request"
    case .failure(let error): return error.code
    default: return "streamed"
    }
}

func ignored(_ signature: String) -> Bool {
    ignoredSignatures.contains { signature.contains($0) }
}

/// Compares the outcome of one way of feeding with feeding the input whole; aborts on a
/// difference unless its signature is in FUZZ_IGNORE (then returns false: stop this input).
func compare(_ reference: Outcome, _ other: Outcome, way: String, cuts: [Int], input: [UInt8]) -> Bool {
    let cutText = cuts.count > 40 ? "\(cuts.prefix(40))... (\(cuts.count) cuts)" : "\(cuts)"
    if reference.events != other.events {
        let firstDiff =
            zip(reference.events, other.events).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(reference.events.count, other.events.count)
        let signature = "\(kind(reference.events, firstDiff))->\(kind(other.events, firstDiff))"
        if ignored(signature) { return false }
        fail(
            """
            events differ between feeding the input whole and \(way) (cuts at \(cutText)); \
            first difference at event [\(firstDiff)]
            whole:
            \(describe(reference.events))
            \(way):
            \(describe(other.events))
            """, input: input, signature: signature)
    }
    if reference.hasPartialRequest != other.hasPartialRequest || reference.isReadingBody != other.isReadingBody {
        let signature = "state:partial=\(reference.hasPartialRequest)->\(other.hasPartialRequest)"
        if ignored(signature) { return false }
        fail(
            """
            final parser state differs between feeding the input whole and \(way) (cuts at \(cutText)):
            whole: hasPartialRequest=\(reference.hasPartialRequest) isReadingBody=\(reference.isReadingBody)
            \(way): hasPartialRequest=\(other.hasPartialRequest) isReadingBody=\(other.isReadingBody)
            events:
            \(describe(reference.events))
            """, input: input, signature: signature)
    }
    return true
}

// MARK: - Entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []

    // (a) whole at once.
    let whole = feed(input, cuts: [], way: "whole")
    checkEvents(whole.events, input: input)

    // (b) in two at an index taken from the first two bytes.
    if input.count > 1 {
        let split = (Int(input[0]) | Int(input[1]) << 8) % (input.count + 1)
        let cuts = [split]
        let way = "split in two"
        guard compare(whole, feed(input, cuts: cuts, way: way), way: way, cuts: cuts, input: input) else { return 0 }
    }

    // (c) one byte at a time, for short inputs.
    if input.count > 1, input.count < byteAtATimeLimit {
        let cuts = Array(1..<input.count)
        let way = "byte at a time"
        guard compare(whole, feed(input, cuts: cuts, way: way), way: way, cuts: cuts, input: input) else { return 0 }
    }

    // (d) pieces of pseudo-random sizes seeded by the input (reaches long inputs too).
    if input.count > 2 {
        let cuts = randomCuts(input)
        let way = "random pieces"
        guard compare(whole, feed(input, cuts: cuts, way: way), way: way, cuts: cuts, input: input) else { return 0 }
    }

    // (e) every body streamed (a proxied request's), whole and in random pieces: the same
    // requests once the parts are put together — unless a body is over the limit, which a
    // streamed body has none of.
    let overLimit = whole.events.contains { if case .failure(let error) = $0 { error.status == 413 } else { false } }
    if !overLimit {
        let way = "streamed whole"
        guard compare(whole, feed(input, cuts: [], way: way, streaming: true), way: way, cuts: [], input: input)
        else { return 0 }
        if input.count > 2 {
            let cuts = randomCuts(input)
            let way = "streamed in random pieces"
            guard
                compare(
                    whole, feed(input, cuts: cuts, way: way, streaming: true), way: way, cuts: cuts, input: input)
            else { return 0 }
        }
    }
    return 0
}
