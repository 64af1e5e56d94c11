import MockBackendHTTP
import MockBackendSupport

/// What the journal keeps of one answer, for the HAR export: its head, and the first
/// `excerptLength` bytes of its body — an event stream's events as they were written, so
/// a HAR shows what a client read. Filled as the body is written, from the connection's
/// loop; read from the admin API's.
final class ResponseCapture: Sendable {
    /// Bytes of a body kept: enough for what a reader of a HAR looks at, little enough that
    /// a full journal stays small.
    static let excerptLength = 16 * 1024

    struct Snapshot: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        /// Bytes written past the excerpt.
        var omitted: Int
        /// `http` or `https`, as the request came.
        var scheme: String
        var httpVersion: String
        /// The journal let go of it: nothing more is kept.
        var released = false
    }

    private struct State {
        var snapshot: Snapshot
        /// The writes kept, as written: a broadcast's bytes are shared with every other
        /// subscriber's write of them, not copied.
        var parts: [[UInt8]] = []
        var kept = 0
    }

    private let state: LockedValue<State>

    init(status: Int, headers: HTTPHeaders, scheme: String, httpVersion: String) {
        state = LockedValue(
            State(
                snapshot: Snapshot(
                    status: status, headers: headers, body: [], omitted: 0, scheme: scheme, httpVersion: httpVersion)))
    }

    var snapshot: Snapshot {
        state.withLock { state in
            var snapshot = state.snapshot
            snapshot.body = state.parts.count == 1 ? state.parts[0] : Array(state.parts.joined())
            return snapshot
        }
    }

    /// The journal no longer shows it: what it kept goes, and a stream still writing keeps
    /// nothing more (however many streams outlive their entries, captures stay bounded).
    func release() {
        state.withLock { state in
            state.snapshot.released = true
            state.parts = []
            state.kept = 0
        }
    }

    /// Keeps what fits of `bytes`; true while there is room for more.
    @discardableResult
    func append(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.snapshot.released else { return false }
            let room = Self.excerptLength - state.kept
            if bytes.count <= room {
                state.parts.append(bytes)
                state.kept += bytes.count
            } else {
                state.parts.append(Array(bytes.prefix(max(room, 0))))
                state.kept += max(room, 0)
                state.snapshot.omitted += bytes.count - max(room, 0)
            }
            return state.kept < Self.excerptLength
        }
    }
}

/// A stream's sink that keeps the start of what is written in a `ResponseCapture`, and is
/// otherwise the sink it wraps. Past the excerpt it only forwards.
///
/// Invariant: `full` is read and written only on the sink's executor (`writeOnExecutor`
/// runs there), so it needs no lock.
final class CapturingSink: StreamSink, @unchecked Sendable {
    private let inner: any StreamSink
    private let capture: ResponseCapture
    private var full = false

    init(_ inner: any StreamSink, capture: ResponseCapture) {
        self.inner = inner
        self.capture = capture
    }

    var connectionID: UInt64 { inner.connectionID }
    var framing: StreamFraming { inner.framing }
    var executor: any StreamExecutor { inner.executor }
    var maxUnsentBytes: Int { inner.maxUnsentBytes }
    var deliveries: DeliveryTally { inner.deliveries }
    var isClosed: Bool { inner.isClosed }

    func writeOnExecutor(_ payload: StreamPayload) {
        if !full, let body = payload.body, !inner.isClosed { full = !capture.append(body.raw) }
        inner.writeOnExecutor(payload)
    }

    func finish(_ ending: StreamFinish) { inner.finish(ending) }
    func abort(reset: Bool) { inner.abort(reset: reset) }

    func whenDrainedOnExecutor(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void
    ) {
        inner.whenDrainedOnExecutor(toAtMost: threshold, progress: progress, body)
    }

    func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void) { inner.onEnd(handler) }
    func nameEnd(_ word: String) { inner.nameEnd(word) }
}
