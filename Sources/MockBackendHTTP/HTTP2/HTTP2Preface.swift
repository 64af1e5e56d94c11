/// Recognises the HTTP/2 connection preface (RFC 9113 §3.4) at the start of a connection:
/// h2 with prior knowledge on the plain listener, and h2 after ALPN on the TLS one, both
/// begin with these 24 bytes. Until enough bytes have come to tell, they are held.
struct HTTP2Preface {
    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`.
    static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    enum Verdict: Equatable {
        /// The bytes so far begin the preface: wait for more.
        case undecided
        /// The connection is HTTP/2; the bytes held, preface included, go to it.
        case http2([UInt8])
        /// The connection is HTTP/1.x; the bytes held go to its parser.
        case http1([UInt8])
    }

    private var held: [UInt8] = []

    /// Takes the next bytes read.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        held.append(contentsOf: bytes)
        let compared = min(held.count, Self.bytes.count)
        guard held[..<compared].elementsEqual(Self.bytes[..<compared]) else { return .http1(held) }
        return held.count >= Self.bytes.count ? .http2(held) : .undecided
    }
}
