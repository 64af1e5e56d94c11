import MockBackendHTTP

extension StreamEndCause {
    /// The cause of an end the stream did not decide itself.
    init(_ reason: StreamEndReason) {
        switch reason {
        case .finished: self = .finished
        case .clientClosed: self = .clientClosed
        case .slowReader: self = .slowReader
        case .serverStopping: self = .serverStopping
        case .cut: self = .fault
        case .connectionClosed, .aborted: self = .connectionClosed
        }
    }
}
