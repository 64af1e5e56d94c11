/// How `POST /__admin/streams/{stream}/disconnect` ends connections.
public enum DisconnectMode: Sendable, Equatable {
    /// As a network failure: FIN without the end of the body (the chunked terminator).
    case broken
    /// As a network failure, with RST.
    case reset
    /// As a server that ends the response properly: the chunked terminator, then the
    /// connection stays for its next request. Clients that cannot resume from a broken
    /// chunked body resume from this.
    case graceful
}
