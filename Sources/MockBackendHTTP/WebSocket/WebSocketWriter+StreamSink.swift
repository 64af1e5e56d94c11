/// A WebSocket as a stream's sink: each event is one data message (`StreamPayload.messages`),
/// the stream's end is the closing handshake.
extension WebSocketWriter: StreamSink {
    public var framing: StreamFraming { .webSocket }
    public var executor: any StreamExecutor { queue }

    public func writeOnExecutor(_ payload: StreamPayload) {
        guard let messages = payload.messages else { return }
        sendOnLoop(messages)
    }

    /// The closing handshake: 1000 when the stream is complete, 1001 when the server goes away.
    public func finish(_ ending: StreamFinish) {
        close(code: ending == .complete ? .normalClosure : .goingAway)
    }

    public func whenDrainedOnExecutor(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void
    ) {
        whenDrainedOnLoop(toAtMost: threshold, progress: progress, body)
    }

    /// How the transport ended; a closing handshake the client began counts as the client
    /// closing (a stream that ends its subscriber notes that cause itself first).
    public func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        onClose { event in
            handler(event.transport == .finished || event.transport == .aborted ? .clientClosed : event.transport)
        }
    }
}
