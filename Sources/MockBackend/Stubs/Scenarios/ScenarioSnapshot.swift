import MockBackendAPI

/// One scenario as `GET /__admin/scenarios` shows it, in WireMock's shape (`id` is the
/// name), with the copies clients with a `scenarioScope` value have moved.
package struct ScenarioSnapshot: Codable, Sendable, Equatable {
    package struct Scope: Codable, Sendable, Equatable {
        package var value: String
        package var state: String
    }

    package var id: String
    package var name: String
    /// The state of the copy of requests without a scope value (and of an unscoped scenario).
    package var state: String
    package var possibleStates: [String]
    package var mappings: [JSONValue]
    package var scopes: [Scope]
}

/// `{"scenarios": [...]}`.
struct ScenarioList: Codable, Sendable {
    var scenarios: [ScenarioSnapshot]
}
