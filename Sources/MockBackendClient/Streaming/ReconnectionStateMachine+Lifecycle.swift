/// What the app asks of a running source: close the connection for a while (`suspend`),
/// open it again (`resume`), or connect at once without waiting out a backoff
/// (`reconnectNow`). Each one that changes the state interrupts what the driver is doing;
/// the driver then asks with `.interrupted` what to do instead.
extension ReconnectionStateMachine {
    mutating func handleLifecycle(_ input: Input) -> Action {
        switch input {
        case .suspend:
            // The polling fallback is the app's own code and runs to its end.
            guard started, state != .polling, state != .suspended else { return .none }
            openedAt = nil
            state = .suspended
            return .waitForResume
        case .resume:
            guard state == .suspended else { return .none }
            return connectAfresh()
        case .reconnectNow:
            guard started, state != .polling else { return .none }
            return connectAfresh()
        case .interrupted:
            return state == .suspended ? .waitForResume : .connect
        default:
            return .none
        }
    }

    /// A new first connection: the app says the network is worth trying now, so the
    /// attempts count from zero again. The server's `retry:` stays in force.
    private mutating func connectAfresh() -> Action {
        openedAt = nil
        attempt = 0
        state = .connecting(attempt: 0)
        return .connect
    }

    /// Whether `input` reports on the connection or the backoff (which a suspension has
    /// already ended), rather than coming from the app.
    static func comesFromTheConnection(_ input: Input) -> Bool {
        switch input {
        case .response, .retryAdvertised, .eventReceived, .connectionFailed, .streamEnded, .delayElapsed: true
        case .start, .pollingFinished, .stop, .suspend, .resume, .reconnectNow, .interrupted: false
        }
    }
}
