import MockBackendAPI

/// A job's status as a polling endpoint returns it.
///
/// Contract: `isFinished` is true once the job will not change again, whether it completed
/// or failed; `isFailed` is true when it ended in failure. `StatusPoller` stops after the
/// first status for which either holds (`StatusPollerTests` checks both).
public protocol JobStatus: Sendable {
    /// The job will not change again: it completed or failed.
    var isFinished: Bool { get }
    /// The job ended in failure.
    var isFailed: Bool { get }
}

extension ImportStatus: JobStatus {}

extension GenerationStatus: JobStatus {}
