extension HTTPConnection {
    /// Logs the one line of a request when its response ends, however it ends: written to
    /// the end (`finished`, or `server_stopping` for a stream a stop ended), or cut short by
    /// the client, the server or a fault (the reason `close(reason:)` was given). Called
    /// from `completeCurrent` and from `close(reason:)` with the response in flight; both
    /// clear `current`, so no request is logged twice.
    func logEnd(of flight: ResponseInFlight, reason: StreamEndReason) {
        logEnd(of: flight, as: flight.writer?.namedEnd ?? reason.description)
    }

    /// Logs the one line of a request whose end is named `word` (the stream journal's words).
    func logEnd(of flight: ResponseInFlight, as word: String) {
        context.logger.info(
            "\(flight.request.method) \(context.configuration.loggedTarget(flight.request)) \(flight.status)",
            metadata: [
                "connection": "\(id)",
                "duration_ms": "\(Self.milliseconds(ContinuousClock.now - flight.startedAt))",
                "end": "\(word)",
            ])
    }

    /// Milliseconds with two decimals, truncated: `312.45`, `0.07`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        // 1 ms is 10^15 attoseconds, so a hundredth of one is 10^13.
        let hundredths = max(0, seconds * 100_000 + attoseconds / 10_000_000_000_000)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
