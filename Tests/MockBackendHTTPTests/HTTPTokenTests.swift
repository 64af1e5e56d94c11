import MockBackendHTTP
import TestSupport
import Testing

@Suite("tchar (RFC 9110 §5.6.2)")
struct HTTPTokenTests {
    /// Every byte value against the ABNF, written out independently of the table.
    @Test func theTableMatchesTheGrammarForEveryByte() {
        let symbols = Set("!#$%&'*+-.^_`|~".utf8)
        for value in 0...255 {
            let byte = UInt8(value)
            let isDigit = (0x30...0x39).contains(byte)
            let isAlpha = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            #expect(HTTPToken.isTChar(byte) == (isDigit || isAlpha || symbols.contains(byte)), "byte \(value)")
        }
    }

    @Test func delimitersWhitespaceAndNonASCIIAreNotTokenCharacters() {
        for byte in Array("\"(),/:;<=>?@[\\]{} \t\r\n".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF] {
            #expect(!HTTPToken.isTChar(byte), "byte \(byte)")
        }
    }
}
