import MockBackendHTTP

/// Sends a request upstream and answers with what comes back, streamed (`ProxiedResponse`):
/// what the router's fallback does in proxy mode for a path no stub and no enabled
/// built-in backend answers, and what a mapping with `proxyBaseUrl` does for its path.
struct ProxyForwarder: Sendable {
    let context: ProxyContext

    /// How one mapping changes what goes upstream (WireMock's `proxyUrlPrefixToRemove`,
    /// `additionalProxyRequestHeaders`, `removeProxyRequestHeaders`).
    struct Adjustments: Sendable {
        var prefixToRemove: String?
        var addedHeaders: [(String, String)] = []
        var removedHeaders: [String] = []

        init(prefixToRemove: String? = nil, addedHeaders: [(String, String)] = [], removedHeaders: [String] = []) {
            self.prefixToRemove = prefixToRemove
            self.addedHeaders = addedHeaders
            self.removedHeaders = removedHeaders
        }
    }

    /// The answer to `request` from `upstream`: deferred until its head arrives, or at once
    /// when the session overlay answers it (an expired token) or it cannot be sent.
    func forward(_ request: HTTPRequest, to upstream: UpstreamOrigin, adjustments: Adjustments = Adjustments())
        -> HTTPResponse
    {
        let token = context.settings.token.token(in: request)
        if let token, let expired = context.sessions.noteRequest(token: token) { return expired }
        guard context.client.supports(scheme: upstream.scheme) else {
            return ProblemDetails(
                status: 502, code: "UPSTREAM_UNAVAILABLE",
                detail: "The upstream \(upstream) speaks \(upstream.scheme), which this server cannot reach."
            )
            .response
        }
        var outgoing = Self.upstreamRequest(
            for: request, to: upstream, preserveHost: context.settings.preserveHost, adjustments: adjustments)
        let deferred = DeferredResponse()
        let plain = ProxiedResponse(
            deferred: deferred, request: request, context: context, token: token, upstream: upstream,
            tape: context.recorder.tape(for: request))
        var handler: any UpstreamResponseHandler = plain
        if let upgrade = request.headers["Upgrade"] {
            guard request.asksToSwitchProtocols, upgrade.lowercased() == "websocket" else {
                return ProblemDetails(
                    status: 501, code: "PROXY_UPGRADE_UNSUPPORTED",
                    detail: "Only WebSocket upgrades are passed upstream, not \(upgrade)."
                )
                .response
            }
            let webSocket = ProxiedWebSocket(plain)
            outgoing.headers = webSocket.upstreamHeaders(from: outgoing.headers)
            handler = webSocket
        }
        let exchange = context.client.send(outgoing, to: upstream, handler: handler)
        // Also the WebSocket's: it keeps its request's state in `plain`.
        plain.exchange = exchange
        deferred.onCancel { exchange.cancel() }
        return .deferred(deferred)
    }

    /// The request as it goes upstream: under the upstream's base path, hop-by-hop fields
    /// dropped, forwarding fields added.
    static func upstreamRequest(
        for request: HTTPRequest, to upstream: UpstreamOrigin, preserveHost: Bool, adjustments: Adjustments
    ) -> UpstreamRequest {
        var target = request.target.hasPrefix("/") ? request.target : "/" + request.target
        if let prefix = adjustments.prefixToRemove, !prefix.isEmpty, target.hasPrefix(prefix) {
            target = String(target.dropFirst(prefix.count))
            if !target.hasPrefix("/") { target = "/" + target }
        }
        let headers = ProxyHeaders.upstreamRequest(
            request, to: upstream, preserveHost: preserveHost, extraRemovals: adjustments.removedHeaders,
            additions: adjustments.addedHeaders)
        return UpstreamRequest(
            method: request.method, target: upstream.basePath + target, headers: headers, body: request.body,
            bodyStream: request.bodyStream)
    }
}
