import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value, for request fields that take "a string or any JSON".
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A string as itself; anything else as compact JSON text with sorted keys.
    public var text: String {
        if case .string(let value) = self { return value }
        return String(decoding: serialized ?? [], as: UTF8.self)
    }
}

/// Decodes JSON request bodies, answering 400 with a problem that names the bad field.
public enum RequestBody {
    public static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        let body = request.body.isEmpty ? Array("{}".utf8) : request.body
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw ProblemDetails.badRequest(describe(error), code: "INVALID_BODY")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Field '\(path(context, key))' is required."
        case .typeMismatch(let type, let context):
            return "Field '\(path(context))' must be \(describe(type))."
        case .valueNotFound(let type, let context):
            return "Field '\(path(context))' must be \(describe(type)), not null."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "The body is not valid JSON." : "Field '\(path(context))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "The body could not be read."
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is UInt64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "of type \(type)"
        }
    }
}
