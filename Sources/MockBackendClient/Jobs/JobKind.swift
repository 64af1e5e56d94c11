import ServerSentEvents

/// A kind of job a `JobTracker` can follow: its stream events, its polling status, and how
/// each tells progress and the outcome.
///
/// Contract: a stream event and a status that describe the same end of a job give equal
/// outcomes, whichever path the tracker was on, a failure's code and message included
/// (see `JobFailure`). A final event that lacks what the status
/// would add says so in `outcomeNeedsStatus(_:)`, and the tracker reads the status once.
public protocol JobKind: Sendable {
    /// A decoded event of the job's stream.
    associatedtype Event: Sendable & Equatable
    /// The body of the job's status endpoint.
    associatedtype Status: JobStatus & Decodable & Equatable
    /// What a completed job reports.
    associatedtype Summary: Sendable & Equatable

    /// Decodes a stream event; nil for a type the kind does not know (it is skipped).
    /// - Throws: when a known type's data does not match it (the event is skipped too).
    static func event(from event: ServerSentEvent) throws -> Event?

    /// The outcome an event announces; nil unless it is the job's last event.
    static func outcome(of event: Event) -> JobOutcome<Summary>?

    /// The outcome a status shows; nil unless the job has finished.
    static func outcome(of status: Status) -> JobOutcome<Summary>?

    /// Whether a final event lacks what the status would add to the outcome (a generation's
    /// `completed` event has no image URL). The tracker then reads the status once and
    /// reports the outcome it shows, or the event's when the read fails. Default: false.
    static func outcomeNeedsStatus(_ event: Event) -> Bool

    /// The progress an event tells, if it tells any.
    static func progress(of event: Event) -> JobProgress?

    /// The progress a status tells.
    static func progress(of status: Status) -> JobProgress
}

extension JobKind {
    public static func outcomeNeedsStatus(_ event: Event) -> Bool { false }
}

/// A kind of job whose events also come as WebSocket text messages, each one event: a
/// `JobTracker` can follow it on a socket (`init(socketURL:statusURL:…)`).
///
/// Contract: a message and the stream event it stands for decode to the same `Event`, so
/// outcomes and progress are the kind's own whichever transport carried them.
public protocol WebSocketJobKind: JobKind {
    /// Decodes a text message; nil for a type the kind does not know (it is skipped).
    /// - Throws: when the text is not a message, or a known type's fields do not match it
    ///   (it is skipped too).
    static func event(fromMessage text: String) throws -> Event?
}

/// What a `JobTracker` reports, in order.
public enum JobUpdate<Kind: JobKind>: Sendable, Equatable {
    /// An event of the job's stream, with its event id.
    case event(Kind.Event, id: String?)
    /// A status read by polling, or by the check on resuming after a long pause.
    case status(Kind.Status)
    /// The job finished; nothing follows.
    case finished(JobOutcome<Kind.Summary>)

    /// The progress this update tells, if any.
    public var progress: JobProgress? {
        switch self {
        case .event(let event, _): Kind.progress(of: event)
        case .status(let status): Kind.progress(of: status)
        case .finished: nil
        }
    }
}
