/// Size limits the request parser enforces, each answered with its own status.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request-target; longer is 414. Default 8 KiB.
    public var maxTargetLength: Int = 8 * 1024
    /// Largest header section (every field line after the request line); larger is 431.
    /// Default 16 KiB.
    public var maxHeaderBytes: Int = 16 * 1024
    /// Most header fields; more is 431. Default 100.
    public var maxHeaderCount: Int = 100
    /// Largest request body, by Content-Length or after de-chunking; larger is 413.
    /// Default 16 MiB.
    public var maxBodyBytes: Int = 16 * 1024 * 1024
    /// Longest chunk-size line, extensions included; longer is 400. Default 4 KiB.
    public var maxChunkLineLength: Int = 4 * 1024

    public init() {}
}
