/// Reads one JSON object of a mapping field by field, so every error names the field by
/// its full path (`response.sse.events[2].delayMs`). A `null` reads as absent, as it does
/// for WireMock.
struct MappingFieldReader {
    let fields: [String: JSONValue]
    /// The object's own path; empty for the mapping itself.
    let path: String

    init(_ value: JSONValue, path: String) throws(StubMappingError) {
        guard case .object(let fields) = value else {
            throw StubMappingError(field: path.isEmpty ? "the mapping" : path, "must be a JSON object")
        }
        self.fields = fields
        self.path = path
    }

    /// The path of `key` inside this object.
    func field(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    func value(_ key: String) -> JSONValue? {
        guard let value = fields[key], value != .null else { return nil }
        return value
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    func string(_ key: String) throws(StubMappingError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw StubMappingError(field: field(key), "must be a string") }
        return text
    }

    func integer(_ key: String) throws(StubMappingError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case .integer(let number) = value else {
            throw StubMappingError(field: field(key), "must be an integer")
        }
        return number
    }

    func bool(_ key: String) throws(StubMappingError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw StubMappingError(field: field(key), "must be true or false") }
        return flag
    }

    func object(_ key: String) throws(StubMappingError) -> MappingFieldReader? {
        guard let value = value(key) else { return nil }
        return try MappingFieldReader(value, path: field(key))
    }

    func array(_ key: String) throws(StubMappingError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw StubMappingError(field: field(key), "must be an array") }
        return items
    }

    /// A number of milliseconds from 0 to an hour.
    func milliseconds(_ key: String) throws(StubMappingError) -> Int? {
        guard let value = try integer(key) else { return nil }
        guard value >= 0 else { throw StubMappingError(field: field(key), "must be 0 or more") }
        guard value <= Self.maximumMilliseconds else {
            throw StubMappingError(field: field(key), "must be at most \(Self.maximumMilliseconds) (an hour)")
        }
        return value
    }

    static let maximumMilliseconds = 3_600_000

    /// Refuses WireMock features this server does not implement (`unsupported`, with a hint)
    /// and keys that are no feature at all, so a mapping never half-works in silence.
    func refuseUnknownKeys(known: Set<String>, unsupported: [String: String] = [:]) throws(StubMappingError) {
        for key in fields.keys.sorted() where !known.contains(key) && fields[key] != .null {
            if let hint = unsupported[key] {
                throw StubMappingError(field: field(key), "is not supported by mockbackend" + hint)
            }
            throw StubMappingError(field: field(key), "is not a known field")
        }
    }
}
