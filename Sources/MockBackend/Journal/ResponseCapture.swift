import MockBackendHTTP
import MockBackendSupport

/// What the journal keeps of one answer, for the HAR export: its head, and the first
/// `excerptLength` bytes of its body — an event stream's events as they were written, so
/// a HAR shows what a client read. A body known in full is kept as it is (no lock: it never
/// changes); a streamed one is filled as it is written, from the connection's loop, and
/// read from the admin API's.
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
    }

    /// A streamed body's writes so far.
    private struct Written {
        /// As written: a broadcast's bytes are shared with every other subscriber's write of
        /// them, not copied.
        var parts: [[UInt8]] = []
        var kept = 0
        var omitted = 0
        /// The journal let go of it: nothing more is kept.
        var released = false
    }

    /// The answer with no body yet: status, fields, scheme and version.
    private let head: Snapshot
    /// Nil for a body known in full (in `head`).
    private let written: LockedValue<Written>?

    /// A capture of a body written over time (`append`), or with `body`, of one known in full.
    init(status: Int, headers: HTTPHeaders, scheme: String, httpVersion: String, body: [UInt8]? = nil) {
        let kept = body.map { $0.count <= Self.excerptLength ? $0 : Array($0.prefix(Self.excerptLength)) } ?? []
        head = Snapshot(
            status: status, headers: headers, body: kept, omitted: (body?.count ?? 0) - kept.count, scheme: scheme,
            httpVersion: httpVersion)
        written = body == nil ? LockedValue(Written()) : nil
    }

    var snapshot: Snapshot {
        guard let written else { return head }
        var snapshot = head
        written.withLock { written in
            snapshot.body = written.parts.count == 1 ? written.parts[0] : Array(written.parts.joined())
            snapshot.omitted = written.omitted
        }
        return snapshot
    }

    /// The journal no longer shows it: what a stream wrote goes, and a stream still writing
    /// keeps nothing more (however many streams outlive their entries, captures stay
    /// bounded). A body known in full goes with the capture itself.
    func release() {
        written?.withLock { written in
            written.released = true
            written.parts = []
            written.kept = 0
        }
    }

    /// Keeps what fits of a streamed body's next write; true while there is room for more.
    @discardableResult
    func append(_ bytes: [UInt8]) -> Bool {
        guard let written else { return false }
        return written.withLock { written in
            guard !written.released else { return false }
            let room = Self.excerptLength - written.kept
            if bytes.count <= room {
                written.parts.append(bytes)
                written.kept += bytes.count
            } else {
                written.parts.append(Array(bytes.prefix(max(room, 0))))
                written.kept += max(room, 0)
                written.omitted += bytes.count - max(room, 0)
            }
            return written.kept < Self.excerptLength
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
