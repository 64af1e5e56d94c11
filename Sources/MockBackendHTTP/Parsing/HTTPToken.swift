/// `tchar` of RFC 9110 §5.6.2, the characters of a token (method, field name, media type,
/// parameter name):
///
///     tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
///             "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
///
/// The one definition in the package: the request parser, media types and stub mappings
/// all ask here.
package enum HTTPToken {
    /// One entry per byte value, true for a tchar.
    private static let tcharTable: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
        for byte in "!#$%&'*+-.^_`|~".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// Whether `byte` is a tchar.
    package static func isTChar(_ byte: UInt8) -> Bool {
        tcharTable[Int(byte)]
    }
}
