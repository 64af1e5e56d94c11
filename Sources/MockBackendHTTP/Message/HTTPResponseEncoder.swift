/// How a response body is delimited on the wire (RFC 9112 §6.3).
enum BodyFraming: Equatable {
    /// `Content-Length: n`.
    case length(Int)
    /// `Transfer-Encoding: chunked` (HTTP/1.1 streams).
    case chunked
    /// Ends when the connection closes (HTTP/1.0 streams).
    case closeDelimited
    /// No body and no length field (1xx, 204, 304).
    case none
}

/// Serializes response heads and body chunks.
enum HTTPResponseEncoder {
    /// Fields the connection sets itself; a handler's values for them are dropped.
    private static let framingFields = ["Content-Length", "Transfer-Encoding", "Connection", "Date", "Server"]

    static let continueHead = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let lastChunk = Array("0\r\n\r\n".utf8)

    /// The response head, followed by `body` in the same buffer (one allocation, one write).
    /// Built as bytes: no intermediate string per field.
    static func head(
        status: Int, headers: HTTPHeaders, version: HTTPVersion, framing: BodyFraming, keepAlive: Bool,
        body: [UInt8] = []
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + headers.count * 48 + body.count)
        bytes += version == .http10 ? http10 : http11
        appendDecimal(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes += HTTPStatus.reasonPhrase(status).utf8
        bytes += crlfDate
        HTTPDate.appendNow(to: &bytes)
        bytes += crlfServer
        for field in headers where !isFramingField(field.name) {
            bytes += field.name.utf8
            bytes += colonSpace
            bytes += field.value.utf8
            bytes += crlf
        }
        switch framing {
        case .length(let count):
            bytes += contentLength
            appendDecimal(count, to: &bytes)
            bytes += crlf
        case .chunked:
            bytes += transferEncodingChunked
        case .closeDelimited, .none:
            break
        }
        if !keepAlive {
            bytes += connectionClose
        } else if version == .http10 {
            bytes += connectionKeepAlive
        }
        bytes += crlf
        bytes += body
        return bytes
    }

    private static func isFramingField(_ name: String) -> Bool {
        framingFields.contains { HTTPHeaders.equalIgnoringCase($0, name) }
    }

    /// Appends `value` (not negative) in decimal ASCII.
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        guard value > 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let start = bytes.count
        var rest = value
        while rest > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        bytes[start...].reverse()
    }

    private static let http11 = Array("HTTP/1.1 ".utf8)
    private static let http10 = Array("HTTP/1.0 ".utf8)
    private static let crlf = Array("\r\n".utf8)
    private static let colonSpace = Array(": ".utf8)
    private static let crlfDate = Array("\r\nDate: ".utf8)
    private static let crlfServer = Array("\r\nServer: mockbackend\r\n".utf8)
    private static let contentLength = Array("Content-Length: ".utf8)
    private static let transferEncodingChunked = Array("Transfer-Encoding: chunked\r\n".utf8)
    private static let connectionClose = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive = Array("Connection: keep-alive\r\n".utf8)

    /// One chunk: size in hex, CRLF, data, CRLF (RFC 9112 §7.1).
    /// Framed in one allocation: every broadcast event is framed once this way.
    static func chunk(_ data: [UInt8]) -> [UInt8] {
        var digits = 1
        var rest = data.count >> 4
        while rest > 0 {
            digits += 1
            rest >>= 4
        }
        let total = digits + data.count + 4
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            var value = data.count
            for index in (0..<digits).reversed() {
                buffer[index] = hexDigits[value & 15]
                value >>= 4
            }
            buffer[digits] = 13
            buffer[digits + 1] = 10
            data.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = buffer.baseAddress else { return }
                (to + digits + 2).initialize(from: from, count: source.count)
            }
            buffer[total - 2] = 13
            buffer[total - 1] = 10
            count = total
        }
    }

    /// 205 Reset Content: never any content, framed as `Content-Length: 0` (RFC 9110
    /// §15.3.6), whatever body a handler or a stub gave it.
    static let resetContent = 205

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether a status never carries a body (RFC 9110 §6.4.1).
    static func statusForbidsBody(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }
}
