/// SHA-1 (FIPS 180-4 §6.1, RFC 3174), for the one digest the WebSocket opening handshake
/// needs: `Sec-WebSocket-Accept` (RFC 6455 §4.2.2). Kept here so the HTTP module needs no
/// cryptography library. SHA-1 is broken for collision resistance; the handshake uses it
/// only to prove the server read the key, never for security, and nothing else may.
package struct SHA1: Sendable {
    /// H0...H4 (FIPS 180-4 §5.3.1).
    private var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    /// Bytes not yet making up a whole 64-byte block.
    private var pending: [UInt8] = []
    /// Message length so far, in bytes.
    private var length: UInt64 = 0

    package init() {}

    /// The 20-byte digest of `bytes`.
    package static func hash<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    /// Adds the next bytes of the message.
    package mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        compressWholeBlocks()
    }

    /// Pads the message (FIPS 180-4 §5.1.1: a 1 bit, zeros, the bit length as 64 bits
    /// big-endian) and returns the digest, H0 to H4 big-endian.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        pending.append(0x80)
        while pending.count % 64 != 56 { pending.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> shift))
        }
        compressWholeBlocks()
        return state.flatMap { word in
            stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> $0) }
        }
    }

    /// Runs every whole block of `pending` through the compression function and keeps the rest.
    private mutating func compressWholeBlocks() {
        let whole = pending.count - pending.count % 64
        guard whole > 0 else { return }
        pending.withUnsafeBufferPointer { bytes in
            for start in stride(from: 0, to: whole, by: 64) {
                Self.compress(&state, UnsafeBufferPointer(rebasing: bytes[start..<(start + 64)]))
            }
        }
        pending.removeFirst(whole)
    }

    /// One 512-bit block (FIPS 180-4 §6.1.2): the message schedule W0...W79, then 80 rounds.
    private static func compress(_ state: inout [UInt32], _ block: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { schedule in
            for word in 0..<16 {
                schedule[word] =
                    UInt32(block[word * 4]) << 24 | UInt32(block[word * 4 + 1]) << 16 | UInt32(block[word * 4 + 2]) << 8
                    | UInt32(block[word * 4 + 3])
            }
            for word in 16..<80 {
                schedule[word] = rotate(
                    schedule[word - 3] ^ schedule[word - 8] ^ schedule[word - 14] ^ schedule[word - 16], by: 1)
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for round in 0..<80 {
                // f and K of FIPS 180-4 §4.1.1 and §4.2.1: Ch, Parity, Maj, Parity.
                let (f, k): (UInt32, UInt32) =
                    switch round {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let temporary = rotate(a, by: 5) &+ f &+ e &+ k &+ schedule[round]
                e = d
                d = c
                c = rotate(b, by: 30)
                b = a
                a = temporary
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
    }

    private static func rotate(_ value: UInt32, by count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
