/// Regular expressions as the admin API takes them (`urlPathPattern`, `matches`, ...):
/// Swift `Regex` syntax, which covers the common ground of Java (WireMock's files) and
/// ECMAScript (JSON Schema's `format: regex`), matched scalar by scalar as those are.
enum PatternSyntax {
    /// The compiled pattern, or nil when it is not one.
    static func compile(_ pattern: String) -> Regex<AnyRegexOutput>? {
        guard let regex = try? Regex(escapingNonASCII(pattern)) else { return nil }
        return regex.matchingSemantics(.unicodeScalar)
    }

    /// `pattern` with every non-ASCII scalar written as `\u{X}`. Swift's parser reads a
    /// pattern as characters, so a combining mark after a metacharacter (`a{2}́`, `}🏻`)
    /// would fuse with it and be refused as "confusable"; written as an escape it stays
    /// the literal it is in Java and ECMAScript. An escaped non-ASCII scalar (`\é`) is that
    /// literal too, and the text of `\Q...\E` is left as it is.
    static func escapingNonASCII(_ pattern: String) -> String {
        var result = ""
        var escaping = false
        var quoting = false
        var previous: Unicode.Scalar?
        for scalar in pattern.unicodeScalars {
            defer { previous = scalar }
            if quoting {
                result.unicodeScalars.append(scalar)
                if previous == "\\", scalar == "E" { quoting = false }
                continue
            }
            if escaping {
                escaping = false
                if scalar.isASCII {
                    result.unicodeScalars.append("\\")
                    result.unicodeScalars.append(scalar)
                    if scalar == "Q" { quoting = true }
                } else {
                    result += literal(scalar)
                }
                continue
            }
            if scalar == "\\" {
                escaping = true
            } else if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                result += literal(scalar)
            }
        }
        if escaping { result.unicodeScalars.append("\\") }
        return result
    }

    private static func literal(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
