extension HTTPConnection {
    /// Queues parsed requests and failures in order, answering `Expect: 100-continue`, and
    /// hands a streamed body's parts to its request.
    func enqueue(_ events: [HTTPParserEvent]) {
        for event in events {
            switch event {
            case .continueExpected:
                sendContinueIfNext()
            case .request(let request):
                pending.append(.request(received(request)))
            case .streamingRequest(let request, let expectsContinue):
                if expectsContinue { sendContinueIfNext() }
                let body = request.bodyStream
                body?.onRoom { [weak self, queue] in queue.async { [weak self] in self?.requestBodyHasRoom() } }
                requestBody = body
                pending.append(.request(received(request)))
            case .bodyPart(let bytes):
                if requestBody?.append(bytes) == false { channel.suspendReading() }
            case .bodyEnd:
                requestBody?.finish()
                requestBody = nil
            case .failure(let error):
                requestBody?.abort()
                requestBody = nil
                pending.append(.failure(error))
                channel.stopReading()
            }
        }
    }

    /// RFC 9110 §10.1.1: send 100 only when it is next on the wire; with responses still
    /// ahead of it the client's own timer sends the body.
    private func sendContinueIfNext() {
        if current == nil, pending.isEmpty, machine.phase == .open {
            channel.outbound.append(.bytes(HTTPResponseEncoder.continueHead))
            channel.flush()
        }
    }

    private func received(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        request.connectionID = id
        request.remoteAddress = peerHost
        request.scheme = context.scheme
        return request
    }

    /// The streamed body's reader caught up (or gave up): reading may go on.
    private func requestBodyHasRoom() {
        guard machine.phase == .open else { return }
        processPending()
    }

    /// Whether reading waits for a streamed body's reader.
    var requestBodyIsFull: Bool { requestBody?.isFull ?? false }
}
