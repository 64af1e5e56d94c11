extension HTTPConnection {
    /// Answers queued requests in order while nothing is in flight. Re-entrant calls (a
    /// response that completes while it is being started) return at once; the outer loop
    /// carries on, so order is kept without recursion.
    func processPending() {
        assertOnQueue()
        guard !isProcessing else { return }
        isProcessing = true
        defer { isProcessing = false }
        while current == nil, lifecycle == .open, !pending.isEmpty {
            switch pending.removeFirst() {
            case .request(let request): respond(to: request)
            case .failure(let error): respondToParseFailure(error)
            }
        }
        guard lifecycle == .open else { return }
        if current == nil, pending.isEmpty, peerClosed || shuttingDown {
            // A client that has left gets no FIN dance; during shutdown the close is
            // graceful (FIN, then drain), as it is for an idle connection.
            if peerClosed {
                close(reason: .clientClosed)
            } else {
                closeAfterWrites()
            }
            return
        }
        if pending.count < context.configuration.maxPipelinedRequests, outbound.unsentBytes < 1 << 20,
            !parser.isAwaitingUpgrade
        {
            resumeReading()
        }
        updateDeadline()
    }

    private func respond(to request: HTTPRequest) {
        let response = context.responder.respond(to: request)
        start(response, to: request, keepAlive: request.wantsKeepAlive && !shuttingDown && !peerClosed)
    }

    private func respondToParseFailure(_ error: HTTPParseError) {
        // The version is unknown or unreliable here, so the answer is a plain HTTP/1.1 one.
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Host": ""])
        context.logger.debug("rejected request", metadata: ["connection": "\(id)", "error": "\(error)"])
        start(error.problem.response, to: request, keepAlive: false)
    }

    /// Queues the head (and a full body) of `response` and, for a stream, hands the
    /// producer its writer.
    func start(_ original: HTTPResponse, to request: HTTPRequest, keepAlive requestedKeepAlive: Bool) {
        // No timeout runs while a response is in flight. Passing through `.none` even for a
        // response written at once re-arms the phase after it (see `setDeadline`).
        setDeadline(.none)
        let (response, deflater) = applyingCompression(to: original, for: request)
        var keepAlive = requestedKeepAlive
        let isHead = request.method == "HEAD"
        let version: HTTPVersion = request.version == .http10 ? .http10 : .http11
        var flight = ResponseInFlight(
            request: request, status: response.status, keepAlive: keepAlive, chunked: false,
            shaper: response.shaper, writer: nil, producing: false, deflater: deflater, endReason: nil,
            startedAt: .now)
        let resetContent = response.status == HTTPResponseEncoder.resetContent
        let bodyless = isHead || resetContent || HTTPResponseEncoder.statusForbidsBody(response.status)

        switch response.body {
        case .bytes(let body):
            let framing: BodyFraming =
                HTTPResponseEncoder.statusForbidsBody(response.status)
                ? .none : .length(resetContent ? 0 : body.count)
            current = flight
            if flight.shaper == nil {
                // Head and body in one write: with TCP_NODELAY a separate small write per part
                // would cost a delayed-ACK round trip on every request.
                outbound.append(
                    .bytes(
                        HTTPResponseEncoder.head(
                            status: response.status, headers: response.headers, version: version, framing: framing,
                            keepAlive: keepAlive, body: bodyless ? [] : body)))
            } else {
                let head = HTTPResponseEncoder.head(
                    status: response.status, headers: response.headers, version: version, framing: framing,
                    keepAlive: keepAlive)
                enqueueShaped(head, kind: .head)
                if !bodyless { enqueueShaped(body, kind: .body) }
                enqueueShaped([], kind: .end)
            }
        case .stream(let produce):
            // HTTP/1.0 has no chunked coding: the body ends when the connection does.
            let chunked = version == .http11
            if !chunked { keepAlive = false }
            flight.keepAlive = keepAlive
            flight.chunked = chunked
            let framing: BodyFraming =
                resetContent ? .length(0) : bodyless ? .none : (chunked ? .chunked : .closeDelimited)
            let head = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, version: version, framing: framing,
                keepAlive: keepAlive)
            current = flight
            enqueueShaped(head, kind: .head)
            if bodyless {
                enqueueShaped([], kind: .end)
            } else {
                let writer = ResponseBodyWriter(connection: self)
                current?.writer = writer
                current?.producing = true
                if flight.shaper == nil, deflater == nil {
                    plainStream = PlainStream(writer: ObjectIdentifier(writer), chunked: chunked)
                }
                flush()
                guard lifecycle != .closed else { return }
                produce(writer)
            }
        case .webSocket(let upgrade):
            startWebSocket(upgrade, headers: response.headers, flight: flight)
            return
        }
        // An upgrade request answered without switching: what followed it is HTTP, parsed
        // now that this response is queued ahead of any answer to it (a 100 Continue).
        declineUpgradeIfAwaiting()
        flush()
    }

    /// Whether `writer` is the current response's and may still write. Reads fields of
    /// `current` in place: copying the whole in-flight response costs retains per write.
    private func isProducing(_ writer: ResponseBodyWriter) -> Bool {
        lifecycle != .closed && current?.writer === writer && current?.producing == true
    }

    /// A write from a stream's producer; stale writers (an earlier response) are ignored.
    func streamWrite(_ bytes: [UInt8], from writer: ResponseBodyWriter) {
        guard isProducing(writer) else { return }
        let encoded = current?.deflater?.compress(bytes) ?? bytes
        guard !encoded.isEmpty else { return }
        enqueueStreamBytes(current?.chunked == true ? HTTPResponseEncoder.chunk(encoded) : encoded, events: 0)
    }

    /// A write of bytes framed in advance (a broadcast), carrying `events` events.
    func streamWrite(_ prepared: PreparedBodyPart, events: Int, from writer: ResponseBodyWriter) {
        if let plain = plainStream, plain.writer == ObjectIdentifier(writer) {
            enqueueStreamBytes(
                plain.chunked ? prepared.chunk ?? HTTPResponseEncoder.chunk(prepared.raw) : prepared.raw,
                events: events)
            return
        }
        guard isProducing(writer) else { return }
        if let deflater = current?.deflater {
            // Each connection's deflate state differs: a compressed stream cannot share
            // the broadcast's framing.
            // A flushed deflate block holds every event written so far: an empty one adds
            // nothing new, and the events count once its block is out.
            let encoded = deflater.compress(prepared.raw)
            guard !encoded.isEmpty else { return }
            enqueueStreamBytes(current?.chunked == true ? HTTPResponseEncoder.chunk(encoded) : encoded, events: events)
            return
        }
        let chunked = current?.chunked == true
        enqueueStreamBytes(
            chunked ? prepared.chunk ?? HTTPResponseEncoder.chunk(prepared.raw) : prepared.raw, events: events)
    }

    /// The producer dropped the connection on purpose.
    func abortStream(from writer: ResponseBodyWriter, reset: Bool) {
        guard lifecycle != .closed, current?.writer === writer else { return }
        close(reason: .aborted, reset: reset)
    }

    /// Queues framed stream bytes carrying `events` events, or disconnects a reader that has
    /// fallen too far behind. With nothing queued before them and no shaper, the bytes go
    /// straight to the socket.
    private func enqueueStreamBytes(_ framed: [UInt8], events: Int) {
        if plainStream != nil, outbound.isEmpty, !writeArmed, !isPausing {
            writeDirectly(framed, events: events)
            return
        }
        if outbound.unsentBytes + framed.count > context.configuration.maxUnsentStreamBytes {
            disconnectSlowReader()
            return
        }
        enqueueShaped(framed, kind: .body, events: events)
        flush()
    }

    /// Writes stream bytes that nothing is queued before: one system call, and only what the
    /// socket does not take now is queued (the common case of a broadcast to thousands of
    /// readers that keep up costs no queue operations at all). Their `events` are delivered
    /// once their last byte is written.
    func writeDirectly(_ bytes: [UInt8], events: Int) {
        let result: IOResult
        let stream = stream  // a closure capturing `self` would retain the connection
        do {
            result = try bytes.withUnsafeBytes { buffer throws(SocketError) in try stream.write(buffer) }
        } catch {
            close(reason: .clientClosed)
            return
        }
        var written = 0
        if case .processed(let count) = result {
            if count == bytes.count {
                if events > 0 { streamDeliveries?.noteDelivered(events) }
                return
            }
            written = count
        }
        // The bound applies to what the socket did not take.
        if bytes.count - written > context.configuration.maxUnsentStreamBytes {
            disconnectSlowReader()
            return
        }
        outbound.appendMerging(Array(bytes[written...]), limit: Self.mergedWriteLimit)
        outbound.append(.delivered(events: events))
        flush()
    }

    func disconnectSlowReader() {
        context.logger.info(
            "disconnecting slow reader", metadata: ["connection": "\(id)", "unsent": "\(outbound.unsentBytes)"])
        close(reason: .slowReader)
    }

    /// The producer ended the stream.
    func finishStream(from writer: ResponseBodyWriter) {
        guard isProducing(writer) else { return }
        endStream(reason: .finished)
    }

    /// Queues the end of the body and stops the producer.
    func endStream(reason: StreamEndReason) {
        guard let flight = current, flight.producing else { return }
        current?.producing = false
        current?.endReason = reason
        plainStream = nil
        if let trailer = flight.deflater?.finish() {
            enqueueShaped(flight.chunked ? HTTPResponseEncoder.chunk(trailer) : trailer, kind: .body)
        }
        enqueueShaped(flight.chunked ? HTTPResponseEncoder.lastChunk : [], kind: .end)
        if !flight.chunked { current?.keepAlive = false }
        // The writer learns of the end once the last bytes are out (`completeCurrent`) or
        // the connection closes: its deliveries are complete by then.
        flush()
    }

    /// Largest write that stream bytes queued behind a slow socket are merged into.
    static let mergedWriteLimit = 64 * 1024

    /// Queues one write of the response through its shaper, if it has one, with a mark
    /// after the segments that end its `events` stream events, unless the shaper marks
    /// them itself (`ResponseShaper.marksEvents`).
    func enqueueShaped(_ bytes: [UInt8], kind: ResponseWriteKind, events: Int = 0) {
        if var shaper = current?.shaper {
            let segments = shaper.shape(bytes, kind: kind)
            current?.shaper = shaper
            outbound.append(contentsOf: segments)
            if !shaper.marksEvents { outbound.append(.delivered(events: events)) }
        } else if kind == .body || kind == .message {
            outbound.appendMerging(bytes, limit: Self.mergedWriteLimit)
            outbound.append(.delivered(events: events))
        } else {
            outbound.append(.bytes(bytes))
        }
    }

    /// Where the current stream's deliveries are counted: the response's writer, or the
    /// WebSocket's.
    var streamDeliveries: DeliveryTally? {
        webSocket?.writer.deliveries ?? current?.writer?.deliveries
    }

    /// Everything of the current response is written.
    func completeCurrent() {
        guard let flight = current else { return }
        current = nil
        servedRequests += 1
        context.statistics.withLock { $0.requestsServed += 1 }
        flight.writer?.markEnded(flight.endReason ?? .finished)
        logEnd(of: flight, reason: flight.endReason ?? .finished)
        if flight.keepAlive, !shuttingDown {
            processPending()
        } else {
            closeAfterWrites()
        }
    }
}
