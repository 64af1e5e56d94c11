import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

@Suite("CSVParser")
struct CSVParserTests {
    @Test func parsesSimpleRecords() throws {
        #expect(
            try CSVParser.parse("id,name,email\n1,Ann,ann@example.com") == [
                ["id", "name", "email"], ["1", "Ann", "ann@example.com"],
            ])
    }

    @Test func quotedFieldsHoldCommas() throws {
        #expect(try CSVParser.parse("\"Smith, Ann\",1\n2,\"a,b,c\"") == [["Smith, Ann", "1"], ["2", "a,b,c"]])
    }

    @Test func quotedFieldsHoldLineEndsAsSent() throws {
        #expect(try CSVParser.parse("\"line 1\r\nline 2\",x\r\ny,z\r\n") == [["line 1\r\nline 2", "x"], ["y", "z"]])
        #expect(try CSVParser.parse("\"line 1\nline 2\",x\ny,z\n") == [["line 1\nline 2", "x"], ["y", "z"]])
    }

    @Test func doubledQuotesAreOneQuote() throws {
        #expect(try CSVParser.parse(#""say ""hi""","""""#) == [[#"say "hi""#, "\""]])
        #expect(try CSVParser.parse(#""""#) == [[""]])
    }

    @Test func keepsEmptyFields() throws {
        #expect(try CSVParser.parse(",,\na,,b\n\"\",x,") == [["", "", ""], ["a", "", "b"], ["", "x", ""]])
        #expect(try CSVParser.parse("a,") == [["a", ""]])
    }

    @Test func aTrailingLineEndAddsNoRecord() throws {
        #expect(try CSVParser.parse("a,b\n") == [["a", "b"]])
        #expect(try CSVParser.parse("a,b\r\n") == [["a", "b"]])
        #expect(try CSVParser.parse("\"a\"\n") == [["a"]])
        #expect(try CSVParser.parse("").isEmpty)
    }

    @Test func emptyLinesAreNoRecords() throws {
        #expect(try CSVParser.parse("a\n\nb\r\n\r\n\r\nc\n\n") == [["a"], ["b"], ["c"]])
        #expect(try CSVParser.parse("\n\r\n").isEmpty)
        #expect(try CSVParser.parse("a\n\"\"\nb") == [["a"], [""], ["b"]])
    }

    @Test func crlfAndLFGiveTheSameRecords() throws {
        let lf = try CSVParser.parse("a,b\n1,2\n3,4\n")
        #expect(try CSVParser.parse("a,b\r\n1,2\r\n3,4\r\n") == lf)
        #expect(try CSVParser.parse("a,b\r\n1,2\n3,4") == lf)
    }

    @Test func keepsALoneCRAsData() throws {
        #expect(try CSVParser.parse("a\rb,c\r") == [["a\rb", "c\r"]])
        #expect(try CSVParser.parse("\"a\rb\"") == [["a\rb"]])
    }

    @Test func keepsRaggedRowsAsTheyAre() throws {
        #expect(try CSVParser.parse("a,b,c\n1\n1,2,3,4\n") == [["a", "b", "c"], ["1"], ["1", "2", "3", "4"]])
    }

    @Test func keepsSpacesAndNonASCIIAndDropsAByteOrderMark() throws {
        #expect(try CSVParser.parse(" a , b ") == [[" a ", " b "]])
        #expect(
            try CSVParser.parse("\u{FEFF}name,city\nJosé,\"Zürich, CH\"\nA\tB,ü") == [
                ["name", "city"], ["José", "Zürich, CH"], ["A\tB", "ü"],
            ])
        // Only a leading mark is dropped.
        #expect(try CSVParser.parse("a,\u{FEFF}b") == [["a", "\u{FEFF}b"]])
    }

    @Test func refusesAQuoteInsideAnUnquotedField() {
        #expect(throws: CSVError.quoteInUnquotedField(line: 1)) { try CSVParser.parse(#"a,b"c"#) }
        #expect(throws: CSVError.quoteInUnquotedField(line: 1)) { try CSVParser.parse(#"a, "b""#) }
        #expect(throws: CSVError.quoteInUnquotedField(line: 4)) { try CSVParser.parse("x\n\"a\nb\",c\nd\"e") }
    }

    @Test func refusesTextAfterAClosingQuote() {
        #expect(throws: CSVError.textAfterClosingQuote(line: 1)) { try CSVParser.parse(#""a"b,c"#) }
        #expect(throws: CSVError.textAfterClosingQuote(line: 2)) { try CSVParser.parse("x\r\n\"a\" ,b") }
        // The line the field started on, not the line of the stray text.
        #expect(throws: CSVError.textAfterClosingQuote(line: 2)) { try CSVParser.parse("x\n\"a\r\nb\nc\"d\n") }
    }

    @Test func refusesAnUnterminatedQuotedField() {
        #expect(throws: CSVError.unterminatedQuotedField(line: 1)) { try CSVParser.parse("\"abc") }
        #expect(throws: CSVError.unterminatedQuotedField(line: 3)) { try CSVParser.parse("a\r\n\r\n\"b\nc\n\nd,e") }
        #expect(throws: CSVError.unterminatedQuotedField(line: 1)) { try CSVParser.parse(#""a"""#) }
    }

    @Test func errorsSayTheirLineAndBecomeA400Problem() {
        let error = CSVError.unterminatedQuotedField(line: 3)
        #expect(error.description == "line 3: A quoted field has no closing quote before the end of the text.")
        #expect(error.problem.status == 400)
        #expect(error.problem.code == "MALFORMED_CSV")
        #expect(error.problem.detail == "Line 3: A quoted field has no closing quote before the end of the text.")
        #expect(error.response.status == 400)
    }
}
