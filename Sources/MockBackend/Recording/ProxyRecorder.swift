import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

/// Records proxied exchanges while a recording runs (`POST /__admin/recordings/start`,
/// `--record DIR`): each exchange that passes the filters gets a tape the proxy's relay
/// writes as the answer goes by, never holding it back. `stop` turns the tapes into
/// mappings (`RecordedMappings`).
///
/// Invariant: `state` is read and changed only under its lock; the spec's regular
/// expression is matched there too (`StubRegex`).
final class ProxyRecorder: Sendable {
    /// WireMock's words for where a recording stands.
    enum Status: String, Sendable {
        case neverStarted = "NeverStarted"
        case recording = "Recording"
        case stopped = "Stopped"
    }

    private struct State {
        var status = Status.neverStarted
        var spec = RecordingSpec()
        var tapes: [RecordedExchange] = []
        /// Counts recordings, so each names its scenarios apart.
        var recordings = 0
        var nextSequence = 0
        /// What the last `stop` answered.
        var lastMappings: [JSONValue] = []
    }

    private let state = LockedValue(State())
    let redaction: SecretRedaction

    init(redaction: SecretRedaction) {
        self.redaction = redaction
    }

    var status: Status { state.withLock(\.status) }

    /// Where requests go while the recording runs, when it was started with a
    /// `targetBaseUrl`.
    var target: UpstreamOrigin? {
        state.withLock { $0.status == .recording ? $0.spec.target : nil }
    }

    /// Starts a recording; false when one runs already.
    func start(_ spec: RecordingSpec) -> Bool {
        state.withLock { state in
            guard state.status != .recording else { return false }
            state.status = .recording
            state.spec = spec
            state.tapes = []
            state.recordings += 1
            return true
        }
    }

    /// Ends the recording and returns its mappings; nil when none runs.
    func stop() -> [JSONValue]? {
        let taken = state.withLock { state -> (RecordingSpec, [RecordedExchange], Int)? in
            guard state.status == .recording else { return nil }
            state.status = .stopped
            return (state.spec, state.tapes, state.recordings)
        }
        guard let (spec, tapes, number) = taken else { return nil }
        let mappings = RecordedMappings(spec: spec, recording: number, redaction: redaction).mappings(of: tapes)
        state.withLock { $0.lastMappings = mappings }
        return mappings
    }

    /// The mappings of the running recording so far, or those of the last one stopped;
    /// nil when none ever started.
    var currentMappings: [JSONValue]? {
        let (status, spec) = state.withLock { ($0.status, $0.spec) }
        switch status {
        case .neverStarted: return nil
        case .recording: return snapshot(spec)
        case .stopped: return state.withLock(\.lastMappings)
        }
    }

    /// The mappings of what the running (or last) recording holds so far, the recording
    /// going on; `spec` decides how they are written, its filters which exchanges count.
    func snapshot(_ spec: RecordingSpec) -> [JSONValue] {
        let (tapes, number) = state.withLock { state in
            (state.tapes.filter { spec.records(method: $0.method, path: Self.path(of: $0.target)) }, state.recordings)
        }
        return RecordedMappings(spec: spec, recording: number, redaction: redaction).mappings(of: tapes)
    }

    /// A tape for the exchange `request` starts, when a recording runs and its filters take
    /// the request.
    func tape(for request: HTTPRequest) -> RecordedExchange? {
        state.withLock { state in
            guard state.status == .recording, state.spec.records(method: request.method, path: request.path) else {
                return nil
            }
            let tape = RecordedExchange(request: request, sequence: state.nextSequence)
            state.nextSequence += 1
            state.tapes.append(tape)
            return tape
        }
    }

    private static func path(of target: String) -> String {
        String(target.prefix { $0 != "?" })
    }
}
