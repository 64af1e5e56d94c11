import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A WireMock stub mapping, in the common subset mockbackend implements, plus its own
/// `response.sse`.
///
/// ```json
/// {"id": "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", "name": "one book", "priority": 1,
///  "request": {"method": "GET", "urlPathPattern": "/api/books/[0-9]+",
///              "headers": {"Accept": {"contains": "json"}}},
///  "response": {"status": 200, "jsonBody": {"id": 1}, "fixedDelayMilliseconds": 250}}
/// ```
///
/// Request: `method` (or `ANY`); at most one of `url` (the exact target, query included),
/// `urlPath`, `urlPathPattern` (a regular expression for the whole path), `urlPattern`
/// (for the whole target) and `urlPathTemplate` (`StubPathTemplate`, with
/// `pathParameters`); `headers` and `queryParameters` as `{name: StubValueCondition}`;
/// `bodyPatterns` (`StubBodyPattern`). Response: `status` (default 200), `headers`, one of
/// `body`, `base64Body`, `jsonBody`, `bodyFileName` (`StubBodyFile`), `sse` and
/// `webSocket`, `fixedDelayMilliseconds` and `transformers` (`ResponseTemplate`) — or
/// `proxyBaseUrl` (`StubProxyTarget`). Scenarios: `StubScenarioRule`. Everything else
/// WireMock knows is refused by name.
package struct StubMapping: Sendable {
    /// `id` (WireMock also accepts `uuid`); generated when the mapping has none.
    package let id: String
    package let name: String?
    /// Lower answers first; `1` also answers before the built-in routes.
    package let priority: Int?
    let request: StubRequestPattern
    let response: StubResponseDefinition
    /// Its part in a WireMock scenario, if it has one.
    let scenario: StubScenarioRule?
    /// The mapping as given, with `id` and `uuid` filled in: what the admin API shows.
    package let json: JSONValue

    /// WireMock's default for a mapping without a priority.
    package static let defaultPriority = 5

    /// The priority it is ordered by.
    package var effectivePriority: Int { priority ?? Self.defaultPriority }

    /// Whether it answers `request`. Called under `StubStore`'s lock (see `StubRegex`).
    func matches(_ request: HTTPRequest, headOnly: Bool = false) -> Bool {
        self.request.matches(request, headOnly: headOnly)
    }

    /// A fresh response for one request; a template that would write more than a render
    /// may answers 500 `TEMPLATE_RENDER_FAILED` naming the mapping.
    func makeResponse(to request: HTTPRequest, services: StubServices) -> HTTPResponse {
        do {
            return try response.response(
                to: request, pathVariables: self.request.pathVariables(of: request), services: services)
        } catch {
            return ProblemDetails(
                status: 500, code: "TEMPLATE_RENDER_FAILED",
                detail: "\(Self.label(id: id, name: name)): \(error.reason)"
            ).response
        }
    }

    /// How messages name a mapping: `mapping "name" (id)` or `mapping id`.
    static func label(id: String, name: String?) -> String {
        name.map { "mapping \"\($0)\" (\(id))" } ?? "mapping \(id)"
    }

    /// The host it proxies to, when it has a `proxyBaseUrl`.
    var proxyHost: String? {
        if case .proxy(let target) = response.body { return target.origin.host }
        return nil
    }

    static let unsupported: [String: String] = [
        "postServeActions": "",
        "serveEventListeners": "",
    ]

    /// Kept and shown, without effect here.
    static let informational = ["persistent", "metadata", "insertionIndex"]

    /// Reads one mapping. `path` prefixes every field named in an error (`mappings[1]` in a
    /// file holding several); `newID` makes the id of a mapping that has none.
    ///
    /// `uuid` is WireMock's alias of `id`: it names the mapping when `id` is absent and is
    /// otherwise only checked. With `fixedID` (a `PUT` to `/__admin/mappings/{id}`, as in
    /// WireMock) the path names the mapping and the ids in the body are only checked.
    package static func parse(
        _ value: JSONValue, path: String = "", fixedID: String? = nil, options: StubParseOptions = StubParseOptions(),
        newID: () -> String
    ) throws(StubMappingError) -> StubMapping {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(
            known: Set(
                ["id", "uuid", "name", "priority", "request", "response"] + informational + StubScenarioRule.fields),
            unsupported: unsupported)
        let givenID = try reader.string("id")
        let givenUUID = try reader.string("uuid")
        for (key, given) in [("id", givenID), ("uuid", givenUUID)] {
            if let given { try validate(id: given, field: reader.field(key)) }
        }
        let id = fixedID ?? givenID ?? givenUUID ?? newID()
        try validate(id: id, field: reader.field("id"))
        _ = try reader.bool("persistent")
        _ = try reader.object("metadata")
        _ = try reader.integer("insertionIndex")
        let priority = try reader.integer("priority")
        if let priority, priority < 1 {
            throw StubMappingError(field: reader.field("priority"), "must be 1 or more (1 answers first)")
        }
        guard let request = reader.value("request") else {
            throw StubMappingError(field: reader.field("request"), "is required")
        }
        guard let response = reader.value("response") else {
            throw StubMappingError(field: reader.field("response"), "is required")
        }
        var json = reader.fields
        json["id"] = .string(id)
        json["uuid"] = .string(id)
        let name = try reader.string("name")
        let definition: StubResponseDefinition
        do {
            definition = try StubResponseDefinition.parse(
                response, path: reader.field("response"), options: options)
        } catch  where error.isTemplateError {
            // A template's refusal names the mapping as well as the field.
            var named = error
            named.detail = "\(label(id: id, name: name)): \(error.detail)"
            throw named
        }
        return StubMapping(
            id: id, name: name, priority: priority,
            request: try StubRequestPattern.parse(request, path: reader.field("request")),
            response: definition, scenario: try StubScenarioRule.parse(reader), json: .object(json))
    }

    /// Reads a request body holding one mapping.
    static func parse(
        body: [UInt8], fixedID: String? = nil, options: StubParseOptions = StubParseOptions(), newID: () -> String
    ) throws(StubMappingError) -> StubMapping {
        try parse(try decodeJSON(body), fixedID: fixedID, options: options, newID: newID)
    }

    /// Parses JSON text, saying where it is broken.
    static func decodeJSON(_ bytes: [UInt8]) throws(StubMappingError) -> JSONValue {
        guard !bytes.isEmpty else { throw StubMappingError("The body is empty; a mapping is a JSON object.") }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw StubMappingError(RequestBody.describe(error))
        } catch {
            throw StubMappingError("The body is not valid JSON.")
        }
    }

    private static func validate(id: String, field: String) throws(StubMappingError) {
        guard (1...128).contains(id.count), id.utf8.allSatisfy(isUnreserved) else {
            throw StubMappingError(field: field, "must be 1-128 letters, digits, '-', '.', '_' or '~'")
        }
        guard !reservedIDs.contains(id) else {
            throw StubMappingError(field: field, "must not be '\(id)', which /__admin/mappings/\(id) cannot name")
        }
    }

    /// Ids no `/__admin/mappings/{id}` route could reach: dot segments (RFC 3986 §5.2.4
    /// removes them from a path) and the names of the literal routes beside it.
    static let reservedIDs: Set<String> = [".", "..", "reset", "import"]

    /// RFC 3986 §2.3 unreserved characters, so an id is usable in a path as it is.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
