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

    /// The rule's id, given by the server.
    public var id: String
    public var match: Match
    public var fault: Fault
    /// How many more times it may fire; nil for no limit.
    public var times: Int?
    /// The chance, from 0 to 1, that it fires on a matching request. Default 1.
    public var probability: Double?
    /// How many times it has fired.
    public var fired: Int = 0

    public init(
        id: String, match: Match, fault: Fault, times: Int? = nil, probability: Double? = nil, fired: Int = 0
    ) {
        self.id = id
        self.match = match
        self.fault = fault
        self.times = times
        self.probability = probability
        self.fired = fired
    }
}

/// `POST /__admin/faults` (schema `FaultRuleRequest`): a rule without its id. The fault is
/// checked as it is decoded (`Fault+Coding.swift`).
public struct NewFaultRule: Codable, Sendable, Equatable {
    /// Nil hits every request.
    public var match: FaultRule.Match?
    public var fault: Fault
    /// Fires at most this many times (1 or more); nil for good.
    public var times: Int?
    /// The chance, from 0 to 1, that it fires; nil for 1.
    public var probability: Double?

    public init(match: FaultRule.Match? = nil, fault: Fault, times: Int? = nil, probability: Double? = nil) {
        self.match = match
        self.fault = fault
        self.times = times
        self.probability = probability
    }
}

/// The answer to `DELETE /__admin/faults`: how many rules there were.
public struct FaultsRemoved: Codable, Sendable, Equatable {
    public var removed: Int

    public init(removed: Int) {
        self.removed = removed
    }
}
