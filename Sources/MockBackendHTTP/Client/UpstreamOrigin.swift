/// Where upstream requests go: a scheme, a host and a port, and a path prefix every target
/// is put under (`https://staging.example.com/api` sends `/v1/x` to `/api/v1/x`).
public struct UpstreamOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public var scheme: String
    /// A name or an address (an IPv6 address without brackets).
    public var host: String
    public var port: Int
    /// Empty, or a path starting with `/` and not ending with one.
    public var basePath: String

    public init(scheme: String, host: String, port: Int, basePath: String = "") {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.basePath = basePath
    }

    /// Parses `http(s)://host[:port][/path]`; nil for anything else (a query, a fragment,
    /// user info, another scheme).
    public init?(url: String) {
        let lowered = url.lowercased()
        let scheme: String
        if lowered.hasPrefix("http://") {
            scheme = "http"
        } else if lowered.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        let rest = url.dropFirst(scheme.count + 3)
        guard !rest.contains(where: { "?#@ ".contains($0) }) else { return nil }
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        let host: Substring
        var port = scheme == "https" ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            port = number
        } else {
            host = authority
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        self.init(scheme: scheme, host: String(host).lowercased(), port: port, basePath: path)
    }

    /// Whether `port` is the scheme's default.
    public var hasDefaultPort: Bool { port == (scheme == "https" ? 443 : 80) }

    /// `host[:port]` as a `Host` field writes it.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return hasDefaultPort ? name : "\(name):\(port)"
    }

    /// The same server without a path: what connections are pooled by.
    public var server: UpstreamOrigin { UpstreamOrigin(scheme: scheme, host: host, port: port) }

    public var description: String { "\(scheme)://\(authority)\(basePath)" }
}
