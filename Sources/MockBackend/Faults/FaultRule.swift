/// A fault rule: which requests it hits, what it does, how often. The shape of
/// `POST /__admin/faults` in `openapi/openapi.yaml`:
/// `{"match":{"method","path","header"},"fault":{"kind",...},"times":N,"probability":p}`.
public struct FaultRule: Codable, Sendable, Equatable {
    /// Which requests a rule hits; every given condition must hold.
    public struct Match: Codable, Sendable, Equatable {
        public var method: String?
        /// A glob over the path: `*` within one segment, `**` across segments.
        public var path: String?
        /// Header values that must be equal (names case-insensitive).
        public var header: [String: String]?

        public init(method: String? = nil, path: String? = nil, header: [String: String]? = nil) {
            self.method = method
            self.path = path
            self.header = header
        }
    }

    public var id: String
    public var match: Match
    public var fault: Fault
    /// How many more times it may fire; nil for no limit.
    public var times: Int?
    /// The chance, from 0 to 1, that it fires on a matching request. Default 1.
    public var probability: Double?
    /// How many times it has fired.
    public var fired: Int = 0
}
