import MockBackendHTTP
import TestSupport
import Testing

@Suite("SHA-1")
struct SHA1Tests {
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// FIPS 180-4 examples and RFC 3174 §7.3 TEST1-TEST4 (TEST3: a million "a", fed 1000 at a time).
    static let vectors: [(input: String, repeats: Int, digest: String)] = [
        ("", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (String(repeating: "a", count: 1000), 1000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        (
            "0123456701234567012345670123456701234567012345670123456701234567", 10,
            "dea356a2cddd90c7a7ecedc5ebb563934f460452"
        ),
        ("The quick brown fox jumps over the lazy dog", 1, "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ]

    @Test("digests the published test vectors", arguments: vectors)
    func vector(_ vector: (input: String, repeats: Int, digest: String)) {
        var sha = SHA1()
        let bytes = Array(vector.input.utf8)
        for _ in 0..<vector.repeats { sha.update(bytes) }
        #expect(Self.hex(sha.finalize()) == vector.digest)
    }

    @Test func feedingInPiecesGivesTheSameDigest() {
        let message = Array((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let whole = SHA1.hash(message)
        // Every length across the 55/56/64-byte padding edges.
        for split in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 999, 1000] {
            var sha = SHA1()
            sha.update(message[..<split])
            sha.update(message[split...])
            #expect(sha.finalize() == whole, "split at \(split)")
        }
        for length in 50...130 {
            var sha = SHA1()
            for byte in message[..<length] { sha.update([byte]) }
            #expect(sha.finalize() == SHA1.hash(message[..<length]), "length \(length)")
        }
    }

    /// RFC 6455 §1.3: the key of the example handshake and its accept value.
    @Test func acceptValueOfTheRFCExample() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
