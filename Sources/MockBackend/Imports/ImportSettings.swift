/// How imports behave.
public struct ImportSettings: Sendable {
    /// Rows processed per second of simulated time: set here, else the scenario's rate,
    /// else 50.
    public var rowsPerSecond: Double?
    /// Largest accepted CSV file; larger is 413. Default 5 MiB.
    public var maxFileBytes = 5 * 1024 * 1024
    /// Simulated time between a job's processing steps (one `progress` event each).
    public var tick: Duration = .milliseconds(200)
    /// Simulated time a job stays queued before processing starts.
    public var queueDelay: Duration = .milliseconds(100)
    /// Finished jobs kept (with their streams); the oldest finished goes first. Default 1,000.
    public var finishedJobLimit = 1000

    public init() {}

    /// The rate in force with the scenario's rates.
    func applying(_ rates: Scenario.Rates, finishedJobLimit: Int) -> ImportSettings {
        var settings = self
        settings.finishedJobLimit = finishedJobLimit
        if settings.rowsPerSecond == nil { settings.rowsPerSecond = rates.importRowsPerSecond ?? 50 }
        return settings
    }
}
