import MockBackendHTTP

/// Why a CSV text was refused, and the 1-based line where the offending field started.
package struct CSVError: Error, Sendable, Equatable, CustomStringConvertible, HTTPResponseError {
    /// What was wrong, for people.
    package var detail: String
    /// The 1-based line the offending field started on.
    package var line: Int

    package init(detail: String, line: Int) {
        self.detail = detail
        self.line = line
    }

    package var description: String { "line \(line): \(detail)" }

    /// The problem a handler answers with: 400, code `MALFORMED_CSV`, the line in the detail.
    package var problem: ProblemDetails { .badRequest("Line \(line): \(detail)", code: "MALFORMED_CSV") }

    package var response: HTTPResponse { problem.response }

    static func quoteInUnquotedField(line: Int) -> CSVError {
        CSVError(
            detail: "A quote inside an unquoted field; enclose the field in quotes and double the quote "
                + "(RFC 4180 §2.5, §2.7).",
            line: line)
    }

    static func textAfterClosingQuote(line: Int) -> CSVError {
        CSVError(
            detail: "Text follows the closing quote of a quoted field; it must end at a comma or line end "
                + "(RFC 4180 §2.7: a quote inside is written \"\").",
            line: line)
    }

    static func unterminatedQuotedField(line: Int) -> CSVError {
        CSVError(detail: "A quoted field has no closing quote before the end of the text.", line: line)
    }
}

/// A parser for comma-separated values (RFC 4180), strict about quotes and lenient about the rest.
///
/// - Records end at CRLF or LF. A lone CR is data, kept in the field (unquoted or quoted):
///   no line end is guessed, and no byte is lost.
/// - A line end after the last record adds no record (RFC 4180 §2.2), and a completely empty
///   line is no record at all; `""` on its own line is a record of one empty field.
/// - Records may differ in length (ragged rows are kept as they are, for the caller to count),
///   and a trailing comma ends in an empty field.
/// - Spaces are part of a field (RFC 4180 §2.4), so a quote after a leading space is a quote
///   inside an unquoted field. Any text other than comma, quote and line ends is data,
///   including tabs and non-ASCII.
/// - A UTF-8 byte order mark at the start, as Excel writes, is dropped.
/// - Lines are counted at each LF, so a CRLF is one line end and a lone CR none.
package enum CSVParser {
    /// Records of fields. Fields separated by commas; records by CRLF or LF (a lone CR is data);
    /// quoted fields may contain commas, CR, LF and "" for a quote; a trailing line end does not
    /// add an empty record; a completely empty line is no record.
    package static func parse(_ text: String) throws(CSVError) -> [[String]] {
        var reader = CSVReader(bytes: Array(text.utf8))
        return try reader.records()
    }
}

/// The cursor over the text. The text is valid UTF-8 and is only cut at ASCII bytes, so
/// every field decodes back exactly.
private struct CSVReader {
    /// What ended a field.
    private enum FieldEnd {
        case comma
        case lineEnd
        case endOfText
    }

    let bytes: [UInt8]
    private var index = 0
    private var line = 1

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func records() throws(CSVError) -> [[String]] {
        var records: [[String]] = []
        while index < bytes.count {
            // RFC 4180 §2.1: "Each record is located on a separate line"; an empty line holds none.
            if let length = lineEndLength(at: index) {
                index += length
                line += 1
                continue
            }
            var record: [String] = []
            var end = FieldEnd.comma
            while end == .comma {
                // After a comma at the very end there is one more, empty, field.
                let quoted = index < bytes.count && bytes[index] == quote
                let field: [UInt8]
                (field, end) = try quoted ? readQuotedField() : readUnquotedField()
                record.append(String(decoding: field, as: UTF8.self))
            }
            records.append(record)
        }
        return records
    }

    /// The length of the CRLF or LF at `position`, nil if no line end is there.
    private func lineEndLength(at position: Int) -> Int? {
        guard position < bytes.count else { return nil }
        if bytes[position] == lf { return 1 }
        if bytes[position] == cr, position + 1 < bytes.count, bytes[position + 1] == lf { return 2 }
        return nil
    }

    /// Reads up to the comma or line end after the field, consuming it.
    ///
    /// RFC 4180 §2.5: "If fields are not enclosed with double quotes, then double quotes may
    /// not appear inside the fields."
    private mutating func readUnquotedField() throws(CSVError) -> ([UInt8], FieldEnd) {
        let start = index
        while index < bytes.count {
            if let length = lineEndLength(at: index) {
                let field = Array(bytes[start..<index])
                index += length
                line += 1
                return (field, .lineEnd)
            }
            switch bytes[index] {
            case comma:
                let field = Array(bytes[start..<index])
                index += 1
                return (field, .comma)
            case quote:
                throw .quoteInUnquotedField(line: line)
            default:
                index += 1
            }
        }
        return (Array(bytes[start..<index]), .endOfText)
    }

    /// Reads a field that starts with a quote, and the comma or line end after it.
    ///
    /// RFC 4180 §2.6–2.7: "Fields containing line breaks (CRLF), double quotes, and commas
    /// should be enclosed in double-quotes", and "a double-quote appearing inside a field must
    /// be escaped by preceding it with another double quote".
    private mutating func readQuotedField() throws(CSVError) -> ([UInt8], FieldEnd) {
        let startLine = line
        var field: [UInt8] = []
        index += 1  // the opening quote
        while true {
            guard index < bytes.count else { throw .unterminatedQuotedField(line: startLine) }
            let byte = bytes[index]
            index += 1
            if byte == quote {
                guard index < bytes.count, bytes[index] == quote else { break }
                index += 1
            } else if byte == lf {
                line += 1
            }
            field.append(byte)
        }
        // RFC 4180 §2 ABNF: `escaped = DQUOTE *(TEXTDATA / COMMA / CR / LF / 2DQUOTE) DQUOTE`,
        // then a COMMA, a CRLF or the end.
        guard index < bytes.count else { return (field, .endOfText) }
        if bytes[index] == comma {
            index += 1
            return (field, .comma)
        }
        guard let length = lineEndLength(at: index) else { throw .textAfterClosingQuote(line: startLine) }
        index += length
        line += 1
        return (field, .lineEnd)
    }
}

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")
private let comma = UInt8(ascii: ",")
private let quote = UInt8(ascii: "\"")
