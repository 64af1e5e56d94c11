/// One event of an event stream, as encoded or as dispatched by a parser.
public struct ServerSentEvent: Sendable, Equatable, Hashable {
    /// The `event:` type; nil means the default type, `message`.
    public var type: String?
    /// The data: the `data:` lines joined with LF.
    public var data: String
    /// The `id:` field sent with the event. The parser fills it with the last event ID in
    /// force when the event was dispatched, which may come from an earlier block.
    public var id: String?

    public init(type: String? = nil, data: String, id: String? = nil) {
        self.type = type
        self.data = data
        self.id = id
    }

    /// The type a listener sees: `message` when none was given.
    public var effectiveType: String { type ?? "message" }
}
