/// The simulation clock, as `GET /__admin/clock` shows it (schema `ClockState`).
public struct ClockState: Codable, Sendable, Equatable {
    /// `real` or `manual`.
    public var mode: String
    /// How much faster than real time a real clock runs; nil for a manual clock.
    public var speed: Double?
    /// Simulated milliseconds since the start.
    public var nowMs: Double

    public init(mode: String, speed: Double?, nowMs: Double) {
        self.mode = mode
        self.speed = speed
        self.nowMs = nowMs
    }
}

/// `PUT /__admin/clock`: the speed of a real clock.
public struct ClockSpeedRequest: Codable, Sendable, Equatable {
    /// Above 0, at most 10,000.
    public var speed: Double

    public init(speed: Double) {
        self.speed = speed
    }
}

/// `POST /__admin/clock/advance`: how far a manual clock moves on.
public struct ClockAdvanceRequest: Codable, Sendable, Equatable {
    /// Milliseconds, from 0 to a year.
    public var ms: Double

    public init(ms: Double) {
        self.ms = ms
    }
}

/// The answer to `POST /__admin/clock/advance`.
public struct ClockAdvance: Codable, Sendable, Equatable {
    public var advancedMs: Double
    public var nowMs: Double
    /// How many timers fell due and fired.
    public var timersFired: Int

    public init(advancedMs: Double, nowMs: Double, timersFired: Int) {
        self.advancedMs = advancedMs
        self.nowMs = nowMs
        self.timersFired = timersFired
    }
}
