/// One request as the journal keeps it: `GET /__admin/requests`.
public struct JournaledRequest: Codable, Sendable, Equatable {
    public var id: Int
    public var receivedAt: String
    public var method: String
    public var target: String
    public var path: String
    public var headers: [String: String]
    /// The first KiB of the body, as UTF-8 (invalid bytes replaced).
    public var bodyExcerpt: String
    public var bodySize: Int
    public var status: Int
    /// Time to build the response (for a stream: until its head).
    public var durationMs: Double
    public var connection: UInt64
    /// The fault that acted on this request, if one did.
    public var fault: String?
}
