import MockBackendHTTP

/// `GET/PUT /__admin/clock` and `POST /__admin/clock/advance`: the simulation clock.
struct AdminClockRoutes {
    let clock: SimulationClock

    func register(on admin: inout RouterGroup) {
        let clock = clock
        admin.get("/clock") { _ in try .json(Self.state(of: clock)) }
        admin.put("/clock") { request in
            let body = try RequestBody.decode(ClockSpeedRequest.self, from: request)
            guard body.speed > 0, body.speed <= 10_000, body.speed.isFinite else {
                throw ProblemDetails.badRequest(
                    "Field 'speed' must be above 0 and at most 10000.", code: "INVALID_BODY")
            }
            guard case .real = clock.mode else {
                throw ProblemDetails(
                    status: 409, code: "CLOCK_IS_MANUAL", detail: "A manual clock has no speed; move it with /advance.")
            }
            clock.setSpeed(body.speed)
            return try .json(Self.state(of: clock))
        }
        admin.post("/clock/advance") { request in
            let body = try RequestBody.decode(ClockAdvanceRequest.self, from: request)
            guard body.ms >= 0, body.ms <= 86_400_000 * 365, body.ms.isFinite else {
                throw ProblemDetails.badRequest(
                    "Field 'ms' must be from 0 to a year of milliseconds.", code: "INVALID_BODY")
            }
            guard clock.mode == .manual else {
                throw ProblemDetails(
                    status: 409, code: "CLOCK_NOT_MANUAL",
                    detail: "Only a manual clock (--clock manual) can be advanced.")
            }
            let fired = clock.advance(by: .microseconds(Int64((body.ms * 1000).rounded())))
            return try .json(ClockAdvance(advancedMs: body.ms, nowMs: Self.milliseconds(clock.now), timersFired: fired))
        }
    }

    static func state(of clock: SimulationClock) -> ClockState {
        switch clock.mode {
        case .manual: ClockState(mode: "manual", speed: nil, nowMs: milliseconds(clock.now))
        case .real(let speed): ClockState(mode: "real", speed: speed, nowMs: milliseconds(clock.now))
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        duration.milliseconds.rounded(toPlaces: 3)
    }
}
