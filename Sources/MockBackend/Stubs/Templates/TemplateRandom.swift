/// `randomValue` and `randomInt`, drawn from the server's `IdentifierSource`: with
/// `--seed` the same requests in the same order get the same values.
enum TemplateRandom {
    /// `randomValue`'s `type`.
    enum Kind: String, CaseIterable, Sendable {
        case alphanumeric = "ALPHANUMERIC"
        case alphabetic = "ALPHABETIC"
        case numeric = "NUMERIC"
        case alphanumericAndSymbols = "ALPHANUMERIC_AND_SYMBOLS"
        case hexadecimal = "HEXADECIMAL"
        case uuid = "UUID"

        var alphabet: [Character] {
            switch self {
            case .alphanumeric: Array("abcdefghijklmnopqrstuvwxyz0123456789")
            case .alphabetic: Array("abcdefghijklmnopqrstuvwxyz")
            case .numeric: Array("0123456789")
            // ASCII 33…126, as WireMock's.
            case .alphanumericAndSymbols: (33...126).map { Character(Unicode.Scalar(UInt8($0))) }
            case .hexadecimal: Array("0123456789abcdef")
            case .uuid: []
            }
        }
    }

    /// Longest `randomValue` a template may ask for.
    static let maximumLength = 65_536

    /// `length` characters of `kind` (a version 4 UUID for `.uuid`), lower case unless
    /// `uppercase`, as WireMock's.
    static func value(length: Int, kind: Kind, uppercase: Bool, source: IdentifierSource) -> String {
        var text: String
        if kind == .uuid {
            let hex = source.hex(length: 32)
            let digits = Array(hex)
            let variant = "89ab"["89ab".index("89ab".startIndex, offsetBy: source.number(in: 0...3))]
            text =
                String(digits[0..<8]) + "-" + String(digits[8..<12]) + "-4" + String(digits[13..<16]) + "-"
                + String(variant) + String(digits[17..<20]) + "-" + String(digits[20..<32])
        } else {
            let alphabet = kind.alphabet
            let count = min(max(length, 0), maximumLength)
            text = String((0..<count).map { _ in alphabet[source.number(in: 0...(alphabet.count - 1))] })
        }
        return uppercase ? text.uppercased() : text
    }

    /// A whole number from `lower` to `upper`, both included.
    static func integer(lower: Int, upper: Int, source: IdentifierSource) -> Int {
        guard lower < upper else { return lower }
        let span = UInt64(bitPattern: Int64(upper) &- Int64(lower))
        return lower &+ Int(truncatingIfNeeded: source.unsigned(below: span &+ 1))
    }
}
