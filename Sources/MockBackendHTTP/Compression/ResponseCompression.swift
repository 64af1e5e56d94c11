/// When responses are gzip-compressed (RFC 9110 §8.4.1, §12.5.3).
///
/// A body known in full is compressed when the request accepts gzip, the body is at
/// least `minimumBodyBytes` and its media type is text-like (JSON, text, YAML, JavaScript,
/// XML, SVG); images and other binary types are sent as they are. Event streams are
/// compressed only with `compressesEventStreams`, and then every write is flushed on its
/// own so no event waits for the next.
public struct ResponseCompression: Sendable {
    /// Off: nothing is compressed.
    public var isEnabled = true
    /// Smaller bodies are sent as they are: gzip's 18-byte frame and the CPU cost buy
    /// nothing there. Default 1024.
    public var minimumBodyBytes = 1024
    /// Whether `text/event-stream` responses are compressed (`--sse-gzip`). Default off:
    /// proxies and some clients buffer compressed streams.
    public var compressesEventStreams = false

    public init() {}

    /// Whether `request` accepts a gzip response: `gzip` (or `x-gzip`, or `*` when gzip
    /// is not named) with a nonzero quality in `Accept-Encoding` (RFC 9110 §12.5.3).
    public static func accepts(_ request: HTTPRequest) -> Bool {
        guard let header = request.headers["Accept-Encoding"] else { return false }
        var wildcard: Bool?
        for element in header.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let name = parts.first?.trimmingSpaces().lowercased() else { continue }
            let quality = parts.dropFirst().lazy.compactMap(Self.quality).first ?? 1
            switch name {
            case "gzip", "x-gzip": return quality > 0
            case "*": wildcard = quality > 0
            default: continue
            }
        }
        return wildcard ?? false
    }

    /// The `q` value of one parameter, or nil for another parameter.
    private static func quality(_ parameter: Substring) -> Double? {
        let pair = parameter.split(separator: "=", maxSplits: 1)
        guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { return nil }
        return Double(pair[1].trimmingSpaces()) ?? 0
    }

    /// Whether a body of this media type gains from compression.
    public static func isCompressible(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first?.trimmingSpaces().lowercased() ?? ""
        if type == "text/event-stream" { return false }
        return type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml")
            || [
                "application/json", "application/javascript", "application/yaml", "application/x-yaml",
                "application/xml",
            ].contains(type)
    }

    /// Whether a response of this media type is an event stream.
    static func isEventStream(contentType: String?) -> Bool {
        guard let contentType else { return false }
        return contentType.split(separator: ";").first?.trimmingSpaces().lowercased() == "text/event-stream"
    }
}
