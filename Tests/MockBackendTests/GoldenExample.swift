import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import Testing

/// The golden examples in openapi/examples/ (validated against the document's schemas by
/// openapi/check_examples.py), the round trip through their wire types, and the shape
/// comparison the golden tests make.
enum GoldenExample {
    /// The server the golden tests compare with: a manual clock, so they choose when jobs
    /// advance, and a fixed seed.
    static func configuration() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.seed = 7
        return configuration
    }

    /// `name` is the path under openapi/examples/ without `.json`, e.g. `imports/status`.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/openapi/examples/\(name).json"))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(type, from: try data(name))
    }

    /// Decodes the example into its wire type, and checks that the type holds all of it:
    /// encoded again as the server encodes its bodies and events, it is the example's JSON
    /// (key order aside), and that JSON decodes to the same value.
    @discardableResult
    static func roundTrip<T: Codable & Equatable>(
        _ type: T.Type, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T {
        let example = try data(name)
        let value = try JSONDecoder().decode(type, from: example)
        let encoded = try JSONCoding.encoder.encode(value)
        let json = try JSONDecoder().decode(JSONValue.self, from: encoded)
        #expect(
            json == (try JSONDecoder().decode(JSONValue.self, from: example)),
            "\(name) encodes as \(String(decoding: encoded, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(try JSONDecoder().decode(type, from: encoded) == value, "\(name)", sourceLocation: sourceLocation)
        return value
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

    /// Every key of the JSON's top-level objects (of each item, for an array).
    static func keys(_ data: Data) throws -> Set<String> {
        switch try JSONDecoder().decode(JSONValue.self, from: data) {
        case .object(let object): Set(object.keys)
        case .array(let items):
            Set(
                items.flatMap { item -> [String] in
                    if case .object(let object) = item { Array(object.keys) } else { [] }
                })
        default: []
        }
    }

    /// The first of `events` under the type's `event:` name decodes as the type, and has
    /// the example's shape.
    static func expectEvent<Event: WireEvent & Decodable>(
        _ type: Event.Type, in events: [String: [Data]], like example: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let name = try #require(Event.eventType)
        let data = try #require(events[name]?.first, "no \(name) event", sourceLocation: sourceLocation)
        _ = try JSONDecoder().decode(type, from: data)
        #expect(try shape(data) == shape(of: example), "\(name)", sourceLocation: sourceLocation)
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
