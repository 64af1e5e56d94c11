extension HTTPConnection {
    /// Answers the upgrade request with 101 and switches the connection to WebSocket
    /// (RFC 6455 §4.2.2, RFC 9110 §7.8): a `WebSocketConnection` takes the socket over, with
    /// the 101 head queued, the bytes the client sent after the request (its first frames)
    /// and the timer; `onOpen` gets the writer before any frame is read. Called from
    /// `start` on the connection's queue.
    func startWebSocket(_ upgrade: WebSocketUpgrade, headers: HTTPHeaders, flight original: ResponseInFlight) {
        // Only the request the parser stopped after may switch: it is the last one read, so
        // nothing waits behind it (a request in `pending` would be one after it).
        guard parser.isAwaitingUpgrade, pending.isEmpty, original.request.asksToSwitchProtocols,
            !machine.shuttingDown
        else {
            let problem =
                machine.shuttingDown
                ? ProblemDetails(status: 503, code: "SERVER_STOPPING", detail: "The server is stopping.")
                : ProblemDetails(
                    status: 500, code: "WEBSOCKET_UPGRADE_UNAVAILABLE",
                    detail: "A WebSocket response answers only the upgrade request it was made for.")
            // `start` parses what followed the request as HTTP.
            start(problem.response, to: original.request, keepAlive: false)
            return
        }
        var flight = original
        flight.status = 101
        flight.keepAlive = false
        current = flight
        channel.enqueue(
            WebSocketHandshake.switchingProtocolsHead(accept: upgrade.accept, headers: headers), kind: .head)
        let configuration = context.configuration
        let connection = WebSocketConnection(
            channel: channel, timer: timer, configuration: configuration.webSocket,
            lingerTimeout: configuration.lingerTimeout, logger: context.logger
        ) { [weak self] reason in self?.upgradedConnectionClosed(reason) }
        upgraded = connection
        apply(machine.update(.responding, at: .now))
        connection.start(
            earlyBytes: parser.takeBytesAfterUpgrade(), onOpen: upgrade.onOpen, peerClosed: machine.peerClosed)
    }

    /// The request the parser stopped after is answered without switching: what followed
    /// it is HTTP after all, and is parsed now.
    func declineUpgradeIfAwaiting() {
        guard parser.isAwaitingUpgrade, pending.isEmpty else { return }
        enqueue(parser.declineUpgrade())
    }
}
