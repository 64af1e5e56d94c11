/// Which readiness a blocked operation waits for. A TLS stream may need the socket to
/// become readable before a write can go on (and the other way round).
public enum IODirection: Sendable, Equatable {
    case read
    case write
}

/// The outcome of one non-blocking read or write.
public enum IOResult: Sendable, Equatable {
    /// This many bytes (more than zero) were moved.
    case processed(Int)
    /// Nothing moved; try again when the socket is ready in the given direction.
    case wouldBlock(IODirection)
    /// The peer closed its sending side (reads only).
    case endOfStream
}

/// The seam between the HTTP code and the bytes on the wire.
///
/// `HTTPConnection` reads and writes only through this protocol, so TLS plugs in as another
/// conformance without touching the HTTP code. Every method is called on the owning
/// connection's serial queue and never blocks.
public protocol ByteStream: AnyObject {
    /// The socket the connection's Dispatch sources watch.
    var fileDescriptor: Int32 { get }
    /// Reads what is available into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult
    /// Writes as much of `bytes` as the socket takes now.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> IOResult
    /// Whether input is held inside the stream that the socket will not signal again: TLS
    /// may decrypt more of a record than one read returned. Plain TCP never holds any.
    var hasBufferedInput: Bool { get }
    /// Whether a read that returned fewer bytes than asked left the socket empty, so that
    /// reading again would only return "would block". True for plain TCP; false (the
    /// default) for TLS, where a read returns at most one record and the next may wait.
    var shortReadDrainsSocket: Bool { get }
    /// Whether closing waits for the peer (FIN, then drain input) or happens at once.
    var lingersBeforeClose: Bool { get }
    /// Sends FIN after everything written so far; reading stays possible.
    func shutdownWrite()
    /// Releases the socket. With `reset`, the peer sees RST instead of FIN.
    /// Called exactly once, once nothing watches the descriptor any more
    /// (`SocketReadiness.cancel`).
    func close(reset: Bool)
}

extension ByteStream {
    public var shortReadDrainsSocket: Bool { false }
}
