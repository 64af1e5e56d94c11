/// Which web origins may read the server's answers, and the headers that say so (the Fetch
/// standard's CORS protocol, https://fetch.spec.whatwg.org/#http-cors-protocol).
///
/// A page on `http://localhost:3000` that calls the mock on `http://localhost:8080` is a
/// cross-origin caller: its browser sends a preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) before any request that is not "simple", and lets the
/// page read an answer only when the answer names the page's origin. With credentials
/// (cookies, `EventSource` with `withCredentials`) the origin must be named exactly, never
/// `*`, so the allowed origin is always echoed.
///
/// Pure: it looks at a request's headers and says what to answer or add.
public struct CORSPolicy: Sendable, Equatable {
    /// Which origins are allowed.
    public enum Mode: Sendable, Equatable {
        /// No CORS headers at all; preflights get the route's own answer.
        case off
        /// Every origin.
        case any
        /// These origins only (`scheme://host[:port]`, compared without case).
        case origins([String])
    }

    public var mode: Mode

    /// How long a browser may cache a preflight's answer: 10 minutes (Chromium caps it at
    /// two hours, Firefox at one day).
    public static let maxAgeSeconds = 600

    /// Response headers a page may read besides the CORS-safelisted ones: what clients of
    /// the mock read (the player session, the retry advice, a stream's position, where a
    /// created thing lives).
    public static let exposedHeaders = [
        "Retry-After", "Last-Event-ID", "X-SessionId", "Location", "ETag", "Content-Disposition", "Content-Length",
        "Content-Encoding", "Date",
    ]

    public init(mode: Mode) {
        self.mode = mode
    }

    /// Parses `--cors`: `off`, `any`, or origins separated by commas. Nil for an origin
    /// that is not `http(s)://host[:port]`.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "off": mode = .off
        case "any", "*": mode = .any
        default:
            // A trailing slash, as a URL copied from the address bar has, is forgiven.
            let origins = argument.split(separator: ",").map { part in
                let origin = part.trimmingSpaces()
                return String(origin.hasSuffix("/") ? origin.dropLast() : origin)
            }
            guard !origins.isEmpty, origins.allSatisfy(Self.isOrigin) else { return nil }
            mode = .origins(origins.map { Self.normalized($0) })
        }
    }

    /// Whether `text` is an origin as browsers send it: `http` or `https`, a host, maybe a
    /// port, and nothing else (no path, no trailing slash).
    public static func isOrigin(_ text: String) -> Bool {
        let lowered = text.lowercased()
        guard let schemeEnd = lowered.firstRange(of: "://") else { return false }
        let scheme = lowered[..<schemeEnd.lowerBound]
        let authority = lowered[schemeEnd.upperBound...]
        return (scheme == "http" || scheme == "https") && !authority.isEmpty
            && !authority.contains { "/?#@ ".contains($0) }
    }

    /// Whether `origin` is one this policy names explicitly (not merely allowed by `any`).
    public func names(_ origin: String) -> Bool {
        guard case .origins(let origins) = mode else { return false }
        return origins.contains(Self.normalized(origin))
    }

    /// Whether `origin` may read answers.
    public func allows(_ origin: String) -> Bool {
        switch mode {
        case .off: false
        case .any: true
        case .origins: names(origin)
        }
    }

    /// Whether `request` is a CORS preflight: `OPTIONS` with an `Origin` and an
    /// `Access-Control-Request-Method`.
    public static func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == "OPTIONS" && request.headers.contains("Origin")
            && request.headers.contains("Access-Control-Request-Method")
    }

    /// The answer to a preflight from an allowed origin: 204 allowing what it asks for,
    /// with credentials. Nil when the policy is off or the origin is not allowed (the route
    /// then answers, without CORS headers, and the browser refuses the call).
    public func preflightResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard Self.isPreflight(request), let origin = request.headers["Origin"], allows(origin) else { return nil }
        var headers = HTTPHeaders()
        headers.set("Access-Control-Allow-Origin", origin)
        headers.set("Access-Control-Allow-Credentials", "true")
        headers.set("Access-Control-Allow-Methods", request.headers["Access-Control-Request-Method"] ?? "GET")
        if let asked = request.headers["Access-Control-Request-Headers"], !asked.isEmpty {
            headers.set("Access-Control-Allow-Headers", asked)
        }
        // Private Network Access: a page on a public origin may call a server on loopback.
        if request.headers["Access-Control-Request-Private-Network"]?.lowercased() == "true" {
            headers.set("Access-Control-Allow-Private-Network", "true")
        }
        headers.set("Access-Control-Max-Age", String(Self.maxAgeSeconds))
        headers.set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: 204, headers: headers)
    }

    /// Adds the CORS headers to an answer to `request` from an allowed origin; leaves it as
    /// it is otherwise. A `Vary: Origin` goes on every answer the policy could have changed,
    /// so a cache never serves one origin's answer to another.
    public func decorate(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard mode != .off else { return }
        Self.addVary("Origin", to: &response.headers)
        guard let origin = request.headers["Origin"], allows(origin) else { return }
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.set("Access-Control-Allow-Credentials", "true")
        response.headers.set("Access-Control-Expose-Headers", Self.exposedHeaders.joined(separator: ", "))
    }

    private static func addVary(_ name: String, to headers: inout HTTPHeaders) {
        // Most answers have no Vary yet: one look at the fields, and the field is added.
        guard let vary = headers["Vary"] else { return headers.add("Vary", name) }
        guard !vary.isEmpty else { return headers.set("Vary", name) }
        guard !headers.listContains("Vary", token: name), !headers.listContains("Vary", token: "*") else { return }
        headers.set("Vary", vary + ", " + name)
    }

    /// An origin as compared: lower case, no trailing slash, no default port.
    static func normalized(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("http://"), text.hasSuffix(":80") { text.removeLast(3) }
        if text.hasPrefix("https://"), text.hasSuffix(":443") { text.removeLast(4) }
        return text
    }
}
