import MockBackendHTTP
import ServerSentEvents

extension EventStream {
    /// Ended audiences a stream remembers (for connections of a session that ends while
    /// they open); older ones are forgotten first.
    static let endedAudienceLimit = 1000

    /// Ends the stream: live subscribers get what is queued and then a clean end; those
    /// still catching up end once their replay is written; later connections get the
    /// history after their Last-Event-ID, or 204 if there is none.
    package func finish() {
        let finishing = state.withLock { state -> [Subscriber] in
            state.finished = true
            let live = state.subscribers.values.filter { $0.phase == .live }
            for subscriber in live { Self.stopSending(to: subscriber, in: &state) }
            return live
        }
        for subscriber in finishing {
            subscriber.noteEnding(.finished)
            subscriber.sink.finish(.complete)
        }
    }

    /// Ends every subscriber's connection (or one) now, as `mode` says, with `cause` in the
    /// journal. Returns how many were ended: every subscriber still connected, those asked
    /// to end before included (a blackholed connection never takes a clean end; a reset
    /// disconnect still ends it).
    @discardableResult
    package func disconnect(connection: UInt64? = nil, mode: DisconnectMode = .broken, cause: StreamEndCause = .admin)
        -> Int
    {
        let leaving = state.withLock { state in
            let leaving = state.subscribers.values.filter { connection == nil || $0.sink.connectionID == connection }
            for subscriber in leaving { Self.stopSending(to: subscriber, in: &state) }
            return leaving
        }
        for subscriber in leaving {
            subscriber.noteEnding(cause, overriding: true)
            subscriber.sink.disconnect(mode)
        }
        return leaving.count
    }

    /// Starts an audience (a player session) at the end of the log, unless it has begun:
    /// from now on its subscribers resume from ids of this stream, and its end reaches them.
    func openAudience(_ audience: String) {
        state.withLock { state in
            if state.audiences[audience] == nil {
                state.audiences[audience] = Audience(start: state.log.lastSequence)
            }
        }
    }

    /// Ends an audience: logs `event` for it alone (with the next id), sends it to its
    /// subscribers, ends them cleanly with `cause` in the journal, and remembers it, so a
    /// connection of the audience that opens now gets the same event and end. Nothing
    /// happens if it has ended already. Returns how many connections it ended (those
    /// still catching up end after their replay, which holds the event).
    @discardableResult
    func endAudience(_ audience: String, with event: StreamEvent, cause: StreamEndCause) -> Int {
        let ending = state.withLock { state -> [Subscriber]? in
            if state.audiences[audience]?.end != nil { return nil }
            let start = state.audiences[audience]?.start ?? state.log.lastSequence
            let logged = state.log.append(event, audience: audience)
            state.ledger.passOver(logged.sequence)
            state.audiences[audience] = Audience(start: start, end: (logged, cause))
            state.endedAudiences.append(audience)
            if state.endedAudiences.count > Self.endedAudienceLimit {
                state.audiences[state.endedAudiences.removeFirst()] = nil
            }
            let members = state.subscribers.values.filter { $0.audience == audience && $0.phase != .ending }
            var ending: [Subscriber] = []
            for subscriber in members where subscriber.phase == .live {
                // Noted up to now before the event sent to it alone.
                Self.stopSending(to: subscriber, in: &state)
                subscriber.sink.write([logged])
                subscriber.record.noteWritten(id: logged.wireID)
                ending.append(subscriber)
            }
            return ending + members.filter { $0.replayFrom != nil }
        }
        guard let ending else { return 0 }
        for subscriber in ending where subscriber.replayFrom == nil {
            subscriber.noteEnding(cause)
            subscriber.sink.finish(.complete)
        }
        return ending.count
    }

    /// Ends, as `idle`, the live subscribers that have had no event for the stream's idle
    /// timeout of simulated time (`now`).
    func closeIdleSubscribers(now: Duration) {
        guard let timeout = settings.idleTimeout else { return }
        let idle = state.withLock { state -> [Subscriber] in
            let idle = state.subscribers.values.filter { subscriber in
                guard subscriber.phase == .live else { return false }
                let lastActivity = max(subscriber.activeSince, state.lastEventAt ?? subscriber.activeSince)
                return now - lastActivity >= timeout
            }
            for subscriber in idle { Self.stopSending(to: subscriber, in: &state) }
            return idle
        }
        for subscriber in idle {
            subscriber.noteEnding(.idle)
            subscriber.sink.finish(.complete)
        }
    }

    /// Forgets every audience (a reset of the sessions).
    func removeAudiences() {
        state.withLock { state in
            state.audiences = [:]
            state.endedAudiences = []
        }
    }
}
