private let lf = UInt8(ascii: "\n")
private let cr = UInt8(ascii: "\r")
private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let colon = UInt8(ascii: ":")

extension HTTPRequestParser {
    enum HeadOutcome {
        case failure(HTTPParseError)
        case complete(HTTPRequest)
        case needsBody(expectsContinue: Bool)
        /// The body will come as parts (`HTTPRequestParser.streamsBody`).
        case streamsBody(HTTPRequest, expectsContinue: Bool)
    }

    /// The longest request line accepted: the target limit plus room for a method and version.
    private var requestLineLimit: Int { limits.maxTargetLength + 64 }

    /// Parses a whole head once its end is buffered; nil while it is not.
    mutating func parseHead(from consumed: inout Int) -> HeadOutcome? {
        // RFC 9112 §2.2: a server SHOULD ignore at least one empty line received before the
        // request-line (some clients send a CRLF after a POST body).
        while consumed < buffer.count, buffer[consumed] == cr || buffer[consumed] == lf {
            if buffer[consumed] == lf {
                consumed += 1
            } else if consumed + 1 < buffer.count {
                guard buffer[consumed + 1] == lf else {
                    return .failure(.malformedRequestLine("A bare CR precedes the request line."))
                }
                consumed += 2
            } else {
                return nil
            }
        }
        scanOffset = max(scanOffset, consumed)
        guard let end = findEndOfHead() else {
            // The same limits as for a whole head, checked early so a client cannot make
            // the server hold an endless head. Both checks depend only on bytes of this
            // head, so they agree with the checks on a whole head however it was split.
            let pendingBytes = buffer.count - consumed
            let lineWindow = buffer[consumed..<min(buffer.count, consumed + requestLineLimit + 1)]
            guard let requestLineEnd = lineWindow.firstIndex(of: lf) else {
                return pendingBytes > requestLineLimit ? .failure(.uriTooLong(limits.maxTargetLength)) : nil
            }
            if buffer.count - (requestLineEnd + 1) > limits.maxHeaderBytes {
                return .failure(.headersTooLarge("The header section is larger than \(limits.maxHeaderBytes) bytes."))
            }
            return nil
        }
        let head = buffer[consumed..<end]
        consumed = end
        scanOffset = end
        return interpretHead(head)
    }

    /// Finds the index just past the empty line that ends the head, resuming where the last
    /// search stopped. Lines may end in CRLF or a lone LF (RFC 9112 §2.2).
    private mutating func findEndOfHead() -> Int? {
        var index = scanOffset
        while let newline = buffer[index...].firstIndex(of: lf) {
            let next = newline + 1
            guard next < buffer.count else {
                scanOffset = newline
                return nil
            }
            if buffer[next] == lf { return next + 1 }
            if buffer[next] == cr {
                guard next + 1 < buffer.count else {
                    scanOffset = newline
                    return nil
                }
                if buffer[next + 1] == lf { return next + 2 }
            }
            index = next
        }
        scanOffset = buffer.count
        return nil
    }

    private mutating func interpretHead(_ head: ArraySlice<UInt8>) -> HeadOutcome {
        // The head ends in an empty line, so every line ends in LF.
        var lineStart = head.startIndex
        // The next line without its line end, moving `lineStart` past its LF; nil at the
        // empty line that ends the head.
        func nextLine() -> ArraySlice<UInt8>? {
            guard let newline = head[lineStart...].firstIndex(of: lf) else { return nil }
            var lineEnd = newline
            if lineEnd > lineStart, head[lineEnd - 1] == cr { lineEnd -= 1 }
            let line = head[lineStart..<lineEnd]
            lineStart = newline + 1
            return lineStart == head.endIndex ? nil : line
        }
        guard let requestLine = nextLine() else {
            return .failure(.malformedRequestLine("The request line is missing."))
        }
        // Size limits first, in the order the partial-head checks apply them.
        if requestLine.count > requestLineLimit - (head[requestLine.endIndex] == cr ? 1 : 0) {
            return .failure(.uriTooLong(limits.maxTargetLength))
        }
        if head.endIndex - lineStart > limits.maxHeaderBytes {
            return .failure(.headersTooLarge("The header section is larger than \(limits.maxHeaderBytes) bytes."))
        }
        if requestLine.contains(cr) { return .failure(.malformedRequestLine("The request line contains a bare CR.")) }
        let start: RequestLine
        switch RequestLine.parse(requestLine, limits: limits) {
        case .success(let line): start = line
        case .failure(let error): return .failure(error)
        }

        var headers = HTTPHeaders()
        while let line = nextLine() {
            if headers.count >= limits.maxHeaderCount {
                return .failure(.headersTooLarge("More than \(limits.maxHeaderCount) header fields."))
            }
            switch Self.parseField(line) {
            case .success(let field): headers.add(field.name, field.value)
            case .failure(let error): return .failure(error)
            }
        }

        var request = HTTPRequest(method: start.method, target: start.target, version: start.version, headers: headers)
        if start.version.keepsAliveByDefault {
            guard headers.count(of: "Host") == 1 else { return .failure(.missingHost) }
        } else if headers.count(of: "Host") > 1 {
            return .failure(.missingHost)
        }

        let framing: BodyFraming
        switch Self.framing(of: headers, version: start.version, limits: limits) {
        case .success(let value): framing = value
        case .failure(let error): return .failure(error)
        }
        let expectsContinue =
            headers["Expect"].map { HTTPHeaders.equalIgnoringCase($0.trimmingSpaces(), "100-continue") } ?? false
        if case .none = framing { return .complete(request) }
        if case .length(0) = framing { return .complete(request) }
        // A body already here whole is read whole, unless it is over the limit: whether a
        // body streams must not depend on how its bytes happened to arrive.
        let arrived = buffer.count - head.endIndex
        var wholeBodyHere = false
        if case .length(let length) = framing { wholeBodyHere = arrived >= length && length <= limits.maxBodyBytes }
        if !wholeBodyHere, let streamsBody, streamsBody(request) {
            switch framing {
            case .length(let length):
                request.bodyStream = RequestBodyStream(declaredLength: length)
                state = .fixedBody(remaining: length)
            default:
                request.bodyStream = RequestBodyStream(declaredLength: nil)
                state = .chunkSize
            }
            streaming = true
            streamedRequestUpgrades = request.asksToSwitchProtocols
            return .streamsBody(request, expectsContinue: expectsContinue)
        }
        switch framing {
        case .none:
            return .complete(request)
        case .length(let length):
            if length > limits.maxBodyBytes { return .failure(.payloadTooLarge(limits.maxBodyBytes)) }
            request.body.reserveCapacity(length)
            pending = request
            state = .fixedBody(remaining: length)
        case .chunked:
            pending = request
            state = .chunkSize
        }
        return .needsBody(expectsContinue: expectsContinue)
    }

    private enum BodyFraming {
        case none
        case length(Int)
        case chunked
    }

    /// Decides how the body is delimited (RFC 9112 §6.1–6.3), refusing every ambiguous case.
    private static func framing(of headers: HTTPHeaders, version: HTTPVersion, limits: HTTPParserLimits)
        -> Result<BodyFraming, HTTPParseError>
    {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1: a server MAY reject a request with both as smuggling; we always do.
            if !contentLengths.isEmpty { return .failure(.conflictingFraming) }
            // Transfer-Encoding did not exist in HTTP/1.0; a 1.0 message carrying it is
            // a framing fault waiting to happen (RFC 9112 §6.1).
            if !version.keepsAliveByDefault { return .failure(.transferEncodingInHTTP10) }
            let joined = transferEncodings.joined(separator: ",")
            let codings = joined.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
            guard let last = codings.last, last == "chunked" else {
                return .failure(.transferCodingNotChunked(joined))
            }
            guard codings.count == 1 else { return .failure(.unsupportedTransferCoding(joined)) }
            return .success(.chunked)
        }
        guard !contentLengths.isEmpty else { return .success(.none) }
        // A list of identical values (from repeated fields or "5, 5") is one value
        // (RFC 9112 §6.3 item 5); anything else is refused.
        var length: Int?
        for field in contentLengths {
            for item in field.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingSpaces()
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let value = Int(text)
                else { return .failure(.invalidContentLength(String(field))) }
                if let existing = length, existing != value { return .failure(.conflictingContentLength) }
                length = value
            }
        }
        guard let length else { return .success(.none) }
        return .success(.length(length))
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    private static func parseField(_ line: ArraySlice<UInt8>) -> Result<(name: String, value: String), HTTPParseError> {
        guard let first = line.first else { return .failure(.malformedHeader("An empty header line.")) }
        // RFC 9112 §5.2: obs-fold outside message/http is rejected with 400.
        if first == space || first == tab { return .failure(.obsoleteLineFolding) }
        guard let colonIndex = line.firstIndex(of: colon) else {
            return .failure(.malformedHeader("A header line has no colon."))
        }
        let name = line[line.startIndex..<colonIndex]
        // RFC 9112 §5.1: no whitespace is allowed between the field name and colon.
        guard !name.isEmpty, name.allSatisfy(HTTPToken.isTChar) else {
            return .failure(.malformedHeader("A header name is empty or holds characters outside token."))
        }
        var valueStart = colonIndex + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, line[valueStart] == space || line[valueStart] == tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == space || line[valueEnd - 1] == tab { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        // field-value is VCHAR, obs-text, SP and HTAB; NUL, CR and other controls are refused.
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == tab }) else {
            return .failure(.malformedHeader("A header value contains a control character."))
        }
        return .success((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
}

/// The three parts of a request line (RFC 9112 §3).
struct RequestLine {
    var method: String
    var target: String
    var version: HTTPVersion

    static func parse(_ line: ArraySlice<UInt8>, limits: HTTPParserLimits) -> Result<RequestLine, HTTPParseError> {
        guard let firstSpace = line.firstIndex(of: space),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: space),
            !line[(secondSpace + 1)...].contains(space)
        else {
            return .failure(.malformedRequestLine("A request line is METHOD SP TARGET SP HTTP-VERSION."))
        }
        let methodBytes = line[..<firstSpace]
        let targetBytes = line[(firstSpace + 1)..<secondSpace]
        let versionBytes = line[(secondSpace + 1)...]
        guard !methodBytes.isEmpty, !targetBytes.isEmpty, !versionBytes.isEmpty else {
            return .failure(.malformedRequestLine("A request line is METHOD SP TARGET SP HTTP-VERSION."))
        }
        guard methodBytes.allSatisfy(HTTPToken.isTChar) else {
            return .failure(.malformedRequestLine("The method is not a token."))
        }
        guard let version = parseVersion(versionBytes) else {
            return .failure(.malformedRequestLine("The protocol version is not HTTP/DIGIT.DIGIT."))
        }
        guard version.major == 1 else {
            return .failure(.versionNotSupported(String(decoding: versionBytes, as: UTF8.self)))
        }
        if targetBytes.count > limits.maxTargetLength { return .failure(.uriTooLong(limits.maxTargetLength)) }
        guard targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformedRequestLine("The request target contains a byte outside visible ASCII."))
        }
        let method = String(decoding: methodBytes, as: UTF8.self)
        let rawTarget = String(decoding: targetBytes, as: UTF8.self)
        guard let target = originForm(rawTarget, method: method) else {
            return .failure(.malformedRequestLine("The request target is not in origin, absolute or asterisk form."))
        }
        return .success(RequestLine(method: method, target: target, version: version))
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) -> HTTPVersion? {
        let base = bytes.startIndex
        guard bytes.count == 8, bytes[base..<(base + 5)].elementsEqual("HTTP/".utf8),
            bytes[base + 6] == UInt8(ascii: "."), let major = digit(bytes[base + 5]), let minor = digit(bytes[base + 7])
        else { return nil }
        return HTTPVersion(major: major, minor: minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// The target as origin-form: absolute-form keeps its path and query (RFC 9112 §3.2.2),
    /// `*` is kept for OPTIONS only.
    private static func originForm(_ target: String, method: String) -> String? {
        if target.hasPrefix("/") { return target }
        if target == "*" { return method == "OPTIONS" ? target : nil }
        let lowered = target.lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) {
            let rest = target.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
            let tail = rest[slash...]
            return tail.hasPrefix("?") ? "/" + tail : String(tail)
        }
        return nil
    }
}
