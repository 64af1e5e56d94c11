import MockBackend

extension AdminClient {
    /// `/__admin/clock`: the simulation clock every simulated duration runs on (import
    /// progress, generations, workflow steps, session TTLs, heartbeats).
    public struct SimulationClockControl: Sendable {
        let http: KitHTTP

        /// `GET /__admin/clock`.
        public func state() async throws -> ClockState {
            try await http.call("GET", "/__admin/clock")
        }

        /// `POST /__admin/clock/advance`: a manual clock (`--clock manual`) moves on by
        /// `duration`, firing what falls due in order; 409 `CLOCK_NOT_MANUAL` otherwise.
        @discardableResult
        public func advance(by duration: Duration) async throws -> ClockAdvance {
            let milliseconds =
                Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
            return try await http.call("POST", "/__admin/clock/advance", json: ClockAdvanceRequest(ms: milliseconds))
        }

        /// `PUT /__admin/clock`: a real clock runs `speed` times faster (above 0, at most
        /// 10,000); 409 `CLOCK_IS_MANUAL` for a manual clock.
        @discardableResult
        public func setSpeed(_ speed: Double) async throws -> ClockState {
            try await http.call("PUT", "/__admin/clock", json: ClockSpeedRequest(speed: speed))
        }
    }
}
