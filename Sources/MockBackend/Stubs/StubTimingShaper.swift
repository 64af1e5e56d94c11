import MockBackendHTTP

/// Delays a stub's response without holding a thread: a pause before the head
/// (`fixedDelayMilliseconds`), and a pause before each body write (an `sse` event's
/// `delayMs`). The connection's pause timer does the waiting, so other requests, on this
/// server and on this connection's queue, go on meanwhile.
struct StubTimingShaper: ResponseShaper {
    let headDelayMilliseconds: Int
    /// The pause before the n-th body write; writes past the end go out at once.
    let bodyDelaysMilliseconds: [Int]
    private var bodyWrites = 0

    init(headDelayMilliseconds: Int, bodyDelaysMilliseconds: [Int] = []) {
        self.headDelayMilliseconds = headDelayMilliseconds
        self.bodyDelaysMilliseconds = bodyDelaysMilliseconds
    }

    mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        var delay = 0
        switch kind {
        case .head:
            delay = headDelayMilliseconds
        case .body:
            if bodyWrites < bodyDelaysMilliseconds.count { delay = bodyDelaysMilliseconds[bodyWrites] }
            bodyWrites += 1
        case .end, .message, .control:
            break
        }
        return delay > 0 ? [.pause(milliseconds: delay), .bytes(bytes)] : [.bytes(bytes)]
    }
}
