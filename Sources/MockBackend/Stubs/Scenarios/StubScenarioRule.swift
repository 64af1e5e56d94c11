import MockBackendAPI
import MockBackendHTTP

/// A mapping's part in a WireMock scenario: `scenarioName`, `requiredScenarioState` (it
/// matches only in that state), `newScenarioState` (its match moves the scenario there),
/// and what this server adds: `scenarioScope` (a header, cookie or query value gives each
/// client its own copy), `transition` (a later move on the simulation clock), and
/// `onEnter` (stream actions run when its match moves the scenario).
///
/// ```json
/// {"scenarioName": "job", "requiredScenarioState": "Started", "newScenarioState": "running",
///  "scenarioScope": {"header": "X-SessionId"},
///  "transition": {"afterMs": 5000, "to": "failed"},
///  "onEnter": [{"push": {"stream": "replay/job/events", "event": "failed", "data": {"code": 500}}}]}
/// ```
struct StubScenarioRule: Sendable {
    /// A move the simulation clock makes later: `afterMs` after this mapping moved the
    /// scenario into its new state, to `to`, if the scenario is still in that state then.
    struct Transition: Sendable, Equatable {
        var afterMilliseconds: Int
        var to: String
    }

    /// What runs when this mapping's match moves the scenario.
    enum Action: Sendable {
        /// An event into a stream (`POST /__admin/streams/{stream}/events`).
        case push(stream: String, event: String?, data: JSONValue)
        /// Its connections dropped (`POST /__admin/streams/{stream}/disconnect`).
        case disconnect(stream: String, mode: DisconnectMode)
    }

    /// WireMock's first state of every scenario.
    static let started = "Started"

    /// The longest scenario or state name: enough for any sentence, and the admin API's
    /// listing stays small however many copies a scope makes.
    static let maximumNameLength = 512

    var name: String
    var requiredState: String?
    var newState: String?
    /// Where a request carries the value that chooses its copy of the scenario: a header,
    /// cookie or query parameter, read as the proxy reads a session token (never `bearer`).
    var scope: ProxyTokenSource?
    var transition: Transition?
    var onEnter: [Action]

    static let fields = [
        "scenarioName", "requiredScenarioState", "newScenarioState", "scenarioScope", "transition", "onEnter",
    ]

    /// Reads the scenario fields of the mapping `reader` holds; nil without `scenarioName`.
    static func parse(_ reader: MappingFieldReader) throws(StubMappingError) -> StubScenarioRule? {
        guard let name = try reader.string("scenarioName") else {
            if let field = fields.dropFirst().first(where: reader.has) {
                throw StubMappingError(field: reader.field(field), "needs scenarioName")
            }
            return nil
        }
        guard !name.isEmpty else { throw StubMappingError(field: reader.field("scenarioName"), "must not be empty") }
        guard name.count <= maximumNameLength else {
            throw StubMappingError(
                field: reader.field("scenarioName"), "must be at most \(maximumNameLength) characters")
        }
        let required = try state(reader, "requiredScenarioState")
        let new = try state(reader, "newScenarioState")
        var rule = StubScenarioRule(
            name: name, requiredState: required, newState: new, scope: try scope(reader), transition: nil, onEnter: [])
        if let transition = try reader.object("transition") {
            guard new != nil else {
                throw StubMappingError(field: reader.field("transition"), "needs newScenarioState: it moves on from it")
            }
            try transition.refuseUnknownKeys(known: ["afterMs", "to"])
            guard let after = try transition.milliseconds("afterMs") else {
                throw StubMappingError(field: transition.field("afterMs"), "is required")
            }
            guard let to = try state(transition, "to") else {
                throw StubMappingError(field: transition.field("to"), "is required")
            }
            rule.transition = Transition(afterMilliseconds: after, to: to)
        }
        if let actions = try reader.array("onEnter") {
            guard new != nil else {
                throw StubMappingError(field: reader.field("onEnter"), "needs newScenarioState: it runs on entering it")
            }
            for (index, item) in actions.enumerated() {
                rule.onEnter.append(try action(item, path: reader.field("onEnter") + "[\(index)]"))
            }
        }
        return rule
    }

    private static func state(_ reader: MappingFieldReader, _ key: String) throws(StubMappingError) -> String? {
        guard let state = try reader.string(key) else { return nil }
        guard !state.isEmpty else { throw StubMappingError(field: reader.field(key), "must not be empty") }
        guard state.count <= maximumNameLength else {
            throw StubMappingError(field: reader.field(key), "must be at most \(maximumNameLength) characters")
        }
        return state
    }

    private static func scope(_ reader: MappingFieldReader) throws(StubMappingError) -> ProxyTokenSource? {
        guard let scope = try reader.object("scenarioScope") else { return nil }
        try scope.refuseUnknownKeys(known: ["header", "cookie", "query"])
        var given: [ProxyTokenSource] = []
        for key in ["header", "cookie", "query"] {
            guard let name = try scope.string(key) else { continue }
            guard !name.isEmpty else { throw StubMappingError(field: scope.field(key), "must not be empty") }
            switch key {
            case "header": given.append(.header(name))
            case "cookie": given.append(.cookie(name))
            default: given.append(.query(name))
            }
        }
        guard given.count == 1, let only = given.first else {
            throw StubMappingError(
                field: reader.field("scenarioScope"), "needs exactly one of header, cookie and query")
        }
        return only
    }

    private static func action(_ value: JSONValue, path: String) throws(StubMappingError) -> Action {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["push", "disconnect"])
        switch (try reader.object("push"), try reader.object("disconnect")) {
        case (let push?, nil):
            try push.refuseUnknownKeys(known: ["stream", "event", "data"])
            let event = try push.string("event")
            if let event, event.isEmpty || event.contains(where: \.isNewline) {
                throw StubMappingError(field: push.field("event"), "must be a non-empty single line")
            }
            guard let data = push.value("data") else {
                throw StubMappingError(field: push.field("data"), "is required (a string, or any JSON)")
            }
            return .push(stream: try stream(push), event: event, data: data)
        case (nil, let disconnect?):
            try disconnect.refuseUnknownKeys(known: ["stream", "graceful", "reset"])
            let request = StreamDisconnectRequest(
                reset: try disconnect.bool("reset"), graceful: try disconnect.bool("graceful"))
            guard let mode = request.mode else {
                throw StubMappingError(field: disconnect.field("reset"), "cannot be combined with graceful")
            }
            return .disconnect(stream: try stream(disconnect), mode: mode)
        default:
            throw StubMappingError(field: path, "needs exactly one of push and disconnect")
        }
    }

    private static func stream(_ reader: MappingFieldReader) throws(StubMappingError) -> String {
        guard let name = try reader.string("stream"), !name.isEmpty else {
            throw StubMappingError(
                field: reader.field("stream"), "is required: a stream's name, as GET /__admin/streams lists it")
        }
        return name
    }
}
