import MockBackendHTTP

/// A header value with `;`-separated parameters, as Content-Type (RFC 2045 §5.1) and
/// Content-Disposition (RFC 2183 §2) write them: `form-data; name="a"; filename=b.csv`.
///
/// Lenient: a parameter without `=` is skipped, an unterminated quoted string runs to the end,
/// and text between a closing quote and the next `;` is ignored.
struct HeaderParameters {
    /// The value before the first `;`, trimmed: the media type or the disposition type.
    var value: String
    /// The parameters in order, names lower-cased, values unquoted.
    var parameters: [(name: String, value: String)] = []

    init(_ field: String) {
        let scalars = Array(field.unicodeScalars)
        var index = scalars.firstIndex(of: ";") ?? scalars.count
        value = Self.trimmed(scalars[..<index])
        while index < scalars.count {
            index += 1  // past the ";"
            let nameEnd = scalars[index...].firstIndex { $0 == "=" || $0 == ";" } ?? scalars.count
            let name = Self.trimmed(scalars[index..<nameEnd]).lowercased()
            index = nameEnd
            guard index < scalars.count, scalars[index] == "=" else { continue }
            index += 1
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
            var parameterValue = String.UnicodeScalarView()
            if index < scalars.count, scalars[index] == "\"" {
                // RFC 9110 §5.6.4: `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE`,
                // `quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )`.
                index += 1
                while index < scalars.count, scalars[index] != "\"" {
                    if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
                    parameterValue.append(scalars[index])
                    index += 1
                }
                index = scalars[index...].firstIndex(of: ";") ?? scalars.count
            } else {
                let valueEnd = scalars[index...].firstIndex(of: ";") ?? scalars.count
                parameterValue.append(contentsOf: Self.trimmed(scalars[index..<valueEnd]).unicodeScalars)
                index = valueEnd
            }
            if !name.isEmpty { parameters.append((name, String(parameterValue))) }
        }
    }

    /// The first parameter of this lower-case name.
    subscript(name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    private static func trimmed(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String(String.UnicodeScalarView(scalars)).trimmingSpaces())
    }
}
