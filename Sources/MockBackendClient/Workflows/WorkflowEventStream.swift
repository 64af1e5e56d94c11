import Foundation
import MockBackendAPI
import ServerSentEvents

/// The event stream of one workflow session (`GET /api/sessions/{id}/events`), as typed
/// messages. It reconnects with Last-Event-ID and stops for good after `loop.completed`,
/// decided as that event arrives, before the server's close could schedule a reconnection.
///
/// Made by `WorkflowClient.follow(_:)`, which opens it only for a session whose status
/// says `mode: live`.
///
/// Lifetime: cancelling the task that iterates `messages` stops the stream (the connection
/// closes and nothing reconnects), and so does letting go of the stream, so keep a
/// reference to it for as long as it should run.
public final class WorkflowEventStream: Sendable {
    /// The workflow session followed.
    public let sessionId: String
    /// The event source underneath: its `states` and `lastEventID`. It stops with the
    /// stream, even while something else still holds it.
    public let source: EventSource
    /// The messages, in order, across reconnections; ends after `loop.completed`. One
    /// consumer: cancelling its task stops the stream.
    public let messages: AsyncThrowingStream<WorkflowStreamMessage, any Error>
    /// Stops the source when the consumer of `messages` leaves or the stream is released.
    private let lifetime: StreamLifetime<EventSource>

    init(url: URL, sessionId: String, headers: [String: String], policy: ReconnectionPolicy, lastEventID: String?) {
        self.sessionId = sessionId
        var configuration = EventSourceConfiguration(policy: policy, headers: headers, lastEventID: lastEventID)
        configuration.stopWhen = { event in
            WorkflowStreamMessage.decode(event).isLoopCompletion ? .sessionOver(WorkflowTopic.loopCompleted) : nil
        }
        let source = EventSource(url: url, configuration: configuration)
        self.source = source
        let (messages, sink) = AsyncThrowingStream.makeStream(of: WorkflowStreamMessage.self)
        self.messages = messages
        lifetime = StreamLifetime(of: source, feeding: sink) { $0.stop() }
        // The task holds the source's events, not the source: it ends when the source stops.
        let events = source.events
        Task {
            do {
                for try await event in events { sink.yield(WorkflowStreamMessage.decode(event)) }
                sink.finish()
            } catch {
                sink.finish(throwing: error)
            }
        }
    }

    /// Connects; does nothing if already started.
    public func start() { source.start() }

    /// Stops for good; `messages` ends.
    public func stop() { source.stop() }
}
