/// The head of a response from an upstream server.
package struct HTTPResponseHead: Sendable, Equatable {
    package var version: HTTPVersion
    package var status: Int
    package var reason: String
    package var headers: HTTPHeaders

    package init(version: HTTPVersion = .http11, status: Int, reason: String = "", headers: HTTPHeaders) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// Whether the upstream lets the connection carry another request after this response
    /// (RFC 9112 §9.3): HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with keep-alive.
    package var keepsAlive: Bool {
        if headers.listContains("Connection", token: "close") { return false }
        return version == .http11 || headers.listContains("Connection", token: "keep-alive")
    }
}

/// Why an upstream's response cannot be read.
package enum HTTPResponseParseError: Error, Sendable, Equatable {
    /// The status line or a header line is not HTTP/1.1 syntax.
    case malformedHead(String)
    /// The head is larger than the limit, or has more fields.
    case headTooLarge(Int)
    /// The body's framing is broken: a bad chunk size, a chunk not followed by CRLF,
    /// conflicting lengths.
    case malformedBody(String)
    /// The connection ended before the body did (inside a chunk, or short of Content-Length).
    case truncated

    /// For the 502 answer's detail.
    package var detail: String {
        switch self {
        case .malformedHead(let why): "The upstream's response head is malformed: \(why)"
        case .headTooLarge(let limit): "The upstream's response head is larger than \(limit) bytes."
        case .malformedBody(let why): "The upstream's response body is malformed: \(why)"
        case .truncated: "The upstream closed the connection before the end of the response."
        }
    }
}

/// What the parser found in the bytes fed so far.
package enum HTTPResponseParserEvent: Sendable, Equatable {
    /// A final (non-1xx) response head; for a 101 the bytes after it are the upgraded
    /// protocol's (`takeBytesAfterUpgrade`).
    case head(HTTPResponseHead)
    /// The next bytes of the body, de-chunked.
    case body([UInt8])
    /// The response is complete; the connection may carry another one if its head said so.
    case end
    /// The response cannot be read; the parser stops here.
    case failure(HTTPResponseParseError)
}

/// An incremental HTTP/1.1 response parser (RFC 9112) for the proxy's upstream
/// connections. It takes bytes, never a socket, and gives the same events however the
/// input is split. Interim 1xx responses (100 Continue, 103 Early Hints) are skipped, but
/// for 101, which ends HTTP on the connection.
///
/// Body framing (RFC 9112 §6.3): none for a `HEAD` request's answer, 1xx, 204 and 304;
/// chunked when `Transfer-Encoding` ends in `chunked`; else `Content-Length`; else the body
/// lasts until the connection closes (`finish`).
package struct HTTPResponseParser: Sendable {
    enum State: Sendable, Equatable {
        case head
        case fixedBody(remaining: Int)
        case untilClose
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case done
        case upgraded
        case failed
    }

    /// Largest head, status line and fields together. Default 64 KiB.
    package let maxHeadBytes: Int
    /// Most header fields. Default 200.
    package let maxHeaderCount: Int
    /// Whether the request was `HEAD`, whose answer has no body whatever it says.
    package let requestWasHead: Bool
    var state: State = .head
    var buffer: [UInt8] = []
    /// Where the search for the end of the head resumes.
    var scanOffset = 0

    package init(requestWasHead: Bool = false, maxHeadBytes: Int = 64 * 1024, maxHeaderCount: Int = 200) {
        self.requestWasHead = requestWasHead
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
    }

    /// Whether a final head has been read.
    package var hasHead: Bool {
        switch state {
        case .head, .failed: false
        default: true
        }
    }

    /// Feeds the next bytes and returns every event they complete.
    package mutating func feed<C: Collection>(_ bytes: C) -> [HTTPResponseParserEvent] where C.Element == UInt8 {
        switch state {
        case .failed, .upgraded, .done: return []
        case .untilClose, .fixedBody:
            // The common case of a body in flight: hand the bytes on without buffering.
            if buffer.isEmpty { return passBody(Array(bytes)) }
        default: break
        }
        buffer.append(contentsOf: bytes)
        var events: [HTTPResponseParserEvent] = []
        var consumed = 0
        while let event = step(consumed: &consumed) {
            events.append(event)
            if case .failure = event {
                state = .failed
                buffer = []
                return events
            }
        }
        if consumed > 0 {
            buffer.removeFirst(consumed)
            scanOffset = max(0, scanOffset - consumed)
        }
        return events
    }

    /// The connection ended (FIN): the end of a close-delimited body, or a truncation.
    package mutating func finish() -> [HTTPResponseParserEvent] {
        switch state {
        case .untilClose:
            state = .done
            return [.end]
        case .done, .failed, .upgraded:
            return []
        default:
            state = .failed
            return [.failure(.truncated)]
        }
    }

    /// After a 101: the bytes that followed its head, the upgraded protocol's first.
    package mutating func takeBytesAfterUpgrade() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    private mutating func passBody(_ bytes: [UInt8]) -> [HTTPResponseParserEvent] {
        guard !bytes.isEmpty else { return [] }
        switch state {
        case .untilClose:
            return [.body(bytes)]
        case .fixedBody(let remaining):
            if bytes.count < remaining {
                state = .fixedBody(remaining: remaining - bytes.count)
                return [.body(bytes)]
            }
            state = .done
            // Bytes past the end belong to nothing (a keep-alive upstream sends no response
            // unasked); they are dropped.
            return [.body(Array(bytes.prefix(remaining))), .end]
        default:
            return []
        }
    }

    private mutating func step(consumed: inout Int) -> HTTPResponseParserEvent? {
        if pendingEnd {
            pendingEnd = false
            return .end
        }
        while true {
            switch state {
            case .failed, .upgraded, .done:
                return nil
            case .head:
                guard let outcome = parseHead(from: &consumed) else { return nil }
                switch outcome {
                case .failure(let error): return .failure(error)
                case .interim: continue
                case .final(let head):
                    if state == .done { pendingEnd = true }
                    return .head(head)
                }
            case .untilClose:
                guard consumed < buffer.count else { return nil }
                let bytes = Array(buffer[consumed...])
                consumed = buffer.count
                return .body(bytes)
            case .fixedBody(let remaining):
                let take = min(remaining, buffer.count - consumed)
                guard take > 0 else { return nil }
                let bytes = Array(buffer[consumed..<(consumed + take)])
                consumed += take
                if take == remaining {
                    // The end comes on the next step; bytes past it belong to nothing.
                    state = .done
                    pendingEnd = true
                    consumed = buffer.count
                } else {
                    state = .fixedBody(remaining: remaining - take)
                }
                return .body(bytes)
            case .chunkSize:
                switch nextLine(from: &consumed, limit: 4096) {
                case .needMore: return nil
                case .tooLong, .bareCR: return .failure(.malformedBody("a chunk-size line is not valid"))
                case .line(let line):
                    guard let size = HTTPRequestParser.chunkSize(line) else {
                        return .failure(.malformedBody("a chunk size is not hexadecimal"))
                    }
                    state = size == 0 ? .trailers(bytes: 0) : .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - consumed)
                guard take > 0 else { return nil }
                let bytes = Array(buffer[consumed..<(consumed + take)])
                consumed += take
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
                return .body(bytes)
            case .chunkDataEnd:
                switch nextLine(from: &consumed, limit: 0) {
                case .needMore: return nil
                case .line: state = .chunkSize
                case .tooLong, .bareCR: return .failure(.malformedBody("chunk data is not followed by CRLF"))
                }
            case .trailers(let bytes):
                let start = consumed
                switch nextLine(from: &consumed, limit: max(0, maxHeadBytes - bytes)) {
                case .needMore: return nil
                case .tooLong: return .failure(.headTooLarge(maxHeadBytes))
                case .bareCR: return .failure(.malformedBody("a trailer line contains a bare CR"))
                case .line(let line):
                    if line.isEmpty {
                        state = .done
                        return .end
                    }
                    state = .trailers(bytes: bytes + consumed - start)
                }
            }
        }
    }

    /// Set when a response is complete as of the last event (its body's last bytes, or a
    /// head without a body), so the next step returns the end.
    var pendingEnd = false

    enum HeadOutcome {
        case failure(HTTPResponseParseError)
        /// A 1xx other than 101, skipped.
        case interim
        case final(HTTPResponseHead)
    }

    /// Parses a head once its blank line has arrived; nil while it has not.
    private mutating func parseHead(from consumed: inout Int) -> HeadOutcome? {
        let start = max(consumed, scanOffset)
        var end: Int?
        var index = start
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                // A blank line: LF LF or LF CR LF.
                if index + 1 < buffer.count, buffer[index + 1] == UInt8(ascii: "\n") {
                    end = index + 2
                    break
                }
                if index + 2 < buffer.count, buffer[index + 1] == UInt8(ascii: "\r"),
                    buffer[index + 2] == UInt8(ascii: "\n")
                {
                    end = index + 3
                    break
                }
            }
            index += 1
        }
        guard let end else {
            if buffer.count - consumed > maxHeadBytes { return .failure(.headTooLarge(maxHeadBytes)) }
            scanOffset = max(consumed, buffer.count - 2)
            return nil
        }
        guard end - consumed <= maxHeadBytes else { return .failure(.headTooLarge(maxHeadBytes)) }
        let text = buffer[consumed..<end]
        consumed = end
        scanOffset = end
        var lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first else { return .failure(.malformedHead("no status line")) }
        guard let (version, status, reason) = Self.statusLine(statusLine) else {
            return .failure(.malformedHead("the status line is not HTTP/1.x and a three-digit status"))
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
                return .failure(.malformedHead("a folded header line (RFC 9112 §5.2)"))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line[..<colon].allSatisfy(HTTPToken.isTChar)
            else { return .failure(.malformedHead("a header line is not `name: value`")) }
            let value = line[(colon + 1)...].drop { $0 == 32 || $0 == 9 }
            guard !value.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\r") }) else {
                return .failure(.malformedHead("a header value contains CR or NUL"))
            }
            var trimmed = value[...]
            while let last = trimmed.last, last == 32 || last == 9 { trimmed = trimmed.dropLast() }
            headers.add(String(decoding: line[..<colon], as: UTF8.self), String(decoding: trimmed, as: UTF8.self))
            if headers.count > maxHeaderCount { return .failure(.headTooLarge(maxHeadBytes)) }
        }
        if (100..<200).contains(status), status != 101 { return .interim }
        let head = HTTPResponseHead(version: version, status: status, reason: reason, headers: headers)
        switch bodyFraming(of: head) {
        case .failure(let error): return .failure(error)
        case .success(let next): state = next
        }
        return .final(head)
    }

    private func bodyFraming(of head: HTTPResponseHead) -> Result<State, HTTPResponseParseError> {
        if head.status == 101 { return .success(.upgraded) }
        if requestWasHead || head.status == 204 || head.status == 304 { return .success(.done) }
        let codings = head.headers.values(for: "Transfer-Encoding")
            .flatMap { $0.split(separator: ",").map { $0.trimmingSpaces().lowercased() } }
        if !codings.isEmpty {
            // Chunked last means chunked framing; otherwise the body runs to the close.
            return .success(codings.last == "chunked" ? .chunkSize : .untilClose)
        }
        let lengths = Set(
            head.headers.values(for: "Content-Length").flatMap { $0.split(separator: ",").map { $0.trimmingSpaces() } })
        guard !lengths.isEmpty else { return .success(.untilClose) }
        guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.count <= 18,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
        else { return .failure(.malformedBody("Content-Length is not one number")) }
        return .success(length == 0 ? .done : .fixedBody(remaining: length))
    }

    /// `HTTP/1.1 200 OK`: the version, the status and the reason (maybe empty).
    static func statusLine(_ line: ArraySlice<UInt8>) -> (HTTPVersion, Int, String)? {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        let version: HTTPVersion
        switch parts[0] {
        case "HTTP/1.1": version = .http11
        case "HTTP/1.0": version = .http10
        default: return nil
        }
        guard parts[1].count == 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1]),
            status >= 100
        else { return nil }
        return (version, status, parts.count > 2 ? String(parts[2]) : "")
    }

    typealias LineResult = HTTPLineReader.LineResult

    func nextLine(from consumed: inout Int, limit: Int) -> LineResult {
        HTTPLineReader.nextLine(in: buffer, from: &consumed, limit: limit)
    }
}
