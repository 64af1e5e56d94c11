import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents

extension ServerSentEvent {
    /// A wire event as a frame: the `event:` type its type names, and its JSON as data,
    /// encoded as every body the server writes (`JSONCoding.encoder`: sorted keys, slashes
    /// unescaped). A value that cannot be encoded (a NaN) goes out as `{}`.
    package init<Event: WireEvent>(_ event: Event, id: String? = nil) {
        let data = (try? JSONCoding.encoder.encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        self.init(type: Event.eventType, data: data, id: id)
    }
}

extension EventStream {
    /// Publishes a wire event: logs it and sends it to every subscriber. The one way the
    /// backends put their events on a stream, so each frame is the shared type the client
    /// decodes (`MockBackendAPI`). With `retry`, the `retry:` field goes with it and becomes
    /// the stream's advertised reconnection time.
    @discardableResult
    package func publish(_ event: some WireEvent, retry: Int? = nil) -> LoggedEvent {
        publish(ServerSentEvent(event), retry: retry)
    }
}
