import Dispatch
import MockBackendSupport

/// A request for an upstream server, ready to send: origin-form target (the base path
/// already applied), the fields to send as they are (`Host` included), the body in full or
/// as it arrives from the client (`bodyStream`).
package struct UpstreamRequest: Sendable {
    package var method: String
    package var target: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// A body sent on as the client sends it, after the head: with the client's
    /// `Content-Length`, or chunked when it had none.
    package var bodyStream: RequestBodyStream?

    package init(
        method: String, target: String, headers: HTTPHeaders, body: [UInt8] = [], bodyStream: RequestBodyStream? = nil
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
    }

    /// Whether it asks to switch protocols (`Upgrade`): a 101 answer then turns its
    /// connection into a tunnel.
    var asksToSwitchProtocols: Bool { headers["Upgrade"] != nil }

    /// The bytes on the wire: the request line, the fields, `Content-Length` when there is
    /// a body (or the method usually carries one), the body; for a streamed body only its
    /// framing, the body following as it comes.
    var encoded: [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        for field in headers
        where !HTTPHeaders.equalIgnoringCase(field.name, "Content-Length")
            && !HTTPHeaders.equalIgnoringCase(field.name, "Transfer-Encoding")
        {
            text += "\(field.name): \(field.value)\r\n"
        }
        if let bodyStream {
            text += bodyStream.declaredLength.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
        } else if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
            text += "Content-Length: \(body.count)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8) + body
    }
}

/// Why an upstream exchange failed.
package enum UpstreamFailure: Error, Sendable, Equatable {
    /// No connection: the name does not resolve, the connect is refused or unreachable, the
    /// TLS handshake fails (a certificate that does not verify). 502 `UPSTREAM_UNAVAILABLE`.
    case unreachable(String)
    /// No response head in time. 504 `UPSTREAM_TIMEOUT`.
    case timedOut
    /// The response cannot be read. 502 `UPSTREAM_BAD_RESPONSE`.
    case badResponse(HTTPResponseParseError)
    /// After the head: the upstream closed the connection before the body's end (FIN).
    case closed
    /// After the head: the upstream reset the connection (RST).
    case reset
}

/// How an exchange ended.
package enum UpstreamEnding: Sendable, Equatable {
    /// The whole response arrived.
    case complete
    case failed(UpstreamFailure)
}

/// What hears of an exchange's response. Called on the upstream connection's event loop, in
/// order: a head, body bytes, one ending (or only an ending, when no head came).
package protocol UpstreamResponseHandler: AnyObject, Sendable {
    func upstreamReceivedHead(_ head: HTTPResponseHead, of exchange: UpstreamExchange)
    func upstreamReceivedBody(_ bytes: [UInt8], of exchange: UpstreamExchange)
    func upstreamEnded(_ ending: UpstreamEnding, of exchange: UpstreamExchange)
}

/// One request sent upstream and its response coming back: what the caller holds to stop
/// it (its client left) or to hold the response back (its client reads slowly). Safe to
/// use from any thread; the work happens on the upstream connection's loop.
///
/// Invariant: `connection` and `ended` are read and written only on `queue`; the handler's
/// callbacks run there, each ending once.
package final class UpstreamExchange: @unchecked Sendable {
    package let request: UpstreamRequest
    package let server: UpstreamOrigin
    let queue: DispatchQueue
    /// Held until the exchange ends, so a handler nobody else keeps still hears the whole
    /// answer; let go then, which also breaks the cycle with a handler that holds its
    /// exchange.
    var handler: (any UpstreamResponseHandler)?
    /// The connection carrying it, once it has one.
    weak var connection: UpstreamConnection?
    /// Whether the caller gave up on it.
    var cancelled = false
    var ended = false
    /// Whether the caller asked to hold the response back.
    var paused = false
    /// When it was sent, for the latency the journal shows.
    package let startedAt = ContinuousClock.now

    init(request: UpstreamRequest, server: UpstreamOrigin, queue: DispatchQueue, handler: any UpstreamResponseHandler) {
        self.request = request
        self.server = server
        self.queue = queue
        self.handler = handler
    }

    /// Gives up: the connection closes (it is not reused) and the handler hears nothing more.
    package func cancel() {
        queue.async { [self] in
            guard !cancelled, !ended else { return }
            cancelled = true
            ended = true
            handler = nil
            connection?.exchangeCancelled(self)
        }
    }

    /// Sends `bytes` upstream on a connection that switched protocols (a 101 answer to an
    /// upgrade request): a tunnel's bytes from the client. Nothing otherwise.
    package func write(_ bytes: [UInt8]) {
        queue.async { [self] in
            guard !ended else { return }
            connection?.tunnelWrite(bytes, for: self)
        }
    }

    /// Ends a tunnel's sending half (FIN upstream) once what was written has gone.
    package func closeWrite() {
        queue.async { [self] in
            guard !ended else { return }
            connection?.tunnelCloseWrite(for: self)
        }
    }

    /// Stops reading the response until `resume`: the upstream's own sending then stalls
    /// on its socket buffers (back-pressure).
    package func pause() {
        queue.async { [self] in
            paused = true
            connection?.pauseReading(for: self)
        }
    }

    package func resume() {
        queue.async { [self] in
            paused = false
            connection?.resumeReading(for: self)
        }
    }

    /// Ends the exchange for the handler, once. On `queue`.
    func end(_ ending: UpstreamEnding) {
        guard !ended else { return }
        ended = true
        let handler = handler
        self.handler = nil
        handler?.upstreamEnded(ending, of: self)
    }
}
