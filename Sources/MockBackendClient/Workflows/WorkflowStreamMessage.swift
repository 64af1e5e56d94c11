import Foundation
import MockBackendAPI
import ServerSentEvents

/// One event of a workflow session's stream, typed.
public enum WorkflowStreamMessage: Sendable, Equatable {
    /// `event: workflow`, decoded; `WorkflowEvent.typedPayload()` types its payload.
    case event(WorkflowEvent)
    /// An event of another type, as sent: `reset` (the Last-Event-ID was older than what the
    /// server retains; refetch the status) or one this client does not know.
    case other(ServerSentEvent)
    /// `event: workflow` whose data does not decode as `WorkflowEvent`, with the error.
    case undecodable(data: String, error: FrameDecodingError)

    /// Types one dispatched event. Never fails: what does not decode is `.undecodable`.
    public static func decode(_ event: ServerSentEvent) -> WorkflowStreamMessage {
        guard event.type == WorkflowEvent.eventType else { return .other(event) }
        do {
            return .event(try JSONDecoder().decode(WorkflowEvent.self, from: Data(event.data.utf8)))
        } catch {
            return .undecodable(data: event.data, error: FrameDecodingError(error))
        }
    }

    /// True for `loop.completed`, after which the server ends the stream.
    public var isLoopCompletion: Bool {
        if case .event(let event) = self { return event.topic == WorkflowTopic.loopCompleted }
        return false
    }
}
