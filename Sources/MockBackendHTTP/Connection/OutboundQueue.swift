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

    var isEmpty: Bool { head == segments.count }
    var front: OutboundSegment? { isEmpty ? nil : segments[head] }

    mutating func append(_ segment: OutboundSegment) {
        if case .bytes(let bytes) = segment {
            guard !bytes.isEmpty else { return }
            unsentBytes += bytes.count
        }
        segments.append(segment)
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
        if case .bytes(let bytes) = segments[head] { unsentBytes -= bytes.count - frontOffset }
        segments[head] = .bytes([])
        head += 1
        frontOffset = 0
        if head == segments.count {
            segments.removeAll(keepingCapacity: segments.count <= 64)
            head = 0
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
    }
}
