import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents

/// The golden examples in openapi/examples/ (validated against the document's schemas by
/// openapi/check_examples.py) and the shape comparison the golden tests make.
enum GoldenExample {
    /// `name` is the path under openapi/examples/ without `.json`, e.g. `imports/status`.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/openapi/examples/\(name).json"))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(type, from: try data(name))
    }

    /// Every key path with the JSON type at it, e.g. `body.balanceChange.Real.afterAmount: number`.
    static func shape(_ data: Data) throws -> Set<String> {
        func walk(_ value: JSONValue, _ path: String, into shape: inout Set<String>) {
            switch value {
            case .object(let object):
                shape.insert("\(path): object")
                for (key, child) in object { walk(child, path.isEmpty ? key : "\(path).\(key)", into: &shape) }
            case .array(let array):
                shape.insert("\(path): array")
                for child in array { walk(child, "\(path)[]", into: &shape) }
            case .null: shape.insert("\(path): null")
            case .bool: shape.insert("\(path): bool")
            case .integer, .number: shape.insert("\(path): number")
            case .string: shape.insert("\(path): string")
            }
        }
        var shape = Set<String>()
        walk(try JSONDecoder().decode(JSONValue.self, from: data), "", into: &shape)
        return shape
    }

    static func shape(_ response: RawResponse) throws -> Set<String> {
        try shape(Data(response.body))
    }

    static func shape(of name: String) throws -> Set<String> {
        try shape(try data(name))
    }

    /// The events of a finished stream's body, by type.
    static func events(_ body: [UInt8]) -> [String: [Data]] {
        var parser = SSEParser()
        var byType: [String: [Data]] = [:]
        for case .event(let event) in parser.feed(body) {
            byType[event.type ?? "message", default: []].append(Data(event.data.utf8))
        }
        return byType
    }
}
