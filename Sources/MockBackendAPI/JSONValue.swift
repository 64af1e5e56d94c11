#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value: what a field holds when its shape is open, such as a workflow event's
/// payload or a request field that takes "a string or any JSON".
///
/// Numbers decode as `integer` when they fit an `Int`, else as `number`, so a value read
/// and written again keeps its integers as integers.
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

    /// The JSON of any encodable value, e.g. a typed workflow payload as the object a
    /// `WorkflowEvent` carries.
    /// - Throws: `EncodingError` when the value cannot be encoded (a NaN, say).
    public init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// This JSON read as a decodable type, e.g. a workflow payload as its typed struct.
    /// - Throws: `DecodingError` when the JSON does not have the type's shape.
    public func decode<Value: Decodable>(as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
    }
}
