import MockBackendHTTP

/// What a proxy changes in the header fields it passes on (RFC 9110 §7.6).
enum ProxyHeaders {
    /// Fields about one connection only, never passed on (RFC 9110 §7.6.1), plus those the
    /// connection sets itself (framing) and `Expect`, which the mock answered already.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authorization", "content-length", "expect",
    ]

    /// `headers` without the hop-by-hop fields and those `Connection` names.
    static func forwardable(_ headers: HTTPHeaders) -> HTTPHeaders {
        let named = Set(
            headers.values(for: "Connection").flatMap { $0.split(separator: ",") }.map {
                $0.trimmingSpaces().lowercased()
            })
        return HTTPHeaders(
            headers.filter { field in
                let name = field.name.lowercased()
                return !hopByHop.contains(name) && !named.contains(name)
            }.map { ($0.name, $0.value) })
    }

    /// The fields of a request as it goes upstream: passed-on fields, `Host` the upstream's
    /// (or the client's with `preserveHost`), `X-Forwarded-For/-Proto/-Host` and `Via`
    /// added to what earlier proxies wrote.
    static func upstreamRequest(
        _ request: HTTPRequest, to upstream: UpstreamOrigin, preserveHost: Bool, extraRemovals: [String] = [],
        additions: [(String, String)] = []
    ) -> HTTPHeaders {
        var headers = forwardable(request.headers)
        for name in extraRemovals { headers.remove(name) }
        let clientHost = request.headers["Host"]
        if !preserveHost || clientHost == nil { headers.set("Host", upstream.authority) }
        let forwardedFor = [request.headers["X-Forwarded-For"], request.remoteAddress].compactMap { $0 }
        if !forwardedFor.isEmpty { headers.set("X-Forwarded-For", forwardedFor.joined(separator: ", ")) }
        headers.set("X-Forwarded-Proto", request.scheme)
        if let clientHost { headers.set("X-Forwarded-Host", clientHost) }
        appendVia(to: &headers)
        for (name, value) in additions { headers.set(name, value) }
        return headers
    }

    /// The fields of an upstream's response as the client gets them: passed-on fields and
    /// `Via`. `Date` and `Server` are the mock's connection's own.
    static func clientResponse(_ head: HTTPResponseHead) -> HTTPHeaders {
        var headers = forwardable(head.headers)
        appendVia(to: &headers, version: head.version == .http10 ? "1.0" : "1.1")
        return headers
    }

    /// Adds this proxy to `Via` (RFC 9110 §7.6.3), after the proxies before it.
    static func appendVia(to headers: inout HTTPHeaders, version: String = "1.1") {
        let via = "\(version) mockbackend"
        if let existing = headers["Via"], !existing.isEmpty {
            headers.set("Via", existing + ", " + via)
        } else {
            headers.set("Via", via)
        }
    }
}
