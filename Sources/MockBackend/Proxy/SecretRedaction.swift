import MockBackendHTTP

/// How secrets of proxied traffic are shown wherever the mock shows a request — the
/// request journal, the stream journal, the admin feed, the proxy's session list: never
/// whole. `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and the session
/// token (`--proxy-token`, in a header, a cookie or the query) keep at most their first six
/// characters, followed by `…`.
struct SecretRedaction: Sendable {
    let token: ProxyTokenSource

    /// A secret as shown: its first characters (six at most, and never more than a third of
    /// it) and `…`.
    static func redact(_ secret: String) -> String {
        String(secret.prefix(min(6, secret.count / 3))) + "…"
    }

    /// `request` as journals show it.
    func redacting(_ request: HTTPRequest) -> HTTPRequest {
        var shown = request
        shown.headers = redacting(request.headers)
        if case .query(let name) = token, let value = request.queryValue(name) {
            shown.target = Self.replacingQueryValue(of: name, in: request.target, with: Self.redact(value))
        }
        return shown
    }

    /// `request`'s target as logs show it: the token's query parameter redacted, and so is a
    /// token named in an admin path (`/__admin/proxy/sessions/{token}/…`) unless it is an id.
    func loggedTarget(of request: HTTPRequest) -> String {
        var target = request.target
        if case .query(let name) = token, let value = request.queryValue(name) {
            target = Self.replacingQueryValue(of: name, in: target, with: Self.redact(value))
        }
        let prefix = "/__admin/proxy/sessions/"
        guard target.hasPrefix(prefix) else { return target }
        let rest = target.dropFirst(prefix.count)
        let key = rest.prefix { $0 != "/" && $0 != "?" }
        guard !key.isEmpty, !ProxySessions.isID(key) else { return target }
        return prefix + Self.redact(String(key)) + rest.dropFirst(key.count)
    }

    /// Header fields as journals show them.
    func redacting(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(
            headers.map { field -> (String, String) in
                switch field.name.lowercased() {
                case "authorization", "proxy-authorization":
                    let parts = field.value.split(separator: " ", maxSplits: 1)
                    guard parts.count == 2 else { return (field.name, Self.redact(field.value)) }
                    return (field.name, "\(parts[0]) \(Self.redact(String(parts[1])))")
                case "cookie":
                    return (field.name, Self.redactingCookies(field.value, separator: ";"))
                case "set-cookie":
                    // Only the first pair is the cookie; the attributes after it stay readable.
                    guard let semicolon = field.value.firstIndex(of: ";") else {
                        return (field.name, Self.redactingCookies(field.value, separator: ";"))
                    }
                    return (
                        field.name,
                        Self.redactingCookies(String(field.value[..<semicolon]), separator: ";")
                            + field.value[semicolon...]
                    )
                default:
                    if case .header(let name) = token, HTTPHeaders.equalIgnoringCase(name, field.name) {
                        return (field.name, Self.redact(field.value))
                    }
                    return (field.name, field.value)
                }
            })
    }

    private static func redactingCookies(_ value: String, separator: Character) -> String {
        value.split(separator: separator).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return String(pair) }
            return "\(parts[0])=\(redact(String(parts[1])))"
        }.joined(separator: String(separator))
    }

    /// `target` with the value of query parameter `name` replaced.
    static func replacingQueryValue(of name: String, in target: String, with replacement: String) -> String {
        guard let question = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .map { pair -> String in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, PercentDecoding.decode(parts[0], plusAsSpace: true) == name else {
                    return String(pair)
                }
                return "\(parts[0])=\(replacement)"
            }
        return String(target[...question]) + query.joined(separator: "&")
    }
}
