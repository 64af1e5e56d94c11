import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `request` a template reads, WireMock's request model: `url`, `path` (also indexed
/// by segment), `pathSegments`, `query`, `method`, `host`, `port`, `scheme`, `baseUrl`,
/// `headers` (any case), `cookies`, `body`, `bodyAsBase64`, `clientIp`, `id` (a UUID for
/// each request), and the older `requestLine` group with the same names.
enum TemplateRequestModel {
    static func content(of request: HTTPRequest, id: String, pathVariables: [String: String] = [:]) -> TemplateContent {
        let segments = request.path.split(separator: "/").map { PercentDecoding.decode($0) ?? String($0) }
        let path = TemplateContent.path(request.path, segments: segments, variables: pathVariables)
        var query: [String: [String]] = [:]
        for item in request.queryItems { query[item.name, default: []].append(item.value) }
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers {
            let existing = headers.keys.first { HTTPHeaders.equalIgnoringCase($0, name) } ?? name
            headers[existing, default: []].append(value)
        }
        var cookies: [String: [String]] = [:]
        for cookie in ProxyTokenSource.cookies(in: request.headers) {
            cookies[cookie.name, default: []].append(cookie.value)
        }
        let authority = request.headers["Host"] ?? "localhost"
        let (host, port) = Self.split(authority: authority, scheme: request.scheme)
        let url = request.path + (request.query.map { "?" + $0 } ?? "")
        let line: [String: TemplateContent] = [
            "method": .text(request.method),
            "url": .text(url),
            "path": path,
            "pathSegments": path,
            "query": .fields(query.mapValues(TemplateContent.values), caseInsensitive: false),
            "scheme": .text(request.scheme),
            "host": .text(host),
            "port": .json(.integer(port)),
            "baseUrl": .text("\(request.scheme)://\(authority)"),
        ]
        var fields = line
        fields["requestLine"] = .fields(line, caseInsensitive: false)
        fields["headers"] = .fields(headers.mapValues(TemplateContent.values), caseInsensitive: true)
        fields["cookies"] = .fields(cookies.mapValues(TemplateContent.values), caseInsensitive: false)
        fields["body"] = .text(String(decoding: request.body, as: UTF8.self))
        fields["bodyAsBase64"] = .text(Data(request.body).base64EncodedString())
        fields["id"] = .text(id)
        fields["clientIp"] = request.remoteAddress.map(TemplateContent.text) ?? .json(.null)
        return .fields(["request": .fields(fields, caseInsensitive: false)], caseInsensitive: false)
    }

    /// `host[:port]` (`[v6]:port` too) into the host and the port, the scheme's when none.
    private static func split(authority: String, scheme: String) -> (String, Int) {
        let defaultPort = scheme == "https" ? 443 : 80
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        let parts = authority.split(separator: ":", maxSplits: 1)
        return (String(parts.first ?? ""), parts.count > 1 ? Int(parts[1]) ?? defaultPort : defaultPort)
    }
}
