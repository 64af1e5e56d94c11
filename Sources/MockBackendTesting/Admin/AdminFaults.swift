import MockBackend

extension AdminClient {
    /// `/__admin/faults`: rules that act on the bytes of the responses they match
    /// (`Fault`, `FaultSpec` in `openapi/openapi.yaml`).
    public struct Faults: Sendable {
        let http: KitHTTP

        /// `POST /__admin/faults`: a rule for the requests `match` hits (all of them by
        /// default), firing `times` times at most (nil: for good) with `probability` (nil: 1).
        /// Returns the rule with its id; 400 `INVALID_FAULT` names a field that is wrong.
        @discardableResult
        public func add(
            _ fault: Fault, match: FaultRule.Match = FaultRule.Match(), times: Int? = nil, probability: Double? = nil
        ) async throws -> FaultRule {
            try await http.call(
                "POST", "/__admin/faults",
                json: NewFaultRule(match: match, fault: fault, times: times, probability: probability))
        }

        /// `GET /__admin/faults`: the rules in force, with how often each has fired.
        public func list() async throws -> [FaultRule] {
            try await http.call("GET", "/__admin/faults")
        }

        /// `DELETE /__admin/faults/{id}`; 404 `FAULT_NOT_FOUND` for an unknown id.
        public func remove(_ id: String) async throws {
            try await http.send("DELETE", "/__admin/faults/\(KitHTTP.segment(id))")
        }

        /// `DELETE /__admin/faults`: every rule. Returns how many there were.
        @discardableResult
        public func removeAll() async throws -> Int {
            let answer: FaultsRemoved = try await http.call("DELETE", "/__admin/faults")
            return answer.removed
        }
    }
}
