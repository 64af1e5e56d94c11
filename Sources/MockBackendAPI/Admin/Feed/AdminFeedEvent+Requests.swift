extension AdminFeedEvent {
    /// `request`: a request answered outside `/__admin`, as the request journal recorded it.
    public struct Request: AdminFeedPayload {
        /// The journal entry's id.
        public var id: Int
        public var method: String
        public var target: String
        public var status: Int
        public var durationMs: Double
        public var connection: UInt64
        /// The fault that acted on it, as the journal says it: its kind and the rule's id.
        public var fault: String?
        /// True when it went upstream (proxy mode); absent otherwise.
        public var proxied: Bool?

        public init(
            id: Int, method: String, target: String, status: Int, durationMs: Double, connection: UInt64,
            fault: String? = nil, proxied: Bool? = nil
        ) {
            self.id = id
            self.method = method
            self.target = target
            self.status = status
            self.durationMs = durationMs
            self.connection = connection
            self.fault = fault
            self.proxied = proxied
        }

        public var fields: [String: JSONValue] {
            var fields: [String: JSONValue] = [
                "id": .integer(id), "method": .string(method), "target": .string(target),
                "status": .integer(status), "durationMs": .number(durationMs), "connection": .connection(connection),
            ]
            if let fault { fields["fault"] = .string(fault) }
            if let proxied { fields["proxied"] = .bool(proxied) }
            return fields
        }
    }

    /// `fault.fired`: a fault rule acted on a request.
    public struct FaultFired: AdminFeedPayload {
        /// The rule's id.
        public var fault: String
        /// The fault's kind (`Fault.kind`).
        public var kind: String
        public var method: String
        public var target: String
        public var connection: UInt64

        public init(fault: String, kind: String, method: String, target: String, connection: UInt64) {
            self.fault = fault
            self.kind = kind
            self.method = method
            self.target = target
            self.connection = connection
        }

        public var fields: [String: JSONValue] {
            [
                "fault": .string(fault), "kind": .string(kind), "method": .string(method), "target": .string(target),
                "connection": .connection(connection),
            ]
        }
    }
}
