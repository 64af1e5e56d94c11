import Foundation

/// What templates read besides the request: the simulation clock's time as a date (the
/// wall time when the server started plus the clock's reading, so `--clock manual` holds
/// `{{now}}` still until an advance) and the random source (`--seed` repeats it).
struct TemplateEnvironment: Sendable {
    let clock: SimulationClock
    let epoch: Date
    let random: IdentifierSource

    /// The simulation time, `offset` later.
    func now(after offset: Duration = .zero) -> Date {
        let elapsed = clock.now + offset
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return epoch.addingTimeInterval(seconds)
    }

    /// A render's input for `request`, at the clock's time `offset` from now.
    func input(for request: TemplateContent, after offset: Duration = .zero) -> TemplateRenderInput {
        TemplateRenderInput(request: request, now: now(after: offset), random: random)
    }
}
