/// The segments waiting to be written on one connection, with a count of unsent bytes, and
/// where in them each stream event ends.
///
/// A FIFO with a moving head so a long backlog of small writes (a slow SSE reader) is
/// drained in linear time. Delivery marks (`OutboundSegment.delivered`, `.dropped`) are
/// not segments: each is kept with the count of bytes appended before it, and becomes due
/// once that many bytes have been written (`takeDueMarks`), so merging writes never moves
/// a mark.
struct OutboundQueue {
    /// Events that became due together.
    struct Marks: Equatable {
        var delivered = 0
        var dropped = 0
    }

    private struct Mark {
        /// Due once `written` reaches this.
        let position: Int
        let delivered: Int
        let dropped: Int
    }

    private var segments: [OutboundSegment] = []
    private var head = 0
    /// Bytes of the front segment already written.
    private(set) var frontOffset = 0
    /// Bytes queued and not yet written.
    private(set) var unsentBytes = 0
    /// Whether the last segment may take more bytes (`appendMerging`).
    private var lastIsMergeable = false
    /// Bytes ever appended, and ever written (removed ones count as written).
    private var appended = 0
    private var written = 0
    private var marks: [Mark] = []
    private var markHead = 0

    var isEmpty: Bool { head == segments.count }
    var front: OutboundSegment? { isEmpty ? nil : segments[head] }

    mutating func append(_ segment: OutboundSegment) {
        switch segment {
        case .bytes(let bytes):
            guard !bytes.isEmpty else { return }
            unsentBytes += bytes.count
            appended += bytes.count
        case .paced(let paced):
            guard paced.remaining > 0 else { return }
            unsentBytes += paced.remaining
            appended += paced.remaining
        case .pause, .close, .blackhole, .http2:
            break
        case .delivered(let events):
            addMark(delivered: events, dropped: 0)
            return
        case .dropped(let events):
            addMark(delivered: 0, dropped: events)
            return
        }
        segments.append(segment)
        lastIsMergeable = false
    }

    private mutating func addMark(delivered: Int, dropped: Int) {
        guard delivered > 0 || dropped > 0 else { return }
        marks.append(Mark(position: appended, delivered: delivered, dropped: dropped))
    }

    /// The marks whose bytes have all been written, taken out of the queue, in order.
    mutating func takeDueMarks() -> Marks {
        var due = Marks()
        while markHead < marks.count, marks[markHead].position <= written {
            due.delivered += marks[markHead].delivered
            due.dropped += marks[markHead].dropped
            markHead += 1
        }
        if markHead == marks.count {
            marks.removeAll(keepingCapacity: marks.count <= 64)
            markHead = 0
        } else if markHead >= 1024, markHead * 2 >= marks.count {
            marks.removeFirst(markHead)
            markHead = 0
        }
        return due
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
        appended += bytes.count
    }

    mutating func append(contentsOf list: [OutboundSegment]) {
        for segment in list { append(segment) }
    }

    /// Marks `count` bytes of the front `.bytes` segment written.
    mutating func consumeBytes(_ count: Int) {
        guard case .bytes(let bytes) = front else { return }
        unsentBytes -= count
        written += count
        frontOffset += count
        if frontOffset >= bytes.count { popFront() }
    }

    mutating func popFront() {
        guard !isEmpty else { return }
        switch segments[head] {
        case .bytes(let bytes):
            unsentBytes -= bytes.count - frontOffset
            written += bytes.count - frontOffset
        case .paced(let paced):
            unsentBytes -= paced.remaining
            written += paced.remaining
        case .pause, .close, .blackhole, .delivered, .dropped, .http2: break
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

    /// Drops every segment, and every mark not due yet: what was not written never will be.
    /// Marks already due stay for `takeDueMarks`.
    mutating func removeAll() {
        segments.removeAll()
        head = 0
        frontOffset = 0
        unsentBytes = 0
        lastIsMergeable = false
        let undue = marks[markHead...].firstIndex { $0.position > written } ?? marks.count
        marks.removeSubrange(undue...)
        written = appended
    }
}
