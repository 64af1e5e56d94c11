import MockBackendHTTP

/// A mapping that proxies its path (WireMock's `response.proxyBaseUrl`, with
/// `proxyUrlPrefixToRemove`, `additionalProxyRequestHeaders` and
/// `removeProxyRequestHeaders`): the request goes to `origin`, streamed back as in proxy
/// mode (README, "Put it in front of your own backend").
struct StubProxyTarget: Sendable {
    var origin: UpstreamOrigin
    var adjustments: ProxyForwarder.Adjustments

    static let fields = [
        "proxyBaseUrl", "proxyUrlPrefixToRemove", "additionalProxyRequestHeaders", "removeProxyRequestHeaders",
    ]

    /// Reads the proxy fields of a `response`; nil when it has no `proxyBaseUrl`.
    static func parse(_ reader: MappingFieldReader) throws(StubMappingError) -> StubProxyTarget? {
        guard let base = try reader.string("proxyBaseUrl") else {
            if let other = fields.dropFirst().first(where: reader.has) {
                throw StubMappingError(field: reader.field(other), "needs proxyBaseUrl")
            }
            return nil
        }
        guard let origin = UpstreamOrigin(url: base) else {
            throw StubMappingError(
                field: reader.field("proxyBaseUrl"), "must be an http:// or https:// URL with no query or user info")
        }
        var adjustments = ProxyForwarder.Adjustments(prefixToRemove: try reader.string("proxyUrlPrefixToRemove"))
        if let added = try reader.object("additionalProxyRequestHeaders") {
            for name in added.fields.keys.sorted() {
                guard !name.isEmpty, name.utf8.allSatisfy(HTTPToken.isTChar) else {
                    throw StubMappingError(field: added.field(name), "is not a valid header name")
                }
                guard let value = try added.string(name) else { continue }
                guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                    throw StubMappingError(field: added.field(name), "must not contain CR, LF or NUL")
                }
                adjustments.addedHeaders.append((name, value))
            }
        }
        if let removed = try reader.array("removeProxyRequestHeaders") {
            for (index, item) in removed.enumerated() {
                guard case .string(let name) = item else {
                    throw StubMappingError(
                        field: reader.field("removeProxyRequestHeaders") + "[\(index)]", "must be a header name")
                }
                adjustments.removedHeaders.append(name)
            }
        }
        return StubProxyTarget(origin: origin, adjustments: adjustments)
    }
}
