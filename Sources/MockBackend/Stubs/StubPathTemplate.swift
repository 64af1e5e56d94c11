import MockBackendHTTP

/// `urlPathTemplate`: a path whose segments may be variables, `/contacts/{contactId}` —
/// the request's path matches when it has as many segments, each literal one equal and
/// each variable one not empty. The variables' values (percent-decoded) are what
/// `pathParameters` match and what a template reads as `request.path.contactId` (of a
/// name given twice, the later segment's value).
struct StubPathTemplate: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case variable(String)
    }

    let template: String
    let segments: [Segment]

    /// The variables' names, in order.
    var names: [String] {
        segments.compactMap { if case .variable(let name) = $0 { name } else { nil } }
    }

    init(_ template: String, field: String) throws(StubMappingError) {
        guard template.hasPrefix("/") else { throw StubMappingError(field: field, "must start with '/'") }
        var segments: [Segment] = []
        for part in template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                let name = String(part.dropFirst().dropLast())
                guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                    throw StubMappingError(
                        field: field, "has the variable {\(name)}: names are ASCII letters, digits, '_' and '-'")
                }
                segments.append(.variable(name))
            } else {
                guard !part.contains("{") && !part.contains("}") else {
                    throw StubMappingError(field: field, "has '\(part)': a variable is a whole segment, {name}")
                }
                segments.append(.literal(String(part)))
            }
        }
        self.template = template
        self.segments = segments
    }

    /// The variables' values when `path` matches; nil when it does not.
    func variables(in path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.first == "", parts.count - 1 == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts.dropFirst()) {
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
            case .variable(let name):
                guard !part.isEmpty else { return nil }
                values[name] = PercentDecoding.decode(part) ?? String(part)
            }
        }
        return values
    }
}
