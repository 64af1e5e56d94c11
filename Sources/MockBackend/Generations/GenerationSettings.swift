/// How generations behave.
public struct GenerationSettings: Sendable {
    /// Simulated time a generation takes: `--generation-seconds`, else the scenario's
    /// rate, else 20 s.
    public var duration: Duration?
    /// Progress events per generation, evenly spaced. Default 10.
    public var steps = 10
    /// Finished generations kept (with their streams); the oldest finished goes first.
    /// Default 1,000.
    public var finishedJobLimit = 1000

    public init() {}

    /// The duration in force with the scenario's rates.
    func applying(_ rates: Scenario.Rates, finishedJobLimit: Int) -> GenerationSettings {
        var settings = self
        settings.finishedJobLimit = finishedJobLimit
        if settings.duration == nil {
            settings.duration = .milliseconds(Int(((rates.generationSeconds ?? 20) * 1000).rounded()))
        }
        return settings
    }
}
