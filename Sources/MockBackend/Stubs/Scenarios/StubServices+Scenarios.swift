import MockBackendAPI
import MockBackendHTTP

extension StubServices {
    /// The answer of the best stub for `request` (of priority `priorityAtMost` or less),
    /// its scenario moved in the same step and what the move sets off started; nil when no
    /// stub answers.
    func answer(_ request: HTTPRequest, from stubs: StubStore, priorityAtMost: Int = .max) -> HTTPResponse? {
        guard let match = stubs.matchAndMove(request, priorityAtMost: priorityAtMost) else { return nil }
        if let entered = match.entered { scenarioEntered(entered, stubs: stubs) }
        return match.mapping.makeResponse(to: request, services: self)
    }

    /// A match moved a scenario: its clock transition is planned, its `onEnter` actions
    /// run, before the answer goes (a push reaches an open stream first).
    private func scenarioEntered(_ entry: ScenarioEntry, stubs: StubStore) {
        if let transition = entry.rule.transition {
            replay.clock.schedule(after: .milliseconds(transition.afterMilliseconds)) {
                stubs.transition(after: entry, to: transition.to)
            }
        }
        for action in entry.rule.onEnter {
            switch action {
            case .push(let name, let event, let data):
                // A stream nobody has opened has nobody to tell.
                guard let stream = replay.streams.existingStream(named: name) else { continue }
                let pushed = StreamEvent(type: event, data: data)
                if stream.isRelay {
                    _ = stream.inject(pushed, retry: nil)
                } else {
                    stream.publish(pushed)
                }
            case .disconnect(let name, let mode):
                _ = replay.streams.existingStream(named: name)?.disconnect(mode: mode)
            }
        }
    }
}
