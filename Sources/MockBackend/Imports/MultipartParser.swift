import MockBackendHTTP

/// An incremental `multipart/form-data` parser (RFC 7578), framed as RFC 2046 §5.1.1 says.
///
/// Feed it a body in any chunks: it returns each part once the delimiter after it has
/// arrived, and gives the same parts, or the same error, however the body was split. After
/// an error every call throws that error again.
///
/// Lines end in CRLF only, as RFC 2046 requires; there is no LF-only leniency anywhere, so
/// the framing is the same in headers and bodies. An LF-only body fails at its first
/// delimiter line, a bare CR or LF in a part header is refused, and `LF--boundary` inside a
/// body is content.
///
/// The preamble, the epilogue and transport padding are dropped as they arrive and a header
/// section is held only up to `maxPartHeaderBytes`; a part's body is held until the part
/// completes, so bound the request body before feeding it.
package struct MultipartParser: Sendable {
    /// Where the parser is in the body.
    private enum State: Sendable {
        /// Before the first delimiter: the preamble, dropped.
        case preamble
        /// Just past a boundary: `--` for the close delimiter, or padding and CRLF before a part.
        /// `padded` once padding was seen, after which `--` no longer closes.
        case delimiterLine(padded: Bool)
        /// A part's header lines, up to the empty line; the buffer starts with the CRLF that
        /// ended the delimiter line.
        case head
        /// In a part's body, looking for the next delimiter.
        case body
        /// Past the close delimiter: the epilogue, dropped.
        case epilogue
        /// An error was thrown; every later call throws it again.
        case failed(MultipartError)
    }

    private let boundary: String
    /// CRLF "--" boundary.
    private let delimiter: [UInt8]
    private let maxPartHeaderBytes: Int
    private let maxParts: Int
    private var state = State.preamble
    /// Bytes received and not yet consumed.
    private var buffer: [UInt8]
    /// In `.head`, how far the buffer has been searched for the empty line.
    private var scanned = 0
    private var partCount = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []

    /// A parser for a body whose Content-Type has this boundary (see ``boundary(fromContentType:)``).
    ///
    /// - Parameters:
    ///   - maxPartHeaderBytes: the longest header section of one part, its empty line included; default 8192.
    ///   - maxParts: the most parts a body may have; default 100.
    package init(boundary: String, maxPartHeaderBytes: Int = 8192, maxParts: Int = 100) {
        self.boundary = boundary
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.maxPartHeaderBytes = maxPartHeaderBytes
        self.maxParts = maxParts
        // RFC 2046 §5.1.1: "The boundary delimiter MUST occur at the beginning of a line, i.e.,
        // following a CRLF, and the initial CRLF is considered to be attached to the boundary
        // delimiter line" — yet the first may open the body with no CRLF. A CRLF put before the
        // body lets one search find both; it would otherwise only have joined the dropped preamble.
        buffer = [cr, lf]
    }

    /// Incremental: feed any chunking of the body; returns parts completed by these bytes.
    package mutating func feed<C: Collection>(_ bytes: C) throws(MultipartError) -> [MultipartPart]
    where C.Element == UInt8 {
        switch state {
        case .failed(let error): throw error
        case .epilogue: return []
        default: break
        }
        buffer.append(contentsOf: bytes)
        var parts: [MultipartPart] = []
        do throws(MultipartError) {
            while try advance(into: &parts) {}
        } catch {
            fail(error)
            throw error
        }
        return parts
    }

    /// The body ended: throws unless the close delimiter (--boundary--) was seen.
    package mutating func finish() throws(MultipartError) {
        let error: MultipartError
        switch state {
        case .failed(let failure): error = failure
        case .epilogue: return
        case .preamble: error = .noDelimiter(boundary)
        case .delimiterLine, .head, .body: error = .unexpectedEnd(boundary)
        }
        fail(error)
        throw error
    }

    /// Convenience: parses a whole body.
    package static func parse(_ body: [UInt8], boundary: String) throws(MultipartError) -> [MultipartPart] {
        var parser = MultipartParser(boundary: boundary)
        let parts = try parser.feed(body)
        try parser.finish()
        return parts
    }

    private mutating func fail(_ error: MultipartError) {
        state = .failed(error)
        buffer = []
        body = []
    }

    /// Takes one step; false when it needs more bytes.
    private mutating func advance(into parts: inout [MultipartPart]) throws(MultipartError) -> Bool {
        switch state {
        case .preamble, .body: return readToDelimiter(into: &parts)
        case .delimiterLine(let padded): return try readDelimiterLine(padded: padded)
        case .head: return try readHead()
        case .epilogue, .failed:
            buffer = []
            return false
        }
    }

    /// Consumes preamble or body bytes up to the next delimiter, which completes the current part.
    private mutating func readToDelimiter(into parts: inout [MultipartPart]) -> Bool {
        let found = findDelimiter()
        let contentEnd = found?.start ?? buffer.count
        if case .body = state { body.append(contentsOf: buffer[..<contentEnd]) }
        guard let found, found.complete else {
            // Keep only what may begin a delimiter.
            buffer.removeFirst(contentEnd)
            return false
        }
        if case .body = state {
            parts.append(MultipartPart(headers: headers, body: body))
            body = []
        }
        buffer.removeFirst(found.start + delimiter.count)
        state = .delimiterLine(padded: false)
        return true
    }

    /// Where the first delimiter starts, and whether all of it has arrived; nil if none can start here.
    ///
    /// RFC 2046 §5.1.1: "Boundary string comparisons must compare the boundary value with the
    /// beginning of each candidate line. An exact match of the entire candidate line is not
    /// required; it is sufficient that the boundary appear in its entirety following the CRLF."
    /// So `--boundary` elsewhere in a line is content, and `--boundaryX` starting a line is a
    /// delimiter whose line then fails.
    private func findDelimiter() -> (start: Int, complete: Bool)? {
        var from = 0
        while let candidate = buffer[from...].firstIndex(of: cr) {
            let available = min(buffer.count - candidate, delimiter.count)
            if buffer[candidate..<candidate + available].elementsEqual(delimiter[..<available]) {
                return (candidate, available == delimiter.count)
            }
            from = candidate + 1
        }
        return nil
    }

    /// Reads what follows a boundary on its line.
    ///
    /// RFC 2046 §5.1.1: `delimiter transport-padding CRLF body-part` and
    /// `close-delimiter := delimiter "--"`; transport padding is spaces and tabs that "MUST be
    /// ignored". Padding is dropped as it arrives, so it takes no memory.
    private mutating func readDelimiterLine(padded: Bool) throws(MultipartError) -> Bool {
        if !padded, buffer.first == dash {
            guard buffer.count >= 2 else { return false }
            guard buffer[1] == dash else { throw .malformedDelimiterLine(boundary) }
            // The close delimiter; the epilogue after it is ignored.
            state = .epilogue
            buffer = []
            return false
        }
        let padding = buffer.prefix { $0 == space || $0 == tab }.count
        if padding > 0 {
            buffer.removeFirst(padding)
            state = .delimiterLine(padded: true)
        }
        guard let first = buffer.first else { return false }
        guard first == cr else { throw .malformedDelimiterLine(boundary) }
        guard buffer.count >= 2 else { return false }
        guard buffer[1] == lf else { throw .malformedDelimiterLine(boundary) }
        guard partCount < maxParts else { throw .tooManyParts(maxParts) }
        partCount += 1
        // The CRLF stays: an empty header section is then CRLF CRLF like any other.
        state = .head
        scanned = 0
        return true
    }

    /// Reads a part's header section once its empty line has arrived.
    ///
    /// RFC 2046 §5.1.1: `body-part := MIME-part-headers [CRLF *OCTET]`; the headers end at an
    /// empty line.
    private mutating func readHead() throws(MultipartError) -> Bool {
        // The section is the bytes after the delimiter line's CRLF through the empty line.
        guard let end = findEndOfHead() else {
            // Anything held now will be in the section, so this agrees with the check below
            // however the body was split.
            if buffer.count - 2 > maxPartHeaderBytes { throw .headersTooLong(maxPartHeaderBytes) }
            return false
        }
        if end + 2 > maxPartHeaderBytes { throw .headersTooLong(maxPartHeaderBytes) }
        headers = end == 0 ? HTTPHeaders() : try Self.parseHeaders(buffer[2..<end])
        buffer.removeFirst(end + 4)
        state = .body
        return true
    }

    /// The index of the CRLF CRLF ending the header section, resuming where the last search stopped.
    private mutating func findEndOfHead() -> Int? {
        var index = scanned
        while index + 3 < buffer.count {
            if buffer[index] == cr, buffer[index + 1] == lf, buffer[index + 2] == cr, buffer[index + 3] == lf {
                return index
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// Parses header lines separated by CRLF.
    private static func parseHeaders(_ section: ArraySlice<UInt8>) throws(MultipartError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var lineStart = section.startIndex
        var index = section.startIndex
        while index <= section.endIndex {
            let atLineEnd = index + 1 < section.endIndex && section[index] == cr && section[index + 1] == lf
            guard atLineEnd || index == section.endIndex else {
                index += 1
                continue
            }
            let field = try parseField(section[lineStart..<index])
            headers.add(field.name, field.value)
            index += 2
            lineStart = index
        }
        return headers
    }

    /// RFC 5322 §3.6.8: `field-name ":" unstructured CRLF` with `ftext = %d33-57 / %d59-126`.
    private static func parseField(_ line: ArraySlice<UInt8>) throws(MultipartError) -> (name: String, value: String) {
        // RFC 7578 §4.8 allows only Content-Type, Content-Disposition and Content-Transfer-Encoding,
        // none of which needs folding (RFC 5322 §2.2.3); like obs-fold in HTTP (RFC 9112 §5.2) it is refused.
        if let first = line.first, first == space || first == tab { throw .foldedLine }
        guard let colonIndex = line.firstIndex(of: colon) else {
            throw .missingColon(String(decoding: line.prefix(60), as: UTF8.self))
        }
        let nameBytes = line[..<colonIndex]
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard !nameBytes.isEmpty, nameBytes.allSatisfy({ $0 > space && $0 < 0x7F }) else {
            throw .invalidFieldName(name)
        }
        var value = line[(colonIndex + 1)...]
        while let first = value.first, first == space || first == tab { value.removeFirst() }
        while let last = value.last, last == space || last == tab { value.removeLast() }
        // A bare CR or LF left in a line lands here.
        guard value.allSatisfy({ ($0 >= space && $0 != 0x7F) || $0 == tab }) else {
            throw .controlCharacter(name)
        }
        return (name, String(decoding: value, as: UTF8.self))
    }
}

extension MultipartParser {
    /// The boundary parameter of a multipart/form-data Content-Type (quoted or not,
    /// case-insensitive parameter name), nil if the type is not multipart/form-data or has no
    /// valid boundary (1–70 chars, RFC 2046 bchars).
    package static func boundary(fromContentType contentType: String) -> String? {
        let field = HeaderParameters(contentType)
        // RFC 2045 §5.1: "The type, subtype, and parameter names are not case sensitive."
        guard field.value.lowercased() == "multipart/form-data", let boundary = field["boundary"],
            isValidBoundary(boundary)
        else { return nil }
        return boundary
    }

    /// RFC 2046 §5.1.1: `boundary := 0*69<bchars> bcharsnospace`, `bchars := bcharsnospace / " "`,
    /// `bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"`.
    private static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count), bytes.last != space else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default:
                Array("'()+_,-./:=? ".utf8).contains(byte)
            }
        }
    }
}

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")
private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let dash = UInt8(ascii: "-")
private let colon = UInt8(ascii: ":")
