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

    static func head(
        status: Int, headers: HTTPHeaders, version: HTTPVersion, framing: BodyFraming, keepAlive: Bool
    ) -> [UInt8] {
        var text = version == .http10 ? "HTTP/1.0 " : "HTTP/1.1 "
        text += "\(status) \(HTTPStatus.reasonPhrase(status))\r\nDate: \(HTTPDate.now())\r\nServer: mockbackend\r\n"
        for field in headers where !framingFields.contains(where: { HTTPHeaders.equalIgnoringCase($0, field.name) }) {
            text += "\(field.name): \(field.value)\r\n"
        }
        switch framing {
        case .length(let count): text += "Content-Length: \(count)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .closeDelimited, .none: break
        }
        if !keepAlive {
            text += "Connection: close\r\n"
        } else if version == .http10 {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

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
