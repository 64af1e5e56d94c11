/// A value that goes out as the data of one server-sent event: its JSON is the `data:`
/// field, and its type names the `event:` field.
///
/// Every event the backends publish conforms: the import and generation events (one
/// `event:` name per type), the workflow event (always `event: workflow`) and the
/// user-info frames (no `event:` field at all). The server publishes them through one
/// function, and the client decodes the same types, so both read one definition of each
/// frame; the golden examples in `openapi/examples/` hold both to `openapi/openapi.yaml`.
public protocol WireEvent: Encodable, Sendable {
    /// The `event:` field the value is sent under; nil for a frame without one, which
    /// EventSource dispatches as `message`.
    static var eventType: String? { get }
}
