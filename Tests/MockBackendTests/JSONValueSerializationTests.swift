import Foundation
import MockBackendAPI
import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

@Suite("JSONValue serialization")
struct JSONValueSerializationTests {
    /// The hand-written serializer must write exactly what `JSONCoding.encoder` writes.
    @Test func writesTheSameBytesAsTheEncoder() throws {
        var generator = SeededGenerator(seed: 20_261_122)
        for _ in 0..<2000 {
            let value = JSONValue.random(depth: 3, using: &generator)
            let expected = Array(try JSONCoding.encoder.encode(value))
            let written = try #require(value.serialized)
            #expect(written == expected, "\(String(decoding: expected, as: UTF8.self))")
        }
    }

    @Test func edgeCasesMatchTheEncoder() throws {
        let values: [JSONValue] = [
            .number(1.0), .number(-0.0), .number(0.1), .number(1e-7), .number(1e21), .number(123_456_789.125),
            .number(Double.leastNonzeroMagnitude), .number(Double.greatestFiniteMagnitude),
            .integer(.min), .integer(.max),
            .string("\u{0}\u{1}\u{1F}\u{7F}\"\\/\u{2028}é𝄞\r\n\t\u{8}\u{C}"),
            .object(["b": .null, "B": .bool(true), "a1": .array([]), "a10": .object([:]), "a2": .string("")]),
        ]
        for value in values {
            let expected = Array(try JSONCoding.encoder.encode(value))
            #expect(value.serialized == expected, "\(String(decoding: expected, as: UTF8.self))")
        }
    }

    @Test func numbersJSONCannotHoldAreRefused() {
        #expect(JSONValue.number(.nan).serialized == nil)
        #expect(JSONValue.array([.number(.infinity)]).serialized == nil)
    }
}

private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var mixed = state
        mixed = (mixed ^ (mixed >> 33)) &* 0xff51_afd7_ed55_8ccd
        return mixed ^ (mixed >> 33)
    }
}

extension JSONValue {
    fileprivate static func random(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let kinds = depth > 0 ? 7 : 5
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2:
            return .integer(
                Int.random(in: Int.min...Int.max, using: &generator) >> Int.random(in: 0..<63, using: &generator))
        case 3:
            let magnitude =
                Double.random(in: -1...1, using: &generator)
                * pow(10, Double(Int.random(in: -30...30, using: &generator)))
            return .number(Bool.random(using: &generator) ? magnitude : magnitude.rounded())
        case 4: return .string(randomString(using: &generator))
        case 5:
            return .array(
                (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                    random(depth: depth - 1, using: &generator)
                })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                members[randomString(using: &generator)] = random(depth: depth - 1, using: &generator)
            }
            return .object(members)
        }
    }

    fileprivate static func randomString(using generator: inout SeededGenerator) -> String {
        let pieces: [String] = [
            "a", "Z", "0", "9", "_", " ", "/", "\\", "\"", "\n", "\u{1}", "\u{1F}", "é", "ß", "𝄞", "\u{7F}", "x1",
            "X10",
        ]
        return (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
    }
}
