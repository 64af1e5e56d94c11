/// One request as parsed from the wire: body included, unless the body streams
/// (`bodyStream`).
public struct HTTPRequest: Sendable, Equatable {
    /// The method token exactly as sent (methods are case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request-target exactly as sent.
    public var target: String
    /// The path part of the target, still percent-encoded.
    public var path: String
    /// The query part of the target without `?`, still percent-encoded.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Where the body arrives when it is not read whole before the request is answered
    /// (`HTTPResponder.streamsBody(of:)`); `body` is empty then.
    package var bodyStream: RequestBodyStream?
    /// Values of the `{name}` segments of the route that matched, percent-decoded.
    public var pathParameters: [String: String] = [:]
    /// Identifies the connection the request arrived on, unique within one server.
    public var connectionID: UInt64 = 0
    /// The client's address as the connection saw it (`127.0.0.1`, `::1`); nil when not
    /// known (a request made in a test).
    public var remoteAddress: String?
    /// `http` or `https`: the listener it came in on.
    public var scheme = "http"
    /// For a request that came over HTTP/2, its stream's id; nil over HTTP/1.x.
    public var streamID: Int32?
    /// For a request that came over HTTP/2, the id of the connection its stream is one of.
    /// Its own `connectionID` is then the stream's, from the same sequence: to the event
    /// streams it subscribes to and to the journals, each HTTP/2 stream is a connection.
    public var http2ConnectionID: UInt64?

    /// The protocol it came over, as journals name it: `http/1.0`, `http/1.1`, `h2` (HTTP/2
    /// over TLS) or `h2c` (HTTP/2 on the plain listener).
    public var protocolName: String {
        if version == .http2 { return scheme == "https" ? "h2" : "h2c" }
        return version == .http10 ? "http/1.0" : "http/1.1"
    }

    public init(
        method: String, target: String, version: HTTPVersion = .http11,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        // Searched as bytes: `?` is ASCII, so its index is a character boundary too.
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
    }

    /// Query parameters in order, percent-decoded with `+` read as a space
    /// (application/x-www-form-urlencoded).
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0], plusAsSpace: true) ?? String(parts[0])
            let value = parts.count > 1 ? (PercentDecoding.decode(parts[1], plusAsSpace: true) ?? String(parts[1])) : ""
            return (name: name, value: value)
        }
    }

    /// The first query parameter of that name.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Whether the request asks to switch protocols (RFC 9110 §7.8): an `Upgrade` field
    /// named in `Connection`, as its sender must; a server ignores `Upgrade` from HTTP/1.0.
    public var asksToSwitchProtocols: Bool {
        version != .http10 && headers.contains("Upgrade") && headers.listContains("Connection", token: "upgrade")
    }

    /// Whether the connection persists after this request's response (RFC 9112 §9.3).
    public var wantsKeepAlive: Bool {
        if headers.listContains("Connection", token: "close") { return false }
        if version.keepsAliveByDefault { return true }
        return headers.listContains("Connection", token: "keep-alive")
    }
}

/// Percent-decoding of URI components (RFC 3986 §2.1).
public enum PercentDecoding {
    /// Decodes `%XX` escapes; returns nil for a malformed escape or bytes that are not UTF-8.
    public static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String? {
        guard let bytes = decodeBytes(text, plusAsSpace: plusAsSpace) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Decodes `%XX` escapes to raw bytes; nil for a malformed escape.
    public static func decodeBytes<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                output.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                output.append(UInt8(ascii: " "))
            default:
                output.append(byte)
            }
        }
        return output
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
