import MockBackendHTTP

/// The `request` half of a mapping: which requests the stub answers. Every given condition
/// must hold, as in WireMock.
struct StubRequestPattern: Sendable {
    /// How the request-target is compared; at most one is given.
    enum URLCondition: Sendable {
        /// None given: any URL.
        case any
        /// `url`: the exact target, query included, as sent.
        case url(String)
        /// `urlPath`: the exact path, query ignored.
        case urlPath(String)
        /// `urlPathPattern`: a regular expression the whole path matches.
        case urlPathPattern(StubRegex)
        /// `urlPattern`: a regular expression the whole target, query included, matches.
        case urlPattern(StubRegex)
        /// `urlPathTemplate`: a path with `{variable}` segments.
        case urlPathTemplate(StubPathTemplate)
    }

    /// Nil for `ANY` (or no method at all).
    var method: String?
    var url: URLCondition
    /// Header names compare without regard to case (RFC 9110 §5.1).
    var headers: [(name: String, condition: StubValueCondition)]
    /// Query parameter names compare exactly; values are percent-decoded first.
    var queryParameters: [(name: String, condition: StubValueCondition)]
    /// `bodyPatterns`: every one must hold.
    var bodyPatterns: [StubBodyPattern] = []
    /// `pathParameters`: conditions on a `urlPathTemplate`'s variables.
    var pathParameters: [(name: String, condition: StubValueCondition)] = []

    /// The `urlPathTemplate` variables of a request it matches (empty without a template).
    func pathVariables(of request: HTTPRequest) -> [String: String] {
        guard case .urlPathTemplate(let template) = url else { return [:] }
        return template.variables(in: request.path) ?? [:]
    }

    /// Whether it answers `request`. With `headOnly` (the body has not arrived) the body
    /// patterns are taken to hold: the answer is "it may".
    func matches(_ request: HTTPRequest, headOnly: Bool = false) -> Bool {
        if let method, method != request.method { return false }
        switch url {
        case .any: break
        case .url(let target): guard request.target == target else { return false }
        case .urlPath(let path): guard request.path == path else { return false }
        case .urlPathPattern(let regex): guard regex.wholeMatches(request.path) else { return false }
        case .urlPattern(let regex): guard regex.wholeMatches(request.target) else { return false }
        case .urlPathTemplate(let template):
            guard let variables = template.variables(in: request.path) else { return false }
            for (name, condition) in pathParameters where !condition.matches(variables[name].map { [$0] } ?? []) {
                return false
            }
        }
        for (name, condition) in headers where !condition.matches(request.headers.values(for: name)) {
            return false
        }
        if !queryParameters.isEmpty {
            let items = request.queryItems
            for (name, condition) in queryParameters
            where !condition.matches(items.filter { $0.name == name }.map(\.value)) {
                return false
            }
        }
        if !headOnly {
            for pattern in bodyPatterns where !pattern.matches(request.body) { return false }
        }
        return true
    }

    static let urlFields = ["url", "urlPath", "urlPathPattern", "urlPattern", "urlPathTemplate"]

    static let unsupported: [String: String] = [
        "formParameters": "",
        "multipartPatterns": "",
        "cookies": "; match the Cookie header instead",
        "basicAuthCredentials": "; match the Authorization header instead",
        "customMatcher": "",
        "host": "",
        "port": "",
        "scheme": "",
        "clientIp": "",
    ]

    /// Reads the `request` object at `path`.
    static func parse(_ value: JSONValue, path: String) throws(StubMappingError) -> StubRequestPattern {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(
            known: Set(["method", "headers", "queryParameters", "bodyPatterns", "pathParameters"] + urlFields),
            unsupported: unsupported)
        var method = try reader.string("method")
        if let given = method {
            guard !given.isEmpty, given.utf8.allSatisfy(HTTPToken.isTChar) else {
                throw StubMappingError(field: reader.field("method"), "must be a method name such as GET, or ANY")
            }
            if given == "ANY" { method = nil }
        }
        let given = urlFields.filter(reader.has)
        guard given.count <= 1 else {
            throw StubMappingError(
                field: path, "has more than one of url/urlPath/urlPathPattern/urlPattern/urlPathTemplate")
        }
        var url = URLCondition.any
        if let name = given.first, let text = try reader.string(name) {
            switch name {
            case "url": url = .url(text)
            case "urlPath": url = .urlPath(text)
            case "urlPathTemplate": url = .urlPathTemplate(try StubPathTemplate(text, field: reader.field(name)))
            default:
                guard let regex = StubRegex(text) else {
                    throw StubMappingError(field: reader.field(name), "is not a valid regular expression")
                }
                url = name == "urlPattern" ? .urlPattern(regex) : .urlPathPattern(regex)
            }
        }
        var bodyPatterns: [StubBodyPattern] = []
        for (index, item) in (try reader.array("bodyPatterns") ?? []).enumerated() {
            bodyPatterns.append(try StubBodyPattern.parse(item, path: reader.field("bodyPatterns") + "[\(index)]"))
        }
        let pathParameters = try conditions(reader, "pathParameters")
        if !pathParameters.isEmpty {
            guard case .urlPathTemplate(let template) = url else {
                throw StubMappingError(field: reader.field("pathParameters"), "needs urlPathTemplate")
            }
            if let unknown = pathParameters.first(where: { !template.names.contains($0.name) }) {
                throw StubMappingError(
                    field: reader.field("pathParameters") + "." + unknown.name,
                    "is no variable of \(template.template)")
            }
        }
        return StubRequestPattern(
            method: method, url: url, headers: try conditions(reader, "headers"),
            queryParameters: try conditions(reader, "queryParameters"), bodyPatterns: bodyPatterns,
            pathParameters: pathParameters)
    }

    /// `{"Name": {"equalTo": …}, …}`, in name order so matching is repeatable.
    private static func conditions(
        _ reader: MappingFieldReader, _ key: String
    ) throws(StubMappingError) -> [(name: String, condition: StubValueCondition)] {
        guard let object = try reader.object(key) else { return [] }
        var result: [(name: String, condition: StubValueCondition)] = []
        for name in object.fields.keys.sorted() {
            guard let value = object.value(name) else { continue }
            result.append((name, try StubValueCondition.parse(value, path: object.field(name))))
        }
        return result
    }
}
