extension HTTPConnection {
    /// Answers queued requests in order while nothing is in flight. Re-entrant calls (a
    /// response that completes while it is being started) return at once; the outer loop
    /// carries on, so order is kept without recursion.
    func processPending() {
        assertOnQueue()
        guard !isProcessing else { return }
        isProcessing = true
        defer { isProcessing = false }
        while current == nil, machine.phase == .open, !pending.isEmpty {
            switch pending.removeFirst() {
            case .request(let request): respond(to: request)
            case .failure(let error): respondToParseFailure(error)
            }
        }
        guard machine.phase == .open, upgraded == nil else { return }
        let idle = current == nil && pending.isEmpty
        apply(
            machine.pendingProcessed(
                idle: idle, writesPending: !channel.outbound.isEmpty || channel.isPausing,
                canReadMore: pending.count < context.configuration.maxPipelinedRequests
                    && channel.outbound.unsentBytes < 1 << 20 && !parser.isAwaitingUpgrade && !requestBodyIsFull,
                activity: activity, at: .now))
    }

    private func respond(to request: HTTPRequest) {
        let response = context.responder.respond(to: request)
        start(
            response, to: request,
            keepAlive: request.wantsKeepAlive && !machine.shuttingDown && !machine.peerClosed)
    }

    private func respondToParseFailure(_ error: HTTPParseError) {
        // The version is unknown or unreliable here, so the answer is a plain HTTP/1.1 one.
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Host": ""])
        context.logger.debug("rejected request", metadata: ["connection": "\(id)", "error": "\(error)"])
        start(error.problem.response, to: request, keepAlive: false)
    }

    /// Queues the head (and a full body) of `response` and, for a stream, hands the
    /// producer its writer.
    func start(
        _ original: HTTPResponse, to request: HTTPRequest, keepAlive requestedKeepAlive: Bool,
        startedAt: ContinuousClock.Instant? = nil
    ) {
        // No timeout runs while a response is in flight. Passing through it even for a
        // response written at once re-arms the timeout after it.
        apply(machine.update(.responding, at: .now))
        let (response, deflater) = context.configuration.compression.applying(to: original, for: request)
        var keepAlive = requestedKeepAlive
        // A response that starts before its request's streamed body has arrived whole is
        // the connection's last: the rest of the body is read and dropped.
        if !response.isDeferred, request.bodyStream?.hasEnded == false { keepAlive = false }
        let isHead = request.method == "HEAD"
        let version: HTTPVersion = request.version == .http10 ? .http10 : .http11
        var flight = ResponseInFlight(
            request: request, status: response.status, keepAlive: keepAlive, chunked: false,
            writer: nil, producing: false, deflater: deflater, endReason: nil, startedAt: startedAt ?? .now)
        let resetContent = response.status == HTTPResponseEncoder.resetContent
        let bodyless = isHead || resetContent || HTTPResponseEncoder.statusForbidsBody(response.status)
        channel.shaper = response.shaper

        switch response.body {
        case .bytes(let body):
            let framing: BodyFraming =
                HTTPResponseEncoder.statusForbidsBody(response.status)
                ? .none : .length(resetContent ? 0 : body.count)
            current = flight
            if response.shaper == nil {
                // Head and body in one write: with TCP_NODELAY a separate small write per part
                // would cost a delayed-ACK round trip on every request.
                channel.outbound.append(
                    .bytes(
                        HTTPResponseEncoder.head(
                            status: response.status, headers: response.headers, version: version, framing: framing,
                            keepAlive: keepAlive, body: bodyless ? [] : body)))
            } else {
                let head = HTTPResponseEncoder.head(
                    status: response.status, headers: response.headers, version: version, framing: framing,
                    keepAlive: keepAlive)
                channel.enqueue(head, kind: .head)
                if !bodyless { channel.enqueue(body, kind: .body) }
                channel.enqueue([], kind: .end)
            }
        case .stream(let produce):
            // HTTP/1.0 has no chunked coding: the body ends when the connection does, unless
            // its length is declared.
            let length = response.declaredLength
            let chunked = version == .http11 && length == nil
            if !chunked, length == nil { keepAlive = false }
            flight.keepAlive = keepAlive
            flight.chunked = chunked
            let framing: BodyFraming =
                resetContent
                ? .length(0)
                : length.map { .length($0) } ?? (bodyless ? .none : (chunked ? .chunked : .closeDelimited))
            let head = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, version: version, framing: framing,
                keepAlive: keepAlive)
            current = flight
            channel.enqueue(head, kind: .head)
            if bodyless {
                channel.enqueue([], kind: .end)
            } else {
                let writer = ResponseBodyWriter(connection: self)
                current?.writer = writer
                current?.producing = true
                channel.deliveries = writer.deliveries
                if response.shaper == nil, deflater == nil {
                    plainStream = PlainStream(writer: ObjectIdentifier(writer), chunked: chunked)
                }
                channel.flush()
                guard machine.phase != .closed else { return }
                produce(writer)
            }
        case .webSocket(let upgrade):
            startWebSocket(upgrade, headers: response.headers, flight: flight)
            return
        case .deferred(let deferred):
            // In flight until it is known; then answered as if the responder had returned it.
            current = flight
            awaiting = deferred
            deferred.receive { [weak self, queue, keepAlive, startedAt = flight.startedAt] known in
                queue.async { [weak self] in
                    self?.answerDeferred(deferred, with: known, to: request, keepAlive: keepAlive, startedAt: startedAt)
                }
            }
            return
        }
        // An upgrade request answered without switching: what followed it is HTTP, parsed
        // now that this response is queued ahead of any answer to it (a 100 Continue).
        declineUpgradeIfAwaiting()
        channel.flush()
    }

    /// Answers the request `deferred` stood for, unless the connection let go of it.
    private func answerDeferred(
        _ deferred: DeferredResponse, with known: HTTPResponse, to request: HTTPRequest, keepAlive: Bool,
        startedAt: ContinuousClock.Instant
    ) {
        guard awaiting === deferred else { return }
        awaiting = nil
        current = nil
        start(known.isDeferred ? Self.notDeferrable : known, to: request, keepAlive: keepAlive, startedAt: startedAt)
    }

    /// What a deferred response that completes with another deferred one answers.
    static var notDeferrable: HTTPResponse {
        ProblemDetails(status: 500, code: "INTERNAL_ERROR", detail: "A deferred response was answered with another.")
            .response
    }

    /// Whether `writer` is the current response's and may still write. Reads fields of
    /// `current` in place: copying the whole in-flight response costs retains per write.
    private func isProducing(_ writer: ResponseBodyWriter) -> Bool {
        machine.phase != .closed && current?.writer === writer && current?.producing == true
    }

    /// A write from a stream's producer; stale writers (an earlier response) are ignored.
    func streamWrite(_ bytes: [UInt8], from writer: ResponseBodyWriter) {
        guard isProducing(writer) else { return }
        let encoded = current?.deflater?.compress(bytes) ?? bytes
        guard !encoded.isEmpty else { return }
        channel.writeStream(
            current?.chunked == true ? HTTPResponseEncoder.chunk(encoded) : encoded, kind: .body, events: 0)
    }

    /// A write of bytes framed in advance (a broadcast), carrying `events` events.
    func streamWrite(_ prepared: PreparedBodyPart, events: Int, from writer: ResponseBodyWriter) {
        if let plain = plainStream, plain.writer == ObjectIdentifier(writer) {
            channel.writeStream(
                plain.chunked ? prepared.chunk ?? HTTPResponseEncoder.chunk(prepared.raw) : prepared.raw,
                kind: .body, events: events)
            return
        }
        guard isProducing(writer) else { return }
        if let deflater = current?.deflater {
            // Each connection's deflate state differs: a compressed stream cannot share the
            // broadcast's framing. A flushed deflate block holds every event written so far:
            // an empty one adds nothing new, and the events count once its block is out.
            let encoded = deflater.compress(prepared.raw)
            guard !encoded.isEmpty else { return }
            channel.writeStream(
                current?.chunked == true ? HTTPResponseEncoder.chunk(encoded) : encoded, kind: .body, events: events)
            return
        }
        let chunked = current?.chunked == true
        channel.writeStream(
            chunked ? prepared.chunk ?? HTTPResponseEncoder.chunk(prepared.raw) : prepared.raw, kind: .body,
            events: events)
    }

    /// The producer dropped the connection on purpose.
    func abortStream(from writer: ResponseBodyWriter, reset: Bool) {
        guard machine.phase != .closed, current?.writer === writer else { return }
        close(reason: .aborted, reset: reset)
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
            channel.enqueue(flight.chunked ? HTTPResponseEncoder.chunk(trailer) : trailer, kind: .body)
        }
        channel.enqueue(flight.chunked ? HTTPResponseEncoder.lastChunk : [], kind: .end)
        // The writer learns of the end once the last bytes are out (`completeCurrent`) or
        // the connection closes: its deliveries are complete by then.
        channel.flush()
    }

    /// Everything of the current response is written.
    func completeCurrent() {
        guard let flight = current else { return }
        current = nil
        channel.deliveries = nil
        channel.shaper = nil
        context.statistics.withLock { $0.requestsServed += 1 }
        flight.writer?.markEnded(flight.endReason ?? .finished)
        logEnd(of: flight, reason: flight.endReason ?? .finished)
        // Answered before its streamed body's end: nobody wants the rest.
        if let body = flight.request.bodyStream, !body.hasEnded { body.cancel() }
        if !flight.keepAlive || machine.shuttingDown { pending.removeAll() }
        apply(
            machine.responseCompleted(
                keepAlive: flight.keepAlive, writesPending: !channel.outbound.isEmpty || channel.isPausing,
                at: .now))
    }
}
