/// A WireMock-style request matcher: every given condition must hold. The body of
/// `POST /__admin/requests/count` (schema `RequestMatcher`); the server matches journaled
/// requests with it.
///
/// `url` is the exact target (path and query), `urlPath` the exact path, `urlPathPattern`
/// a regular expression the whole path must match, `path` a glob where `*` is any run of
/// characters within a segment and `**` any run at all; `headers` maps a name to
/// `equalTo`, `contains` or `matches`; `bodyContains` looks in the body excerpt.
public struct RequestMatcher: Codable, Sendable, Equatable {
    /// What a header's value must be; every given condition must hold.
    public struct HeaderCondition: Codable, Sendable, Equatable {
        public var equalTo: String?
        public var contains: String?
        /// A regular expression the whole value must match.
        public var matches: String?

        public init(equalTo: String? = nil, contains: String? = nil, matches: String? = nil) {
            self.equalTo = equalTo
            self.contains = contains
            self.matches = matches
        }
    }

    /// `ANY` or nil for every method.
    public var method: String?
    public var url: String?
    public var urlPath: String?
    public var urlPathPattern: String?
    public var path: String?
    public var headers: [String: HeaderCondition]?
    public var bodyContains: String?

    public init(method: String? = nil, path: String? = nil) {
        self.method = method
        self.path = path
    }
}
