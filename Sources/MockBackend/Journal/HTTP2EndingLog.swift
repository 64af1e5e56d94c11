import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

/// The RST_STREAM and GOAWAY frames that ended HTTP/2 exchanges, by exchange id, for the
/// request and stream journals (`http2Endings`). The server tells of them as they go or
/// come (`HTTPServerConfiguration.onHTTP2Ending`), after the journals recorded the
/// request: the journals look them up when read. Bounded: the exchanges noted last are kept.
package final class HTTP2EndingLog: Sendable {
    private struct State {
        var endings: [UInt64: [HTTP2EndingFrame]] = [:]
        /// The exchange ids noted, a ring of at most `capacity`: once it is full, `next`
        /// is the oldest, which the next new id replaces.
        var ring: [UInt64] = []
        var next = 0
    }

    /// Exchanges kept; older ones go first.
    package let capacity: Int
    private let state = LockedValue(State())

    package init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    package func note(_ note: HTTP2EndingNote) {
        let ending = HTTP2EndingFrame(
            frame: note.frame.rawValue, code: Int(note.code), sentBy: note.sentByServer ? "server" : "client",
            lastStreamId: note.lastStreamID.map(Int.init))
        state.withLock { state in
            if state.endings[note.exchangeID] == nil {
                if state.ring.count < capacity {
                    state.ring.append(note.exchangeID)
                } else {
                    state.endings[state.ring[state.next]] = nil
                    state.ring[state.next] = note.exchangeID
                    state.next = (state.next + 1) % capacity
                }
            }
            // At most a RST_STREAM and a GOAWAY each way: more would be a peer's repeats.
            guard state.endings[note.exchangeID, default: []].count < 4 else { return }
            state.endings[note.exchangeID, default: []].append(ending)
        }
    }

    /// The frames that ended exchange `id`, in the order they went or came; nil when none.
    package func endings(exchange id: UInt64) -> [HTTP2EndingFrame]? {
        state.withLock { $0.endings[id] }
    }

    package func clear() {
        state.withLock { $0 = State() }
    }
}
