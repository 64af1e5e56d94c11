/// What the parser found in the bytes fed so far.
package enum HTTPParserEvent: Sendable, Equatable {
    /// A request head with `Expect: 100-continue` and a body still to come (RFC 9110 §10.1.1).
    case continueExpected
    /// A whole request, body included.
    case request(HTTPRequest)
    /// A request whose body follows as `bodyPart`s and a `bodyEnd` (`streamsBody`); its
    /// `bodyStream` is where the connection puts them. `expectsContinue`: it asked for
    /// `100 Continue` before sending the body.
    case streamingRequest(HTTPRequest, expectsContinue: Bool)
    /// The next bytes of the streaming request's body.
    case bodyPart([UInt8])
    /// The streaming request's body is complete.
    case bodyEnd
    /// The bytes are not a valid request; the parser stops here for good.
    case failure(HTTPParseError)
}

/// An incremental HTTP/1.1 request parser (RFC 9112). It takes bytes, never a socket, and
/// gives the same events however the input is split.
///
/// Pipelined requests come out in order. After a `.failure` every further byte is ignored:
/// once framing is in doubt nothing after it can be trusted. After a request that asks to
/// switch protocols the parser stops too, holding the bytes that follow it unparsed until
/// the server says whether it switches (`declineUpgrade`, `takeBytesAfterUpgrade`): they
/// may belong to the next protocol (RFC 9110 §7.8).
package struct HTTPRequestParser: Sendable {
    enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        /// A streamed fixed-length body has had its last part; its end comes next.
        case streamedBodyEnd
        case failed
        /// A request asked to switch protocols; the bytes after it wait in `buffer`.
        case awaitingUpgrade
        /// The connection switched protocols; the parser has nothing more to do.
        case upgraded
    }

    package let limits: HTTPParserLimits
    var state: State = .head
    /// Bytes received and not yet consumed.
    var buffer: [UInt8] = []
    /// Where the search for the end of the head resumes, so a slowly arriving head is
    /// scanned once, not once per read.
    var scanOffset = 0
    /// The request whose body is being read.
    var pending: HTTPRequest?
    /// Whether the body being read goes out in parts (`streamingRequest`) instead of into
    /// `pending`.
    var streaming = false
    /// Whether the streamed request asks to switch protocols: the parser stops after its
    /// body, as after a whole such request.
    var streamedRequestUpgrades = false
    /// Decides, from a head whose body has not arrived whole, whether the body streams.
    /// A streamed body has no size limit: it is never held whole. Nil: none does.
    package var streamsBody: (@Sendable (HTTPRequest) -> Bool)?

    package init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// Whether part of a request has arrived and the rest has not.
    package var hasPartialRequest: Bool {
        switch state {
        case .head: !buffer.isEmpty
        case .failed, .awaitingUpgrade, .upgraded: false
        default: true
        }
    }

    /// Whether the head of the current request is complete and its body is still arriving.
    package var isReadingBody: Bool {
        switch state {
        case .head, .failed, .awaitingUpgrade, .upgraded: false
        default: true
        }
    }

    /// Whether the last request asked to switch protocols and the parser waits for the
    /// server's answer before it reads on.
    package var isAwaitingUpgrade: Bool {
        if case .awaitingUpgrade = state { return true }
        return false
    }

    /// The server answered the upgrade request without switching: the bytes held since are
    /// HTTP after all. Returns the events they complete.
    package mutating func declineUpgrade() -> [HTTPParserEvent] {
        guard isAwaitingUpgrade else { return [] }
        state = .head
        return feed(EmptyCollection())
    }

    /// The server switched protocols: returns the bytes received after the upgrade request,
    /// the first of the new protocol's. The parser takes no bytes from now on.
    package mutating func takeBytesAfterUpgrade() -> [UInt8] {
        guard isAwaitingUpgrade else { return [] }
        state = .upgraded
        scanOffset = 0
        defer { buffer = [] }
        return buffer
    }

    /// Feeds the next bytes and returns every event they complete.
    package mutating func feed<C: Collection>(_ bytes: C) -> [HTTPParserEvent] where C.Element == UInt8 {
        switch state {
        case .failed, .upgraded: return []
        default: break
        }
        buffer.append(contentsOf: bytes)
        var events: [HTTPParserEvent] = []
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

    /// Advances as far as the buffered bytes allow; returns the next event, or nil when
    /// more bytes are needed.
    private mutating func step(consumed: inout Int) -> HTTPParserEvent? {
        while true {
            switch state {
            case .failed, .awaitingUpgrade, .upgraded:
                return nil
            case .head:
                guard let outcome = parseHead(from: &consumed) else { return nil }
                switch outcome {
                case .failure(let error):
                    return .failure(error)
                case .complete(let request):
                    return complete(request)
                case .needsBody(let expectsContinue):
                    if expectsContinue { return .continueExpected }
                case .streamsBody(let request, let expectsContinue):
                    return .streamingRequest(request, expectsContinue: expectsContinue)
                }
            case .fixedBody(let remaining):
                if streaming {
                    guard let part = takePart(remaining, consumed: &consumed) else { return nil }
                    state = part.left > 0 ? .fixedBody(remaining: part.left) : .streamedBodyEnd
                    return .bodyPart(part.bytes)
                }
                let left = takeBody(remaining, consumed: &consumed)
                if left > 0 {
                    state = .fixedBody(remaining: left)
                    return nil
                }
                return finishRequest()
            case .chunkSize:
                let tooLong = HTTPParseError.invalidChunk(
                    "A chunk-size line is longer than \(limits.maxChunkLineLength) bytes.")
                let notHex = HTTPParseError.invalidChunk("A chunk-size line is not a hexadecimal size (RFC 9112 §7.1).")
                switch nextLine(from: &consumed, limit: limits.maxChunkLineLength) {
                case .needMore: return nil
                case .tooLong: return .failure(tooLong)
                case .bareCR: return .failure(notHex)
                case .line(let line):
                    guard let size = Self.chunkSize(line) else { return .failure(notHex) }
                    if size == 0 {
                        state = .trailers(bytes: 0)
                    } else if !streaming, (pending?.body.count ?? 0) + size > limits.maxBodyBytes {
                        return .failure(.payloadTooLarge(limits.maxBodyBytes))
                    } else {
                        state = .chunkData(remaining: size)
                    }
                }
            case .chunkData(let remaining):
                if streaming {
                    guard let part = takePart(remaining, consumed: &consumed) else { return nil }
                    state = part.left > 0 ? .chunkData(remaining: part.left) : .chunkDataEnd
                    return .bodyPart(part.bytes)
                }
                let left = takeBody(remaining, consumed: &consumed)
                if left > 0 {
                    state = .chunkData(remaining: left)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                switch nextLine(from: &consumed, limit: 0) {
                case .needMore: return nil
                case .line: state = .chunkSize
                case .tooLong, .bareCR: return .failure(.invalidChunk("Chunk data is not followed by CRLF."))
                }
            case .streamedBodyEnd:
                return finishStreamedBody()
            case .trailers(let bytes):
                // Trailer fields are read and dropped (RFC 9112 §7.1.2); the whole trailer
                // section counts against the header limit.
                let start = consumed
                switch nextLine(from: &consumed, limit: max(0, limits.maxHeaderBytes - bytes)) {
                case .needMore: return nil
                case .tooLong: return .failure(.headersTooLarge("The chunked trailer section is too large."))
                case .bareCR: return .failure(.invalidChunk("A trailer line contains a bare CR."))
                case .line(let line):
                    if line.isEmpty { return streaming ? finishStreamedBody() : finishRequest() }
                    state = .trailers(bytes: bytes + consumed - start)
                }
            }
        }
    }

    /// Moves up to `remaining` buffered bytes into the pending body; returns how many are
    /// still to come.
    private mutating func takeBody(_ remaining: Int, consumed: inout Int) -> Int {
        let take = min(remaining, buffer.count - consumed)
        pending?.body.append(contentsOf: buffer[consumed..<(consumed + take)])
        consumed += take
        return remaining - take
    }

    /// Up to `remaining` buffered bytes of a streamed body, and how many are still to come;
    /// nil when none is buffered.
    private func takePart(_ remaining: Int, consumed: inout Int) -> (bytes: [UInt8], left: Int)? {
        let take = min(remaining, buffer.count - consumed)
        guard take > 0 else { return nil }
        defer { consumed += take }
        return (Array(buffer[consumed..<(consumed + take)]), remaining - take)
    }

    private mutating func finishStreamedBody() -> HTTPParserEvent {
        state = streamedRequestUpgrades ? .awaitingUpgrade : .head
        streaming = false
        streamedRequestUpgrades = false
        return .bodyEnd
    }

    private mutating func finishRequest() -> HTTPParserEvent? {
        state = .head
        guard let request = pending else { return nil }
        pending = nil
        return complete(request)
    }

    /// A whole request; the parser stops after it when it asks to switch protocols.
    private mutating func complete(_ request: HTTPRequest) -> HTTPParserEvent {
        if request.asksToSwitchProtocols { state = .awaitingUpgrade }
        return .request(request)
    }

    typealias LineResult = HTTPLineReader.LineResult

    func nextLine(from consumed: inout Int, limit: Int) -> LineResult {
        HTTPLineReader.nextLine(in: buffer, from: &consumed, limit: limit)
    }

    /// `chunk-size [ chunk-ext ]`: 1 to 16 hex digits, optional whitespace, optional `;ext`.
    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = PercentDecoding.hexValue(line[index]) {
            size = size << 4 | Int(value)
            digits += 1
            index += 1
            if digits > 15 { return nil }
        }
        guard digits > 0 else { return nil }
        while index < line.endIndex, line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t") {
            index += 1
        }
        guard index == line.endIndex || line[index] == UInt8(ascii: ";") else { return nil }
        return size
    }
}
