/// The output stream of swift-log's `StreamLogHandler` for the text format: each line the
/// handler writes goes into the log line queue instead of straight to standard output, so
/// a reader that stops reading never holds up the thread that logged.
struct QueuedLogStream: TextOutputStream, Sendable {
    let queue: LogLineQueue

    /// `StreamLogHandler` writes each line whole, its newline included, in one call.
    mutating func write(_ string: String) {
        queue.enqueue(Array(string.utf8))
    }
}
