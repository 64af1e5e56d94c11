extension JSONValue {
    /// Compact JSON text with sorted keys and unescaped slashes: the bytes a `JSONEncoder`
    /// with `[.sortedKeys, .withoutEscapingSlashes]` (the server's `JSONCoding.encoder`)
    /// writes for the same value, without `Encoder`'s boxing of every value. The server's
    /// admin feed serializes one object per request, so this is on every request's path.
    /// Nil for a number JSON cannot hold (NaN, infinity), where the encoder throws.
    package var serialized: [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        guard Self.write(self, to: &output) else { return nil }
        return output
    }

    private static func write(_ value: JSONValue, to output: inout [UInt8]) -> Bool {
        switch value {
        case .null: output += "null".utf8
        case .bool(let flag): output += (flag ? "true" : "false").utf8
        case .integer(let number): output += String(number).utf8
        case .number(let number):
            guard number.isFinite else { return false }
            // As the encoder writes a Double: its description, without a trailing ".0".
            var text = number.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            output += text.utf8
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                guard write(element, to: &output) else { return false }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                guard let member = members[key], write(member, to: &output) else { return false }
            }
            output.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// RFC 8259 §7: quotation mark, reverse solidus and control characters escaped,
    /// everything else as its UTF-8 bytes.
    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += #"\""#.utf8
            case UInt8(ascii: "\\"): output += #"\\"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0x08: output += #"\b"#.utf8
            case 0x0C: output += #"\f"#.utf8
            case 0..<0x20:
                output += #"\u00"#.utf8
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
