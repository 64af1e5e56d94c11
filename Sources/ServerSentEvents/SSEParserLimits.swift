/// How large a line and an event may grow before an `SSEParser` gives up on them.
///
/// A server that never sends a line end, or piles up `data:` lines without the blank line
/// that dispatches them, would otherwise make the parser hold every byte it sends.
public struct SSEParserLimits: Sendable, Equatable {
    /// Longest line, in bytes, without its line end. Default 1 MiB.
    public var maxLineBytes: Int
    /// Largest event, in bytes of its data buffer (the `data:` values joined with LF).
    /// Default 8 MiB.
    public var maxEventBytes: Int

    public init(maxLineBytes: Int = 1 << 20, maxEventBytes: Int = 8 << 20) {
        self.maxLineBytes = max(maxLineBytes, 1)
        self.maxEventBytes = max(maxEventBytes, 1)
    }
}

/// A limit of `SSEParserLimits` that the stream went past.
public enum SSEParserError: Error, Sendable, Equatable, Hashable {
    /// A line grew past `limit` bytes before its line end; the line is dropped, and with
    /// it the event it belonged to.
    case lineTooLong(limit: Int)
    /// An event's data grew past `limit` bytes before its blank line; the event is dropped.
    case eventTooLarge(limit: Int)
}
