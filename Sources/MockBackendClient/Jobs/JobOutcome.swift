/// How a job ended.
public enum JobOutcome<Summary: Sendable & Equatable>: Sendable, Equatable {
    /// The job completed; `Summary` is what the kind reports of it (rows imported, image URL).
    case completed(Summary)
    /// The job failed.
    case failed(JobFailure)

    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    public var isFailed: Bool { !isCompleted }
}

/// Why a job failed: the same code and message whichever path saw the failure, the final
/// event of the stream (an import's `error`, a generation's `failed`) or the polling status
/// (its `errorCode` and `errorMessage`). A backend that sends neither gives
/// `JobFailure.unspecified`.
public struct JobFailure: Sendable, Equatable {
    /// A stable UPPER_SNAKE code such as `IMPORT_FAILED`, when the backend sent one.
    public var code: String?
    /// A sentence for a log or the UI, when the backend sent one.
    public var message: String?

    public init(code: String? = nil, message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// A failure with no reason given.
    public static let unspecified = JobFailure()
}

/// How far a job has got, in one shape for every kind and both paths.
public struct JobProgress: Sendable, Equatable {
    /// The job's status as the backend spells it (`processing`, `paused`, ...).
    public var status: String
    /// From 0 to 1.
    public var fraction: Double
    /// Units done and in all (rows, for an import), when the backend counts them.
    public var completedUnits: Int?
    public var totalUnits: Int?
    /// A line for the UI, when the backend sends one.
    public var message: String?

    public init(
        status: String, fraction: Double, completedUnits: Int? = nil, totalUnits: Int? = nil, message: String? = nil
    ) {
        self.status = status
        self.fraction = min(max(fraction, 0), 1)
        self.completedUnits = completedUnits
        self.totalUnits = totalUnits
        self.message = message
    }
}
