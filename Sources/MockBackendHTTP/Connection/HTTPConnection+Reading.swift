extension HTTPConnection {
    /// Queues parsed requests and failures in order, answering `Expect: 100-continue`.
    func enqueue(_ events: [HTTPParserEvent]) {
        for event in events {
            switch event {
            case .continueExpected:
                // RFC 9110 §10.1.1: send 100 only when it is next on the wire; with
                // responses still ahead of it the client's own timer sends the body.
                if current == nil, pending.isEmpty, machine.phase == .open {
                    channel.outbound.append(.bytes(HTTPResponseEncoder.continueHead))
                    channel.flush()
                }
            case .request(var request):
                request.connectionID = id
                request.remoteAddress = peerHost
                request.scheme = context.scheme
                pending.append(.request(request))
            case .failure(let error):
                pending.append(.failure(error))
                channel.stopReading()
            }
        }
    }
}
