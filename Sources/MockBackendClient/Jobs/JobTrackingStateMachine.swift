/// What a job tracker is doing, for a UI or a log.
public enum JobTrackerPhase: Sendable, Equatable {
    /// Not started.
    case idle
    /// Following the job's stream (connecting, open, or backing off between attempts).
    case streaming
    /// The stream gave up or ended without a final event; reading the status every interval.
    case polling
    /// Back from a long pause: one status read decides whether the stream is reopened.
    case checkingStatus
    /// The app is in the background; nothing runs until `resume()`.
    case suspended
    /// The job finished; the outcome is known.
    case finished
    /// Tracking ended on an error that retrying cannot fix (401/403, 404, ...).
    case failed
    /// The app cancelled tracking.
    case cancelled

    /// True once nothing more will happen.
    public var isTerminal: Bool { self == .finished || self == .failed || self == .cancelled }
}

/// The decisions of a job tracker, with no I/O or clock of its own: it takes what happened
/// and returns what to do.
///
/// Each stream, status check or polling run is a numbered segment; news from a segment
/// that is no longer current (a stream that ended after a suspend) changes nothing.
public struct JobTrackingStateMachine: Sendable {
    /// What happened.
    public enum Input: Sendable, Equatable {
        /// The app asked to start.
        case start
        /// The app went to the background.
        case suspend
        /// The app came back after `pause`.
        case resume(pause: Duration)
        /// The stream of `segment` ended without a final event: it gave up reconnecting,
        /// answered 204, 401/403 or 404, or sent something that is not an event stream.
        case streamEnded(segment: Int)
        /// The status check of `segment` found the job unfinished, or could not tell
        /// (a transient failure): the stream is the way on.
        case statusUnfinished(segment: Int)
        /// The outcome is known (from an event or a status).
        case finished
        /// An error ended tracking.
        case failed
        /// The app cancelled tracking.
        case cancel
    }

    /// What the driver must do next.
    public enum Action: Sendable, Equatable {
        /// Open the job's stream, resuming from the last event id seen.
        case openStream(segment: Int)
        /// Read the status once.
        case checkStatus(segment: Int)
        /// Poll the status until it is final.
        case startPolling(segment: Int)
        /// Stop whatever runs.
        case halt
        case none
    }

    /// A pause longer than this checks the status before reopening the stream.
    public let statusCheckAfterPause: Duration
    public private(set) var phase: JobTrackerPhase = .idle
    /// The current segment's number.
    public private(set) var segment = 0

    public init(statusCheckAfterPause: Duration) {
        self.statusCheckAfterPause = statusCheckAfterPause
    }

    public mutating func handle(_ input: Input) -> Action {
        guard !phase.isTerminal else { return .none }
        switch input {
        case .start:
            guard phase == .idle else { return .none }
            return openStream()
        case .suspend:
            guard phase == .streaming || phase == .polling || phase == .checkingStatus else { return .none }
            phase = .suspended
            segment += 1
            return .halt
        case .resume(let pause):
            guard phase == .suspended else { return .none }
            guard pause > statusCheckAfterPause else { return openStream() }
            phase = .checkingStatus
            segment += 1
            return .checkStatus(segment: segment)
        case .streamEnded(let ended):
            guard phase == .streaming, ended == segment else { return .none }
            phase = .polling
            segment += 1
            return .startPolling(segment: segment)
        case .statusUnfinished(let checked):
            guard phase == .checkingStatus, checked == segment else { return .none }
            return openStream()
        case .finished:
            phase = .finished
            return .halt
        case .failed:
            phase = .failed
            return .halt
        case .cancel:
            phase = .cancelled
            return .halt
        }
    }

    private mutating func openStream() -> Action {
        phase = .streaming
        segment += 1
        return .openStream(segment: segment)
    }
}
