/// The segments waiting to be written on one connection, with a count of unsent bytes.
///
/// A FIFO with a moving head so a long backlog of small writes (a slow SSE reader) is
/// drained in linear time.
struct OutboundQueue {
    private var segments: [OutboundSegment] = []
    private var head = 0
    /// Bytes of the front segment already written.
    private(set) var frontOffset = 0
    /// Bytes queued and not yet written.
    private(set) var unsentBytes = 0
    /// Whether the last segment may take more bytes (`appendMerging`).
    private var lastIsMergeable = false

    var isEmpty: Bool { head == segments.count }
    var front: OutboundSegment? { isEmpty ? nil : segments[head] }

    mutating func append(_ segment: OutboundSegment) {
        switch segment {
        case .bytes(let bytes):
            guard !bytes.isEmpty else { return }
            unsentBytes += bytes.count
        case .paced(let paced):
            guard paced.remaining > 0 else { return }
            unsentBytes += paced.remaining
        case .pause, .close, .blackhole:
            break
        }
        segments.append(segment)
        lastIsMergeable = false
    }

    /// Turns a `.paced` front segment into its next piece, then a pause and the rest (if
    /// any bytes remain): the pieces are cut one at a time, as the socket takes them.
    mutating func expandPacedFront() {
        guard !isEmpty, case .paced(var paced) = segments[head] else { return }
        let piece = Array(paced.takePiece())
        segments[head] = .bytes(piece)
        frontOffset = 0
        guard paced.remaining > 0 else { return }
        segments.insert(contentsOf: [.pause(milliseconds: paced.pauseMilliseconds), .paced(paced)], at: head + 1)
    }

    /// Appends bytes to the last segment when that one also came from here and stays
    /// within `limit`, else as a new segment. While a slow socket holds writes back, many
    /// small writes become one large one: one system call instead of hundreds.
    mutating func appendMerging(_ bytes: [UInt8], limit: Int) {
        guard !bytes.isEmpty else { return }
        guard lastIsMergeable, head < segments.count, case .bytes(var last) = segments[segments.count - 1],
            last.count + bytes.count <= limit
        else {
            append(.bytes(bytes))
            lastIsMergeable = true
            return
        }
        // Replacing the entry first leaves `last` uniquely referenced, so it grows in place.
        segments[segments.count - 1] = .bytes([])
        last.append(contentsOf: bytes)
        segments[segments.count - 1] = .bytes(last)
        unsentBytes += bytes.count
    }

    mutating func append(contentsOf list: [OutboundSegment]) {
        for segment in list { append(segment) }
    }

    /// Marks `count` bytes of the front `.bytes` segment written.
    mutating func consumeBytes(_ count: Int) {
        guard case .bytes(let bytes) = front else { return }
        unsentBytes -= count
        frontOffset += count
        if frontOffset >= bytes.count { popFront() }
    }

    mutating func popFront() {
        guard !isEmpty else { return }
        switch segments[head] {
        case .bytes(let bytes): unsentBytes -= bytes.count - frontOffset
        case .paced(let paced): unsentBytes -= paced.remaining
        case .pause, .close, .blackhole: break
        }
        segments[head] = .bytes([])
        head += 1
        frontOffset = 0
        if head == segments.count {
            segments.removeAll(keepingCapacity: segments.count <= 64)
            head = 0
            lastIsMergeable = false
        } else if head >= 1024, head * 2 >= segments.count {
            segments.removeFirst(head)
            head = 0
        }
    }

    mutating func removeAll() {
        segments.removeAll()
        head = 0
        frontOffset = 0
        unsentBytes = 0
        lastIsMergeable = false
    }
}
