/// One step of an HTTP/2 response on its way to the frame layer: the head, body bytes, the
/// end, and what a fault's shaper made of them besides bytes (`OutboundSegment`: pauses,
/// cuts, blackholes, event marks, resets), in order.
enum HTTP2Step {
    case head(fields: [(String, String)], hasBody: Bool)
    case data([UInt8])
    case segment(OutboundSegment)
    case end

    /// Whether it ends the stream without its END_STREAM.
    var endsStream: Bool {
        switch self {
        case .segment(.close), .segment(.http2): true
        default: false
        }
    }
}

/// One stream of an HTTP/2 connection: the request as its frames arrive, then the
/// response as its steps go out. Confined to the connection's queue.
final class HTTP2Stream {
    let id: Int32
    /// Its own id in the connections' sequence (`HTTPRequest.connectionID`).
    var exchangeID: UInt64 = 0

    // The request.
    var method: String?
    var path: String?
    var authority: String?
    var headers = HTTPHeaders()
    var cookies: [String] = []
    var headerBytes = 0
    var body: [UInt8] = []
    /// The request as its head made it, for one with a body (asked about then: a window
    /// stall, a body that streams), completed with the body when it goes to the responder.
    var head: HTTPRequest?
    /// Body bytes received, kept or not.
    var receivedBodyBytes = 0
    /// Past this many body bytes the window stays shut (`http2RequestWindowStall`).
    var windowStallAfter: Int?
    /// A body that goes to the responder as it comes (`HTTPResponder.streamsBody(of:)`,
    /// a proxied request), instead of whole.
    var bodyStream: RequestBodyStream?
    /// Body bytes read but not yet given back to the window: the body stream was full.
    var withheldBytes = 0
    var bodyTooLarge = false
    /// The request has gone to the responder.
    var dispatched = false
    var request: HTTPRequest?
    var startedAt = ContinuousClock.now
    var status = 0

    // The response.
    var steps: [HTTP2Step] = []
    /// A pause holds the steps until its timer.
    var paused = false
    /// A reset or GOAWAY waits until the DATA before it has gone to the frame layer.
    var awaitingDrain = false
    var headSent = false
    var blackholed = false
    var shaper: (any ResponseShaper)?
    /// A gzipped stream's deflate state (`--sse-gzip`).
    var deflater: GzipDeflater?
    var writer: HTTP2StreamWriter?
    /// Whether the producer may still write.
    var producing = false
    /// Body bytes waiting for their DATA frames, from `outboxStart` on.
    var outbox: [UInt8] = []
    var outboxStart = 0
    /// The END_STREAM is due once the outbox is sent.
    var ended = false
    /// nghttp2 waits for `resume` (the outbox was empty when it asked).
    var waiting = false
    /// Body bytes queued and sent, from the start: where event marks and waits point.
    var queuedBytes = 0
    var sentBytes = 0
    /// The byte after each counted event's last, and how many events end there.
    var eventMarks: [(end: Int, events: Int)] = []
    /// Producers waiting for the unsent bytes to go down (`StreamSink.whenDrainedOnExecutor`).
    var drainWaiters: [(threshold: Int, progress: @Sendable () -> Void, body: @Sendable () -> Void)] = []
    /// Why the server ended the stream, when it did.
    var endReason: StreamEndReason?

    init(id: Int32) {
        self.id = id
    }

    /// Body bytes not yet handed to the frame layer.
    var unsentBytes: Int { outbox.count - outboxStart }

    /// Takes up to `count` outbox bytes for a DATA frame.
    func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(unsentBytes, buffer.count)
        guard count > 0 else { return 0 }
        outbox.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + outboxStart, byteCount: count)
        }
        outboxStart += count
        sentBytes += count
        if outboxStart == outbox.count {
            // All sent: a stream between events keeps a small buffer at most, whatever its
            // bursts were (thousands of idle subscribers must not each hold their peak).
            if outbox.capacity > 4096 { outbox = [] } else { outbox.removeAll(keepingCapacity: true) }
            outboxStart = 0
        } else if outboxStart >= 64 * 1024, outboxStart * 2 >= outbox.count {
            // Sent bytes give their room back once they are most of the buffer.
            outbox.removeFirst(outboxStart)
            outboxStart = 0
        }
        return count
    }

    /// The events whose last byte has now been sent.
    func takeDeliveredEvents() -> Int {
        var delivered = 0
        while let first = eventMarks.first, first.end <= sentBytes {
            delivered += first.events
            eventMarks.removeFirst()
        }
        return delivered
    }
}
