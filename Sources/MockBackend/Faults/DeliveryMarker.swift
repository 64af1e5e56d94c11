import MockBackendHTTP

/// Marks where the stream events that leave a `FaultShaper` end, so each counts as
/// delivered once its last byte is written (`OutboundSegment.delivered`), and notes those
/// the fault dropped (`.dropped`): what a client could have read, whatever the fault held
/// back, split, cut or threw away.
///
/// On an event stream it finds the events in the bytes that leave (`EventBoundaryScanner`,
/// through the chunk framing, which holds no `data` line), so it counts what the fault
/// actually sent: a stalled event counts once its bytes go, a cut one never. On a WebSocket
/// a data message counts once every byte of its frame has left, in the order written.
struct DeliveryMarker {
    /// Whether the response is a WebSocket (messages) rather than an event stream.
    let messages: Bool
    private var scanner = EventBoundaryScanner()
    /// WebSocket: the writes whose bytes have not all left, with the messages they carry.
    private var pending: [(bytes: Int, events: Int)] = []
    private var pendingHead = 0
    /// After a close or a blackhole nothing leaves any more.
    private var stopped = false

    init(messages: Bool) {
        self.messages = messages
    }

    /// `segments` (what the shaper made of one write of `written` bytes of `kind`), with
    /// a mark after each segment that completes events, and the events the write lost
    /// (`dropped`) noted after them.
    mutating func marking(_ segments: [OutboundSegment], written: Int, kind: ResponseWriteKind, dropped: Int)
        -> [OutboundSegment]
    {
        if messages, dropped == 0 { pending.append((written, kind == .message ? 1 : 0)) }
        guard !stopped else { return segments }
        var output: [OutboundSegment] = []
        output.reserveCapacity(segments.count * 2)
        for segment in segments {
            output.append(segment)
            let completed: Int
            switch segment {
            case .bytes(let bytes): completed = leave(bytes[...])
            case .paced(let paced): completed = leave(paced.bytes[paced.offset...])
            case .close, .blackhole, .http2:
                stopped = true
                return output
            case .pause, .delivered, .dropped: continue
            }
            if completed > 0 { output.append(.delivered(events: completed)) }
        }
        if dropped > 0 { output.append(.dropped(events: dropped)) }
        return output
    }

    /// The events whose last byte is in `bytes`, leaving now.
    private mutating func leave(_ bytes: ArraySlice<UInt8>) -> Int {
        guard messages else { return scanner.scan(bytes).count }
        var left = bytes.count
        var completed = 0
        while left > 0, pendingHead < pending.count {
            let taken = min(left, pending[pendingHead].bytes)
            pending[pendingHead].bytes -= taken
            left -= taken
            guard pending[pendingHead].bytes == 0 else { break }
            completed += pending[pendingHead].events
            pendingHead += 1
        }
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
        return completed
    }
}
