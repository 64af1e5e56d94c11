import Foundation
import ServerSentEvents

/// The work of each segment: following the event stream, checking the status, polling.
/// (Following a WebSocket is in `JobTracker+WebSocket.swift`.)
extension JobTracker {
    func makeSource(lastEventID: String?) -> EventSource {
        let sourceConfiguration = EventSourceConfiguration(
            policy: configuration.policy, headers: configuration.headers, lastEventID: lastEventID,
            idleTimeout: configuration.idleTimeout,
            // Only the hand-over signal: the source stops with `.pollingFinished` at once, its
            // events drain in order, and then `follow` starts polling.
            pollingFallback: { _ in })
        return EventSource(url: streamURL, configuration: sourceConfiguration, clock: clock, random: random)
    }

    /// Reads the stream until its final event or its end.
    func follow(_ source: EventSource, segment: Int) async {
        do {
            for try await event in source.events {
                guard let (final, outcome) = receive(event) else { continue }
                source.stop()
                await end(with: outcome, confirmingIf: Kind.outcomeNeedsStatus(final))
                return
            }
        } catch {
            // 401/403, 404, not an event stream: polling finds out what that means for the job.
        }
        apply(.streamEnded(segment: segment))
    }

    /// Reports one stream event; returns it with its outcome when it is the final one.
    private func receive(_ event: ServerSentEvent) -> (Kind.Event, JobOutcome<Kind.Summary>)? {
        // A known type with data that does not decode is skipped: if it was the final event,
        // the stream's end, or polling, still tells the outcome.
        let decoded = try? Kind.event(from: event)
        shared.withLock { shared in
            if let id = event.id { shared.lastEventID = id }
            if let decoded, !shared.machine.phase.isTerminal { sink.yield(.event(decoded, id: event.id)) }
        }
        guard let decoded, let outcome = Kind.outcome(of: decoded) else { return nil }
        return (decoded, outcome)
    }

    /// Ends with a final event's outcome, or, when the event lacks what the status adds, with
    /// the outcome one status read shows (the event's own when the read fails).
    func end(with outcome: JobOutcome<Kind.Summary>, confirmingIf needsStatus: Bool) async {
        guard needsStatus, let status = try? await poller.fetch(), Kind.outcome(of: status) != nil else {
            end(.outcome(outcome))
            return
        }
        _ = report(status)
    }

    /// Reads the status once, after a long pause.
    func checkStatus(segment: Int) async {
        do {
            let status = try await poller.fetch()
            if report(status) { return }
            apply(.statusUnfinished(segment: segment))
        } catch let error as StatusPollingError where !error.isTransient {
            end(.failure(error))
        } catch is CancellationError {
            return
        } catch {
            // The server or network failed for now: the stream, and its fallback, take over.
            apply(.statusUnfinished(segment: segment))
        }
    }

    /// Polls until the status is final.
    func poll() async {
        do {
            for try await status in poller.statuses() {
                if report(status) { return }
            }
        } catch {
            end(.failure(error))
        }
    }

    /// Reports a status; true when it ended tracking.
    private func report(_ status: Kind.Status) -> Bool {
        shared.withLock { shared in
            if !shared.machine.phase.isTerminal { sink.yield(.status(status)) }
        }
        guard let outcome = Kind.outcome(of: status) else { return false }
        end(.outcome(outcome))
        return true
    }
}
