import MockBackendHTTP
import TestSupport
import Testing

@Suite("UTF8Validator")
struct UTF8ValidatorTests {
    /// The index of the byte the validator refuses, or nil if it takes them all.
    private static func failingIndex(_ bytes: [UInt8]) -> Int? {
        var validator = UTF8Validator()
        return bytes.indices.first { !validator.consume(bytes[$0]) }
    }

    static let valid: [[UInt8]] = [
        [],
        Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
        // Autobahn 6.2: "κόσμε".
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5],
        // The edges: U+0000, U+007F, U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF, U+10000, U+10FFFF.
        [0x00, 0x7F, 0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80],
        [0xEF, 0xBF, 0xBF, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF],
    ]

    @Test("takes valid UTF-8", arguments: valid)
    func acceptsValid(_ bytes: [UInt8]) {
        var validator = UTF8Validator()
        let consumed = validator.consume(bytes)
        #expect(consumed)
        #expect(validator.isComplete)
        #expect(String(validating: bytes, as: UTF8.self) != nil)
    }

    /// Each invalid sequence and the first byte that makes it invalid (fail fast).
    static let invalid: [(bytes: [UInt8], failsAt: Int)] = [
        ([0x80], 0),  // a lone continuation byte
        ([0xBF], 0),
        ([0xC0, 0x80], 0),  // overlong NUL
        ([0xC1, 0xBF], 0),
        ([0xE0, 0x80, 0x80], 1),  // overlong in three bytes
        ([0xE0, 0x9F, 0xBF], 1),
        ([0xED, 0xA0, 0x80], 1),  // U+D800, a surrogate
        ([0xED, 0xBF, 0xBF], 1),  // U+DFFF
        ([0xF0, 0x80, 0x80, 0x80], 1),  // overlong in four bytes
        ([0xF0, 0x8F, 0xBF, 0xBF], 1),
        ([0xF4, 0x90, 0x80, 0x80], 1),  // U+110000, Autobahn 6.4.1's PART2
        ([0xF5, 0x80, 0x80, 0x80], 0),
        ([0xFE], 0),
        ([0xFF], 0),
        ([0xCE, 0xBA, 0xE1, 0x41], 3),  // a character cut short by ASCII
        ([0xC2, 0xC2], 1),
        ([0x61, 0xF4, 0x8F, 0xBF, 0xC0], 4),
    ]

    @Test("refuses invalid UTF-8 at its first bad byte", arguments: invalid)
    func refusesAtTheFirstBadByte(_ sample: (bytes: [UInt8], failsAt: Int)) {
        #expect(Self.failingIndex(sample.bytes) == sample.failsAt)
        #expect(String(validating: sample.bytes, as: UTF8.self) == nil)
    }

    @Test func aCharacterCutAtTheEndIsIncompleteNotInvalid() {
        var validator = UTF8Validator()
        let start = validator.consume([0xF0, 0x9F, 0x98])
        #expect(start)
        #expect(!validator.isComplete)
        let end = validator.consume([0x80])
        #expect(end)
        #expect(validator.isComplete)
    }

    /// Every 1- to 3-byte input gives the standard library's verdict.
    @Test func agreesWithTheStandardLibraryOnShortInputs() {
        let interesting: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        var disagreements: [[UInt8]] = []
        for first in interesting {
            for second in interesting {
                for third in interesting {
                    let bytes = [first, second, third]
                    var validator = UTF8Validator()
                    let ours = validator.consume(bytes) && validator.isComplete
                    if ours != (String(validating: bytes, as: UTF8.self) != nil) { disagreements.append(bytes) }
                }
            }
        }
        #expect(disagreements.isEmpty)
    }
}
